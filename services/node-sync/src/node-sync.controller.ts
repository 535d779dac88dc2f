import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type Controller, type Controllers, type LeaderElector, type ReconcileResult } from '@nodes-manager/platform';
import type { NodeSyncConfig } from './config.js';
import { NodeSyncService, type SyncCycleResult } from './node-sync.service.js';
import type { KubeCache } from './adapters/outbound/kube-cache.adapter.js';
import { KUBE_CACHE, NODE_SYNC_CONFIG, NODE_SYNC_LEADER } from './tokens.js';

/** A sync is one plan over every node and pod at once (nodes' sums of their pods' requests): the controller's one key. */
export const SYNC_KEY = 'cluster';

/** SyncReconciled — a sync reconcile's answer: the cycle's result (it never requeues: its triggers are the timers). */
interface SyncReconciled extends ReconcileResult {
  readonly cycle: SyncCycleResult;
}

/**
 * NodeSyncController — node-sync's sync controller (docs/node-sync.md#the-controllers), the leader only: one key, `cluster`, reconciled by one {@link NodeSyncService.runCycle} — `SYNC_DEBOUNCE_MS` after the
 *   first of a burst of node or pod changes (`watch`), at once after each complete (re)list (`<reason>-list-<what>`),
 *   on becoming leader (`leader`), and every `SCAN_INTERVAL_SECONDS` as the reconcile (`reconcile`: the stored content
 *   hashes are re-read, no request to the API server). A cycle that fails is retried with back-off. Deleted nodes and
 * pods are removed by the platform's retention controller (docs/retention.md).
 *
 * The trigger a cycle records (its `nodes.synced` event, its duration metric) is the first one asked since the last
 * cycle started (a failed cycle's retry keeps its own): the queue makes a burst of requests one cycle.
 */
@Injectable()
export class NodeSyncController {
  readonly controller: Controller<SyncReconciled>;
  /** The last cycle's result, for tests and tooling. */
  last?: SyncCycleResult;
  /** The trigger of the next cycle: the first asked since the last one started. */
  private trigger?: string;
  private readonly listeners: ((r: SyncCycleResult) => void)[] = [];

  constructor(
    @Inject(NODE_SYNC_CONFIG) private readonly config: NodeSyncConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(NODE_SYNC_LEADER) leader: LeaderElector,
    @Inject(KUBE_CACHE) cache: KubeCache,
    @Inject(NodeSyncService) sync: NodeSyncService,
  ) {
    // Before the controllers follow the election: another replica may have written while this one did not lead, so
    // what the store holds is reloaded before deciding, and the first cycle of a leadership says why it ran.
    leader.onChange((leading) => {
      sync.forget();
      this.trigger = leading ? 'leader' : undefined;
    });
    this.controller = controllers.controller<SyncReconciled>({
      name: 'node-sync',
      leader,
      listKeys: () => {
        // On becoming leader and every SCAN_INTERVAL_SECONDS: the reconcile re-reads what the rows hold.
        sync.reconcileNext();
        this.trigger ??= 'reconcile';
        return [SYNC_KEY];
      },
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      // A failing database is asked again soon, and never less often than the reconcile would.
      backoff: { maxMs: config.SCAN_INTERVAL_SECONDS * 1000 },
      reconcile: () => this.cycle(sync),
    });
    cache.onChange(() => this.ask('watch', this.config.SYNC_DEBOUNCE_MS));
    cache.onListed((what, info) => this.ask(`${info.reason}-list-${what}`));
  }

  /** onCycle — called after every cycle (tests wait on it rather than sleeping). */
  onCycle(fn: (r: SyncCycleResult) => void): void {
    this.listeners.push(fn);
  }

  /**
   * request — a cycle that starts after this call, and its result; `not-leader` when this replica does not lead (it
   * runs no cycle). For tests and tooling: the controller runs cycles by itself.
   */
  async request(trigger: string): Promise<SyncCycleResult> {
    if (this.controller.isActive) this.trigger ??= trigger;
    const r = (await this.controller.request(SYNC_KEY))?.cycle ?? { skipped: 'not-leader' as const };
    this.last = r;
    return r;
  }

  /** ask — a cycle in `afterMs` (0: now), unless one is due sooner; dropped when this replica does not lead. */
  private ask(trigger: string, afterMs = 0): void {
    if (!this.controller.isActive) return;
    this.trigger ??= trigger;
    this.controller.enqueueAfter(SYNC_KEY, afterMs);
  }

  private async cycle(sync: NodeSyncService): Promise<SyncReconciled> {
    // Nothing asked since the last cycle started: a debounce timer whose changes that cycle already covered.
    const trigger = this.trigger ?? 'watch';
    this.trigger = undefined;
    let r: SyncCycleResult;
    try {
      r = await sync.runCycle(trigger);
    } catch (err) {
      // Retried with back-off under the same trigger.
      this.trigger ??= trigger;
      throw err;
    }
    this.last = r;
    for (const l of this.listeners) l(r);
    return { cycle: r };
  }
}
