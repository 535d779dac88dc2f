import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { EventTypes, type CloudEvent, type NodeHoursQuery, type NodeHoursReply, type NodesListQuery } from '@nodes-manager/contracts';
import {
  CLOCK, CodedError, LOGGER, makeEvent, METRICS, OUTBOX, STALE_WRITE, type Clock, type JsonLogger, type LeaderElector, type Metrics, type Outbox,
} from '@nodes-manager/platform';
import { planSync, storedOf, type NodeHashes, type SyncPlan } from './domain/plan-sync.js';
import type { NodeState } from './domain/project-node.js';
import type { KubeCache } from './adapters/outbound/kube-cache.adapter.js';
import type { NodeSyncRepository, StoredState, WriteResult } from './adapters/outbound/node-sync.repository.js';
import { KUBE_CACHE, NODE_SYNC_LEADER, NODE_SYNC_REPOSITORY } from './tokens.js';

const ACTOR = 'system:node-sync';

/** SyncCycleResult — what one cycle did, or why it did nothing. */
export type SyncCycleResult =
  | { skipped: 'cache-not-synced' | 'not-leader' }
  | {
      skipped?: undefined;
      trigger: string;
      durationMs: number;
      rowsWritten: WriteResult;
      nodesAdded: number;
      nodesRemoved: number;
      nodesChanged: number;
      podsWritten: number;
      podsRemoved: number;
      nodes: number;
      pods: number;
      nodesByState: Record<NodeState, number>;
    };

/**
 * NodeSyncService — one sync cycle: load (the informer cache and, once per leadership, the stored hashes) → decide
 * (`planSync`: only rows whose content changed) → act and record (one transaction: set-based writes plus their events
 * in the outbox). Only the elected leader writes. Also answers the read commands from Postgres (any replica).
 */
