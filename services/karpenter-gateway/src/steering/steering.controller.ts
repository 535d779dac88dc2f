import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type ApprovalsController, type ApprovalStore, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import type { KarpenterGatewayConfig } from '../config.js';
import { KARPENTER_GATEWAY_CONFIG, KARPENTER_LEADER } from '../tokens.js';
import { STEER_APPROVALS, SteeringService } from './steering.service.js';

/** The one key of the steering pass: it decides over the whole fleet at once. */
export const STEERING_KEY = 'fleet';
/** A pass whose write met a conflict looks again this soon (re-planned on what the NodePool holds now). */
const CONFLICT_REQUEUE_MS = 1_000;

/**
 * SteeringController — steering on the runtime (docs/steering.md#the-loop): one key, `fleet`, reconciled by the
 * karpenter-gateway leader only, on becoming leader and every STEERING_INTERVAL_SECONDS (the pass also takes the
 * cluster-wide steering lock, which approved writes share); it stores its last pass, so every replica answers
 * `steering.status` the same. And the `steer` approvals, expired at their deadline and carried out once approved
 * (SteeringService.runApproved), in every replica. Thin.
 */
@Injectable()
export class SteeringController {
  readonly controller: Controller;
  readonly approvals: ApprovalsController;

  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG) config: KarpenterGatewayConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(STEER_APPROVALS) store: ApprovalStore,
    @Inject(SteeringService) svc: SteeringService,
    @Inject(KARPENTER_LEADER) leader: LeaderElector,
  ) {
    this.controller = controllers.controller({
      name: 'steering',
      leader,
      reconcile: async () => {
        const pass = await svc.pass();
        return pass?.again ? { requeueAfterMs: CONFLICT_REQUEUE_MS } : undefined;
      },
      listKeys: () => (config.STEERING_MODE === 'off' ? [] : [STEERING_KEY]),
      resyncMs: config.STEERING_INTERVAL_SECONDS * 1000,
      backoff: { baseMs: 5_000, maxMs: config.STEERING_INTERVAL_SECONDS * 1000 },
    });
    this.approvals = controllers.approvals({
      store,
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      actor: 'system:karpenter-gateway',
      executor: {
        // An `executing` row is failed as interrupted only under the steering lock: never while a run holds it.
        under: <T>(_a: unknown, fn: () => Promise<T>) => svc.underLock(fn) as Promise<T>,
        execute: async (a, meta) => {
          await svc.runApproved(a.id, a.subject, meta);
        },
      },
    });
  }
}
