import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type ApprovalsController, type ApprovalStore, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import type { UncordonConfig } from '../config.js';
import type { NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { FENCE_APPROVALS, NODE_SOURCE, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';
import { FenceService } from './fence.service.js';
import { FENCING_ACTOR, FencingService } from './fencing.service.js';

/** The partition check is over every opted-in node at once: the evaluation is one key. */
export const EVALUATION_KEY = 'evaluation';
/** Requeues of the evaluation sooner than this are rounded up. */
const MIN_REQUEUE_MS = 1_000;
/** Fence steps carried on at once. */
const FENCES_AT_ONCE = 8;

/**
 * FencingController — fencing as two controllers (docs/uncordon.md#controllers), the leader only:
 *
 * - `fencing`: one key, `evaluation` — {@link FencingService.evaluate} every scan interval, on becoming leader and when
 *   a waiting verdict's Lease goes stale; after each, every active fence is enqueued in `fences`;
 * - `fences`: one key per fence operation, each reconcile one step from its row ({@link FenceService.step}); on
 *   becoming leader the active ones are listed, so a restart or failover goes on from their last recorded step;
 * - `fence-approvals`: one key per pending fence approval, expired exactly at its deadline (libs/platform
 *   `ApprovalsController`, docs/approvals.md#the-approvals-controller); approved ones are the evaluation's.
 */
@Injectable()
export class FencingController {
  readonly evaluation: Controller;
  readonly fences: Controller;
  readonly approvals: ApprovalsController;

  constructor(
    @Inject(UNCORDON_CONFIG) config: UncordonConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(FencingService) fencing: FencingService,
    @Inject(FenceService) fence: FenceService,
    @Inject(FENCE_APPROVALS) approvals: ApprovalStore,
    @Inject(NODE_SOURCE) source: NodeSource,
  ) {
    this.fences = controllers.controller({
      name: 'fences',
      leader,
      listKeys: () => fence.activeIds(),
      concurrency: FENCES_AT_ONCE,
      reconcile: (id, ctx) => fence.step(id, ctx),
    });
    this.evaluation = controllers.controller({
      name: 'fencing',
      leader,
      ready: () => source.waitForSync(),
      listKeys: () => [EVALUATION_KEY],
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      minRequeueMs: MIN_REQUEUE_MS,
      reconcile: async () => {
        const result = await fencing.evaluate();
        for (const id of await fence.activeIds()) this.fences.enqueue(id);
        return result;
      },
    });
    this.approvals = controllers.approvals({ store: approvals, leader, resyncMs: config.SCAN_INTERVAL_SECONDS * 1000, actor: FENCING_ACTOR });
  }
}
