import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import type { SchedulerScoringConfig } from './config.js';
import { OptimizeCycleService } from './optimize-cycle.service.js';
import type { ClusterCache } from './adapters/outbound/cluster-cache.adapter.js';
import { CLUSTER_CACHE, SCHEDULER_LEADER, SCHEDULER_SCORING_CONFIG } from './tokens.js';

/** The optimisation decides over the whole cluster at once (one plan, one budget of disruptions): the controller's one key. */
export const OPTIMIZE_KEY = 'cluster';

/**
 * OptimizeController — the optimisation loop as a controller (docs/scoring.md#the-optimisation-controller), the leader
 * only: one key, `cluster`, reconciled by one {@link OptimizeCycleService.runLoopCycle} in OPTIMIZE_MODE — every
 * SCAN_INTERVAL_SECONDS, on becoming leader and once the cluster cache has synced; never on a cache that has not. Its
 * cycles never overlap and never pile up (one more at most, right after the one in flight: the runtime's queue), and
 * leadership is verified on the server when a cycle gets its turn. A user's `optimize.trigger` is not a key: it runs
 * its own cycle, with its own mode and actor, right after the cycle in progress (the service runs cycles one at a
 * time). Another replica's execution in progress (CONFLICT) is an expected skip; any other failure is retried with
 * back-off, never later than the next interval.
 */
@Injectable()
export class OptimizeController {
  readonly controller: Controller;

  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) config: SchedulerScoringConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(SCHEDULER_LEADER) leader: LeaderElector,
    @Inject(CLUSTER_CACHE) private readonly cluster: ClusterCache,
    @Inject(OptimizeCycleService) svc: OptimizeCycleService,
  ) {
    const everyMs = config.SCAN_INTERVAL_SECONDS * 1000;
    this.controller = controllers.controller({
      name: 'optimize',
      leader,
      listKeys: () => [OPTIMIZE_KEY],
      resyncMs: everyMs,
      backoff: { maxMs: everyMs },
      reconcile: async (_key, ctx) => {
        if (!cluster.synced) return;
        try {
          await svc.runLoopCycle(config.OPTIMIZE_MODE, () => (ctx.signal.aborted ? Promise.resolve(false) : leader.stillLeader()));
        } catch (err) {
          if ((err as { code?: string }).code !== 'CONFLICT') throw err;
          controllers.logger.debug('scheduling cycle skipped', { reason: (err as Error).message });
        }
      },
    });
  }

  /** synced — the cluster cache has listed everything: a cycle now (the leader only), not at the next interval. */
  synced(): void {
    this.controller.enqueue(OPTIMIZE_KEY);
  }

  /** cycle — a loop cycle that starts after this call (none in a replica that does not lead). For tests and tooling. */
  async cycle(): Promise<void> {
    await this.controller.request(OPTIMIZE_KEY);
  }
}
