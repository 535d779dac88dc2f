import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { LeaderElector } from '@nodes-manager/platform';
import { OptimizeApprovalsController } from '../../optimize-approvals.controller.js';
import { OptimizeController } from '../../optimize.controller.js';
import type { ClusterCache } from '../outbound/cluster-cache.adapter.js';
import { CLUSTER_CACHE, SCHEDULER_LEADER } from '../../tokens.js';

/**
 * SchedulerScoringLoop — starts and stops the service's controllers (docs/scoring.md#the-optimisation-controller): at
 * bootstrap the controllers follow the leader election, then the cluster cache and the election start, and the
 * optimisation runs once the cache has synced; at shutdown the controllers stop (no new cycle; the one in flight
 * finishes, bounded), then the election and the cache. Thin: the keys and triggers are in the controllers.
 */
@Injectable()
export class SchedulerScoringLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(CLUSTER_CACHE) private readonly cluster: ClusterCache,
    @Inject(SCHEDULER_LEADER) private readonly leader: LeaderElector,
    @Inject(OptimizeController) private readonly optimize: OptimizeController,
    @Inject(OptimizeApprovalsController) private readonly approvals: OptimizeApprovalsController,
  ) {}

  onApplicationBootstrap(): void {
    this.optimize.controller.start();
    this.optimize.triggers.start();
    this.approvals.approvals.start();
    this.cluster.start();
    this.leader.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.optimize.controller.stop(), this.optimize.triggers.stop(), this.approvals.approvals.stop()]);
    await this.leader.stop();
    await this.cluster.stop();
  }
}
