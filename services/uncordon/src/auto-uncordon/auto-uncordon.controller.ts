import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import type { UncordonConfig } from '../config.js';
import type { NodeChange, NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { NODE_SOURCE, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';
import { RebalanceLedgerController } from '../rebalance-ledger/rebalance-ledger.controller.js';
import { UncordonService, type CycleResult } from './uncordon.service.js';

/**
 * The cordoned nodes are decided together — the budget (at most AUTO_UNCORDON_MAX_PER_CYCLE per scan interval, the
 * longest-cordoned first) is over all of them — so the controller has one key.
 */
export const CORDONS_KEY = 'cordons';
/** A burst of node changes is evaluated once, this long after the first. */
const CHANGE_DEBOUNCE_MS = 200;
/** Requeues sooner than this are rounded up: a bound on passes per second whatever the verdicts say. */
const MIN_REQUEUE_MS = 250;

/** cordonChange — a node change that can change a verdict: the node is cordoned, or was until this change. */
export const cordonChange = (c: NodeChange): boolean => c.node?.spec?.unschedulable === true || c.old?.spec?.unschedulable === true;

/**
 * AutoUncordonController — auto-uncordon as a controller (docs/uncordon.md#controllers): one key, `cordons`, reconciled
 * by one {@link UncordonService.pass} — on a change of a cordoned node (debounced), every scan interval, when the
 * soonest `wait` verdict's grace ends (the pass's `requeueAfterMs`), 1 s after a conflict, and on becoming leader;
 * each pass is followed by a ledger pass. The leader only.
 */
@Injectable()
export class AutoUncordonController {
  readonly controller: Controller<CycleResult>;

  constructor(
    @Inject(UNCORDON_CONFIG) config: UncordonConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(NODE_SOURCE) source: NodeSource,
    @Inject(UncordonService) uncordon: UncordonService,
    @Inject(RebalanceLedgerController) ledger: RebalanceLedgerController,
  ) {
    this.controller = controllers.controller<CycleResult>({
      name: 'auto-uncordon',
      leader,
      ready: () => source.waitForSync(),
      listKeys: () => [CORDONS_KEY],
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      minRequeueMs: MIN_REQUEUE_MS,
      reconcile: async () => {
        const result = await uncordon.pass();
        ledger.enqueue();
        return result;
      },
    });
    source.onChange((c) => {
      if (cordonChange(c)) this.controller.enqueueAfter(CORDONS_KEY, CHANGE_DEBOUNCE_MS);
    });
  }

  /**
   * runPass — a pass that starts after this call, and its verdicts; none in a replica that does not lead. For tests
   * and tooling: the controller runs passes by itself.
   */
  async runPass(): Promise<CycleResult> {
    return (await this.controller.request(CORDONS_KEY)) ?? { verdicts: [], acted: {} };
  }
}
