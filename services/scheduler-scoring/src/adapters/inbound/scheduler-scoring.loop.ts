import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CycleRunner, LOGGER, type JsonLogger, type LeaderElector } from '@nodes-manager/platform';
import type { SchedulerScoringConfig } from '../../config.js';
import { SchedulerScoringService } from '../../scheduler-scoring.service.js';
import type { ClusterCache } from '../outbound/cluster-cache.adapter.js';
import { CLUSTER_CACHE, SCHEDULER_LEADER, SCHEDULER_SCORING_CONFIG } from '../../tokens.js';

/**
 * SchedulerScoringLoop — starts the cluster cache and, on the elected leader only, runs a cycle every
 * SCAN_INTERVAL_SECONDS (and once on becoming leader) in OPTIMIZE_MODE, never on a cache that has not synced.
 * Thin: every decision is in the service.
 */
@Injectable()
export class SchedulerScoringLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private tick?: NodeJS.Timeout;
  private stopped = false;
  private readonly passes = new CycleRunner<void>(() => this.pass());

  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) private readonly config: SchedulerScoringConfig,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(CLUSTER_CACHE) private readonly cluster: ClusterCache,
    @Inject(SCHEDULER_LEADER) private readonly leader: LeaderElector,
    private readonly svc: SchedulerScoringService,
  ) {}

  onApplicationBootstrap(): void {
    this.cluster.start();
    this.leader.onChange((leader) => {
      if (leader) void this.cluster.waitForSync().then(() => this.cycle(), () => undefined);
    });
    this.leader.start();
    this.tick = setInterval(() => void this.cycle(), this.config.SCAN_INTERVAL_SECONDS * 1000);
    this.tick.unref();
  }

  /**
   * cycle — one loop pass, if leader and synced; leadership is verified on the server when the pass gets its
   * turn (`runLoopCycle`), not when it was scheduled. Passes never overlap: a tick while one runs makes one more
   * pass right after it, never more (docs/design.md#cycles), so slow passes never queue up behind each other.
   * Failures are logged, never thrown; another replica's execution in progress (CONFLICT) is an expected skip.
   */
  async cycle(): Promise<void> {
    if (this.stopped || !this.leader.isLeader || !this.cluster.synced) return;
    await this.passes.request();
  }

  private async pass(): Promise<void> {
    if (this.stopped || !this.leader.isLeader || !this.cluster.synced) return;
    try {
      await this.svc.runLoopCycle(this.config.OPTIMIZE_MODE, () => (this.stopped ? Promise.resolve(false) : this.leader.stillLeader()));
    } catch (err) {
      if ((err as { code?: string }).code === 'CONFLICT') this.logger.debug('scheduling cycle skipped', { reason: (err as Error).message });
      else this.logger.warn('scheduling cycle failed', { err: (err as Error).message });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.tick) clearInterval(this.tick);
    await this.leader.stop();
    await this.cluster.stop();
  }
}
