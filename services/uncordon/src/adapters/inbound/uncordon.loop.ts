import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { LeaderElector } from '@nodes-manager/platform';
import { AutoUncordonController } from '../../auto-uncordon/auto-uncordon.controller.js';
import { DrainController } from '../../drain/drain.controller.js';
import { FencingController } from '../../fencing/fencing.controller.js';
import { PressureController } from '../../pressure/pressure.controller.js';
import { PauseController } from '../../pause/pause.controller.js';
import { RebalanceLedgerController } from '../../rebalance-ledger/rebalance-ledger.controller.js';
import type { NodeSource } from '../outbound/node-source.adapter.js';
import { NODE_SOURCE, UNCORDON_LEADER } from '../../tokens.js';

/**
 * UncordonLoop — starts and stops the service's controllers (docs/uncordon.md#controllers): at bootstrap every
 * controller follows the leader election, then the election and the node cache start; at shutdown the cache stops
 * (no more changes), then every controller (no new key; steps in flight finish, bounded), then the election, so the
 * standby takes over at once. Thin: the keys and the work are in the controllers and their services.
 */
@Injectable()
export class UncordonLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly controllers: ReadonlyArray<{ start(): void; stop(): Promise<void> }>;

  constructor(
    @Inject(NODE_SOURCE) private readonly source: NodeSource,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    @Inject(AutoUncordonController) autoUncordon: AutoUncordonController,
    @Inject(RebalanceLedgerController) ledger: RebalanceLedgerController,
    @Inject(DrainController) drains: DrainController,
    @Inject(FencingController) fencing: FencingController,
    @Inject(PressureController) pressure: PressureController,
    @Inject(PauseController) pause: PauseController,
  ) {
    this.controllers = [autoUncordon.controller, ledger.controller, drains.controller, fencing.evaluation, fencing.fences, fencing.approvals, pressure.controller, pause.controller];
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const c of this.controllers) c.start();
    this.leader.start();
    await this.source.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.source.stop();
    await Promise.all(this.controllers.map((c) => c.stop()));
    await this.leader.stop();
  }
}
