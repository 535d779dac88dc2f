import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CycleRunner, HEALTH_REGISTRY, LOGGER, type HealthRegistry, type JsonLogger, type LeaderElector } from '@nodes-manager/platform';
import type { NodeSyncConfig } from '../../config.js';
import { NodeSyncService, type SyncCycleResult } from '../../node-sync.service.js';
import type { KubeCache } from '../outbound/kube-cache.adapter.js';
import { KUBE_CACHE, NODE_SYNC_CONFIG, NODE_SYNC_LEADER } from '../../tokens.js';


/** How often the leader removes pod rows deleted longer ago than DELETED_POD_RETENTION_HOURS. */
const PURGE_EVERY_MS = 3600_000;

/**
 * NodeSyncLoop — the timers: a cycle after a burst of node/pod changes (debounced by `SYNC_DEBOUNCE_MS`), after each
 * complete (re)list (at start, after 410 or a failed watch), a reconcile every `SCAN_INTERVAL_SECONDS` (the cache
 * against the rows' content hashes re-read from Postgres — no request to the API server), and on becoming leader.
 * Cycles never overlap: a request during a cycle runs one more cycle after it. Thin: the work is in NodeSyncService.
 */
@Injectable()
export class NodeSyncLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private debounce?: NodeJS.Timeout;
  private readonly cycles = new CycleRunner<void, string>((trigger) => this.runOne(trigger));
  private stopped = false;
  /** The last cycle's result, for tests and the status command. */
  last?: SyncCycleResult;
  private purgeTimer?: NodeJS.Timeout;
  private readonly listeners: ((r: SyncCycleResult) => void)[] = [];

  constructor(
    @Inject(NODE_SYNC_CONFIG) private readonly config: NodeSyncConfig,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(HEALTH_REGISTRY) private readonly health: HealthRegistry,
    @Inject(KUBE_CACHE) private readonly cache: KubeCache,
    @Inject(NODE_SYNC_LEADER) private readonly leader: LeaderElector,
    private readonly sync: NodeSyncService,
  ) {}

  onApplicationBootstrap(): void {
    // Not ready before the first complete list, nor while the Kubernetes API has not answered for KUBE_API_STALE_SECONDS.
    this.health.register('node-sync.kube-cache', () => this.cache.health());
    this.leader.onChange((leader) => {
      // Another replica may have written while we were not leader: reload what the store holds before deciding.
      this.sync.forget();
      if (leader) this.request('leader');
    });
    this.cache.onChange(() => this.changed());
    this.cache.onListed((what, info) => this.request(`${info.reason}-list-${what}`));
    this.cache.onResync(() => {
      this.sync.reconcileNext();
      void this.request('reconcile');
    });
    this.leader.start();
    this.cache.start();
    this.purgeTimer = setInterval(
      () => void this.sync.purge(this.config.DELETED_POD_RETENTION_HOURS).catch((err) => this.logger.warn('pod purge failed', { err: (err as Error).message })),
      PURGE_EVERY_MS,
    );
    this.purgeTimer.unref();
  }

  /** onCycle — called after every cycle (tests wait on it rather than sleeping). */
  onCycle(fn: (r: SyncCycleResult) => void): void {
    this.listeners.push(fn);
  }

  private changed(): void {
    if (this.debounce || this.stopped) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.request('watch');
    }, this.config.SYNC_DEBOUNCE_MS);
    this.debounce.unref();
  }

  /** request — run a cycle now, or right after the one in progress. Resolves when that cycle is done. */
  request(trigger: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return this.cycles.request(trigger);
  }

  private async runOne(trigger: string): Promise<void> {
    if (this.stopped) return;
    try {
      const r = await this.sync.runCycle(trigger);
      this.last = r;
      for (const l of this.listeners) l(r);
    } catch (err) {
      this.logger.warn('node sync cycle failed', { trigger, err: (err as Error).message });
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    if (this.debounce) clearTimeout(this.debounce);
    await this.cache.stop();
    await this.cycles.idle();
  }
}