@Injectable()
export class NodeSyncService {
  /** What the store holds, as of our last write; undefined until loaded (and after a failed write or a leader change). */
  private stored?: StoredState;
  private readonly duration;
  private readonly rows;
  private readonly byState;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(METRICS) metrics: Metrics,
    @Inject(NODE_SYNC_REPOSITORY) private readonly repo: NodeSyncRepository,
    @Inject(KUBE_CACHE) private readonly cache: KubeCache,
    @Inject(NODE_SYNC_LEADER) private readonly leader: LeaderElector,
  ) {
    this.duration = metrics.histogram('nodes_manager_node_sync_duration_seconds', 'Duration of a node-sync cycle', ['trigger'], [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
    this.rows = metrics.counter('nodes_manager_node_sync_rows_written_total', 'Rows node-sync wrote', ['table']);
    this.byState = metrics.gauge('nodes_manager_nodes', 'Nodes in the cluster by state', ['state']);
  }

  /** forget — drop what we believe the store holds (another replica may have written it since). */
  forget(): void {
    this.stored = undefined;
  }

  /**
   * reconcileNext — the next cycle re-reads the rows' content hashes from Postgres instead of trusting what it
   * remembers, so a row changed or deleted behind node-sync's back is rewritten from the cache. Nothing differs: no
   * write at all.
   */
  reconcileNext(): void {
    this.reload = true;
  }
  private reload = false;
  /** Each cached node's last row hash (planSync's `nodeHashes`): a no-change cycle takes none again. */
  private readonly nodeHashes: NodeHashes = new WeakMap();

  async runCycle(trigger: string): Promise<SyncCycleResult> {
    // Never decide on a partial view: both caches must hold a complete list.
    if (!this.cache.synced) return { skipped: 'cache-not-synced' };
    if (!this.leader.isLeader || !(await this.leader.stillLeader())) return { skipped: 'not-leader' };
    const started = performance.now();
    const firstOfLeadership = this.stored === undefined;
    if (this.reload && !firstOfLeadership) {
      // What we remembered is not needed while the store is re-read: let it be collected during the load (at 100,000
      // nodes both at once were the process's peak). A failed load leaves nothing remembered, as a failed write does.
      this.stored = undefined;
      this.stored = await this.repo.loadStored();
    }
    this.reload = false;
    const stored = (this.stored ??= await this.repo.loadStored());
    const plan = planSync({ nodes: this.cache.nodes.values(), pods: this.cache.pods.values(), storedNodes: stored.nodes, storedPods: stored.pods, nodeHashes: this.nodeHashes });
    for (const [state, n] of Object.entries(plan.nodesByState)) this.byState.set({ service: 'node-sync', state }, n);
    const nothing = !plan.nodeWrites.length && !plan.nodeRemovals.length && !plan.podWrites.length && !plan.podRemovals.length;
    const counts = {
      nodesAdded: plan.events.filter((e) => e.type === 'node.added').length,
      nodesRemoved: plan.nodeRemovals.length,
      nodesChanged: plan.events.filter((e) => e.type === 'node.changed').length,
      podsWritten: plan.podWrites.length,
      podsRemoved: plan.podRemovals.length,
      nodes: plan.liveNodes,
      pods: plan.livePods,
      nodesByState: plan.nodesByState,
    };
    let rowsWritten: WriteResult = { nodeRows: 0, podRows: 0 };
    // A cycle in which nothing changed writes nothing at all (not even its summary event).
    if (!nothing || firstOfLeadership) {
      const now = this.clock.now();
      try {
        const written = await this.repo.write(plan, (w) => this.events(plan, counts, w, trigger, started, now), this.outbox, now);
        if (written === STALE_WRITE) {
          // Another process took the lock meanwhile: nothing was written, and what the store holds is its now.
          this.stored = undefined;
          return { skipped: 'not-leader' };
        }
        rowsWritten = written;
      } catch (err) {
        this.stored = undefined;
        throw err;
      }
      this.outbox.added();
      this.remember(stored, plan);
    }
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    this.duration.observe({ service: 'node-sync', trigger }, durationMs / 1000);
    this.rows.inc({ service: 'node-sync', table: 'nodes' }, rowsWritten.nodeRows);
    this.rows.inc({ service: 'node-sync', table: 'pods' }, rowsWritten.podRows);
    if (!nothing) {
      this.logger.info('nodes synced', { trigger, durationMs, ...counts, nodesByState: undefined, rowsWritten });
    }
    return { trigger, durationMs, rowsWritten, ...counts };
  }

  private events(plan: SyncPlan, counts: Record<string, unknown>, written: WriteResult, trigger: string, started: number, now: Date): CloudEvent[] {
    const events: CloudEvent[] = plan.events.map((e) => makeEvent('node-sync', e.type, e.data, now, { actor: ACTOR, subject: e.subject }));
    events.push(
      makeEvent('node-sync', EventTypes.nodesSynced, { trigger, ...counts, rowsWritten: written, durationMs: Math.round(performance.now() - started) }, now, { actor: ACTOR }),
    );
    return events;
  }

  private remember(stored: StoredState, plan: SyncPlan): void {
    for (const w of plan.nodeWrites) stored.nodes.set(w.row.name, storedOf(w));
    for (const name of plan.nodeRemovals) {
      const s = stored.nodes.get(name);
      if (s) stored.nodes.set(name, { ...s, deleted: true, state: 'Deleted' });
    }
    for (const p of plan.podWrites) stored.pods.set(p.uid, p.hash);
    for (const uid of plan.podRemovals) stored.pods.delete(uid);
  }

  list(q: NodesListQuery) {
    return this.repo.list(q);
  }

  /** nodeHours — node-hours per pool over [from, to) (default to: now), from the node lifetimes (docs/node-sync.md#node-lifetimes). */
  async nodeHours(q: NodeHoursQuery): Promise<NodeHoursReply> {
    const from = new Date(q.from);
    const to = q.to ? new Date(q.to) : this.clock.now();
    if (!(from.getTime() < to.getTime())) throw new CodedError('VALIDATION_FAILED', 'from: must be before to', { errors: [{ in: 'command', field: 'from', message: 'must be before to' }] });
    const pools = await this.repo.nodeHours(from, to, { ...(q.capacityType ? { capacityType: q.capacityType } : {}), ...(q.hourly ? { hourly: true } : {}) });
    return { from: from.toISOString(), to: to.toISOString(), pools };
  }

  async get(id: string) {
    const node = await this.repo.get(id);
    if (!node) throw new CodedError('NOT_FOUND', `node ${id} not found`, { node: id });
    return node;
  }
}
