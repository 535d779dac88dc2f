import { Inject, Injectable } from '@nestjs/common';
import { Manager, type LeaderElector } from '@nodes-manager/platform';
import { OptimizeApprovalsController } from '../../optimize-approvals.controller.js';
import { OptimizeController } from '../../optimize.controller.js';
import type { ClusterCache } from '../outbound/cluster-cache.adapter.js';
import { CLUSTER_CACHE, SCHEDULER_LEADER } from '../../tokens.js';

/**
 * SchedulerScoringLoop — the service's parts for the runtime's {@link Manager} (docs/runtime.md#the-manager), which
 * starts and stops them in its one order: the controllers (docs/scoring.md#the-optimisation-controller: the loop, the
 * users' triggers, the approvals), the election `scheduler-scoring`, the cluster cache. The optimisation waits for
 * the cache's sync itself (its `ready`). Thin: the keys and triggers are in the controllers.
 */
@Injectable()
export class SchedulerScoringLoop extends Manager {
  constructor(
    @Inject(CLUSTER_CACHE) cluster: ClusterCache,
    @Inject(SCHEDULER_LEADER) leader: LeaderElector,
    @Inject(OptimizeController) optimize: OptimizeController,
    @Inject(OptimizeApprovalsController) approvals: OptimizeApprovalsController,
  ) {
    super({ controllers: [optimize.controller, optimize.triggers, approvals.approvals], leader, caches: [cluster] });
  }
}
