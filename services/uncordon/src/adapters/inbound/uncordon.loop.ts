import { Inject, Injectable } from '@nestjs/common';
import { Manager, type LeaderElector } from '@nodes-manager/platform';
import { AutoUncordonController } from '../../auto-uncordon/auto-uncordon.controller.js';
import { DrainController } from '../../drain/drain.controller.js';
import { FencingController } from '../../fencing/fencing.controller.js';
import { PressureController } from '../../pressure/pressure.controller.js';
import { PauseController } from '../../pause/pause.controller.js';
import { RebalanceLedgerController } from '../../rebalance-ledger/rebalance-ledger.controller.js';
import type { NodeSource } from '../outbound/node-source.adapter.js';
import { NODE_SOURCE, UNCORDON_LEADER } from '../../tokens.js';

/**
 * UncordonLoop — the service's parts for the runtime's {@link Manager} (docs/runtime.md#the-manager), which starts and
 * stops them in its one order: the controllers (docs/uncordon.md#controllers), the election `uncordon`, the node
 * cache. Thin: the keys and the work are in the controllers and their services.
 */
@Injectable()
export class UncordonLoop extends Manager {
  constructor(
    @Inject(NODE_SOURCE) source: NodeSource,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(AutoUncordonController) autoUncordon: AutoUncordonController,
    @Inject(RebalanceLedgerController) ledger: RebalanceLedgerController,
    @Inject(DrainController) drains: DrainController,
    @Inject(FencingController) fencing: FencingController,
    @Inject(PressureController) pressure: PressureController,
    @Inject(PauseController) pause: PauseController,
  ) {
    super({
      controllers: [autoUncordon.controller, ledger.controller, drains.controller, fencing.evaluation, fencing.fences, fencing.approvals, pressure.controller, pause.controller],
      leader,
      caches: [source],
    });
  }
}
