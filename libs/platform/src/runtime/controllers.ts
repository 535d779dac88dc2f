import { controllerOwners, type ControllerName, type ServiceName } from '@nodes-manager/contracts';
import { ApprovalsController, type ApprovalsControllerOptions } from '../approvals/approvals.controller.js';
import type { Clock } from '../clock/clock.js';
import type { Metrics } from '../health/metrics.js';
import type { JsonLogger } from '../logging/logger.js';
import { Controller, type ControllerOptions, type ReconcileResult } from './controller.js';

/** The options every controller of a service shares, given by {@link Controllers}. */
type Shared = 'service' | 'clock' | 'metrics' | 'logger';

/**
 * Controllers — makes a service's controllers with what every one of them shares: the service's name (its metrics'
 * `service` label), the process's Clock and metrics, and the service's logger. PlatformModule.forService provides it
 * as `CONTROLLERS`; a controller class injects it and names only what is its own (docs/runtime.md). It makes only the
 * controllers libs/contracts' CONTROLLER_OWNER lists for the service, so the catalogue (and the docs table made from
 * it) cannot miss one that runs.
 */
export class Controllers {
  constructor(
    readonly service: ServiceName,
    readonly clock: Clock,
    readonly metrics: Metrics,
    readonly logger: JsonLogger,
  ) {}

  /** What every controller of the service is given. */
  private shared(): { service: ServiceName; clock: Clock; metrics: Metrics; logger: JsonLogger } {
    return { service: this.service, clock: this.clock, metrics: this.metrics, logger: this.logger };
  }

  /** controller — a {@link Controller} of this service. */
  controller<R extends ReconcileResult = ReconcileResult>(o: Omit<ControllerOptions<R>, Shared | 'name'> & { readonly name: ControllerName }): Controller<R> {
    this.owned(o.name);
    return new Controller<R>({ ...this.shared(), ...o });
  }

  /** approvals — an {@link ApprovalsController} of this service. */
  approvals(o: Omit<ApprovalsControllerOptions, Shared>): ApprovalsController {
    this.owned(`${o.store.kind}-approvals`);
    return new ApprovalsController({ ...this.shared(), ...o });
  }

  /** owned — throws unless CONTROLLER_OWNER lists `name` as this service's. */
  private owned(name: string): void {
    const owners = controllerOwners(name);
    if (!owners.includes(this.service)) throw new Error(`controller '${name}' is not one of ${this.service}'s in CONTROLLER_OWNER (libs/contracts/src/controllers.ts)${owners.length ? `: it is ${owners.join(', ')}'s` : ''}`);
  }

}
