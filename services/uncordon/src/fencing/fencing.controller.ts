import { Inject, Injectable } from '@nestjs/common';
import { ApprovalsController, CLOCK, Controller, LOGGER, METRICS, type ApprovalStore, type Clock, type JsonLogger, type LeaderElector, type Metrics } from '@nodes-manager/platform';
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
    @Inject(CLOCK) clock: Clock,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(METRICS) metrics: Metrics,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(FencingService) fencing: FencingService,
    @Inject(FenceService) fence: FenceService,
    @Inject(FENCE_APPROVALS) approvals: ApprovalStore,
    @Inject(NODE_SOURCE) source: NodeSource,
  ) {
    const common = { service: 'uncordon', clock, leader, metrics, logger } as const;
    this.fences = new Controller({
      ...common,
      name: 'fences',
      listKeys: () => fence.activeIds(),
      concurrency: FENCES_AT_ONCE,
      reconcile: (id, ctx) => fence.step(id, ctx),
    });
    this.evaluation = new Controller({
      ...common,
      name: 'fencing',
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
    this.approvals = new ApprovalsController({ service: 'uncordon', store: approvals, clock, leader, metrics, logger, resyncMs: config.SCAN_INTERVAL_SECONDS * 1000, actor: FENCING_ACTOR });
  }
}
