import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DRAIN_OPERATION_ANNOTATION,
  DrainFailureReason,
  DrainStatus,
  EventTypes,
  type CommandMeta,
  type DrainOperation,
  type DrainOptions,
  type DrainProgress,
  type DrainRequest,
  type NodeDrainEventData,
} from '@nodes-manager/contracts';
import {
  CLOCK,
  CodedError,
  CycleRunner,
  LOGGER,
  makeEvent,
  METRICS,
  OUTBOX,
  type Clock,
  type JsonLogger,
  type LeaderElector,
  type Metrics,
  type Outbox,
  type ApprovalStore,
  type SqlRunner,
} from '@nodes-manager/platform';
import { nodePoolOf } from '@nodes-manager/kube';
import type { UncordonConfig } from '../config.js';
import {
  drainDeadline,
  drainPodOutcomes,
  initialDrainState,
  nextDrainStep,
  planDrain,
  timeoutBeforeLoop,
  type DrainPlan,
  type DrainState,
  type EvictionResult,
} from './domain/plan-drain.js';
import { drainPodOf, type KubeNodes, type PatchResult } from '../adapters/outbound/kube-nodes.adapter.js';
import { drainView, type DrainRecord, type DrainRepository, type DrainRow } from './drain.repository.js';
import { DRAIN_APPROVALS, DRAIN_REPOSITORY, KUBE_NODES, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';

const podName = (p: { namespace: string; name: string }): string => `${p.namespace}/${p.name}`;
/** How long a step waits after a failed API call before it looks again (the drain timeout still bounds it). */
const API_RETRY_MS = 2_000;

/**
 * DrainService — `kubectl drain` as an operation (docs/uncordon.md#drain). `start` only records it (202); the leader runs it in
 * the background: cordon (server-side apply as `nodes-manager`, plus the drain annotation), triage the pods
 * (pure `planDrain`), then the pure `nextDrainStep` loop — evictions through policy/v1, 429s retried every 5 s,
 * each evicted pod awaited — until completed or failed with a reason. Progress is saved after every step; an
 * operation still active when a leader starts (a restart, a failover) is resumed from a fresh read of the node's
 * pods, with its original deadline.
 */
@Injectable()
export class DrainService {
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;
  /** Pick-ups never overlap, so no operation is started twice by one process; a kick during one runs one more. */
  private readonly pickUps = new CycleRunner<void>(() =>
    this.resumeActive().catch((err) => this.logger.warn('drain pick-up failed', { err: (err as Error).message })),
  );
  private readonly drains;

  constructor(
    @Inject(UNCORDON_CONFIG) private readonly config: UncordonConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(KUBE_NODES) private readonly kube: KubeNodes,
    @Inject(DRAIN_REPOSITORY) private readonly repo: DrainRepository,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    @Inject(DRAIN_APPROVALS) private readonly approvals: ApprovalStore,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.drains = metrics.counter('nodes_manager_drains_total', 'Drain operations by final status', ['status']);
  }

  /**
   * start — records a pending drain of an existing node; NOT_FOUND for an unknown node, CONFLICT while one runs. A
   * manual drain (through the API: `req.manual`) is recorded with it, in the same transaction, as an approval of kind
   * `drain` that its operator requested and approved, already `executed` (docs/approvals.md).
   */
  async start(req: DrainRequest, meta: CommandMeta): Promise<DrainOperation> {
    const node = await this.kube.getNode(req.node);
    if (!node) throw new CodedError('NOT_FOUND', `node ${req.node} not found`, { node: req.node });
    const options: DrainOptions = {
      timeoutSeconds: req.timeoutSeconds ?? this.config.DRAIN_TIMEOUT_SECONDS,
      force: req.force ?? false,
      deleteEmptyDirData: req.deleteEmptyDirData ?? false,
      ignoreDaemonSets: true,
      ...(req.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: req.gracePeriodSeconds } : {}),
    };
    const id = randomUUID();
    const now = this.clock.now();
    const record = req.manual
      ? (tx: SqlRunner) =>
          this.approvals.record(
            {
              subject: req.node,
              reason: `manual drain of ${req.node} by ${meta.actor}: immediate, its operator approves it`,
              planId: null,
              nodes: [{ node: req.node, nodePool: nodePoolOf(node.metadata?.labels ?? {}) ?? null, reason: 'manual' }],
            },
            [{ node: req.node, outcome: 'started', reason: 'manual_drain', detail: `drain ${id} recorded`, operationId: id }],
            meta,
            tx,
          )
      : undefined;
    const inserted = await this.repo.create({ id, node: req.node, status: DrainStatus.PENDING, actor: meta.actor, correlationId: meta.correlationId, options, progress: {}, startedAt: now }, record);
    if (inserted && record) this.outbox.added();
    if (!inserted) {
      const active = await this.repo.latestForNode(req.node);
      throw new CodedError('CONFLICT', `node ${req.node} is already being drained`, { node: req.node, operationId: active?.id });
    }
    this.logger.info('drain requested', { node: req.node, operationId: id, correlationId: meta.correlationId });
    this.kick();
    return drainView((await this.repo.get(id))!);
  }

  /** get — by operation id, or a node's active (else latest) drain: what node-sync's node view can show. */
  async get(q: { id?: string; node?: string }): Promise<DrainOperation> {
    const row = q.id ? await this.repo.get(q.id) : q.node ? await this.repo.latestForNode(q.node) : undefined;
    if (!row) throw new CodedError('NOT_FOUND', q.id ? `drain operation ${q.id} not found` : `node ${q.node} has no drain`, q);
    return drainView(row);
  }

  /**
   * kick — the leader picks up every active operation it is not already running. Called when this replica took the
   * request, on becoming leader, and every `DRAIN_PICKUP_MS` by the loop (so a request another replica recorded
   * starts within a second or two); on a replica that is not the leader it does nothing, not even a query.
   */
  kick(): void {
    void this.pickUps.request();
  }

  private async resumeActive(): Promise<void> {
    if (this.stopping || !this.leader.isLeader) return;
    for (const op of await this.repo.active()) {
      if (this.running.has(op.id)) continue;
      const run = this.run(op)
        .catch((err) => this.logger.error('drain run crashed', { node: op.node, operationId: op.id, err: (err as Error).message }))
        .finally(() => this.running.delete(op.id));
      this.running.set(op.id, run);
    }
  }

  /** settled — resolves when the run of this operation (if this process runs it) has ended; for tests and tooling. */
  async settled(id: string): Promise<void> {
    await this.running.get(id);
  }

  /** stop — no new steps; active operations stay `running` in the database for the next leader to resume. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running.values()]);
  }

  private shouldStop(): boolean {
    return this.stopping || !this.leader.isLeader;
  }

  private async run(op: DrainRow): Promise<void> {
    const resumed = op.status === DrainStatus.RUNNING;
    const base = { resumed: ((op.progress.resumed as number | undefined) ?? 0) + (resumed ? 1 : 0), pdbWaits: (op.progress.pdbWaits as number | undefined) ?? 0 };
    const errors: string[] = [...((op.progress.errors as string[] | undefined) ?? [])];
    if (resumed) this.logger.info('resuming drain', { node: op.node, operationId: op.id });

    // Before the loop (which checks the deadline every step): an operation picked up past its deadline, or whose
    // first API reads keep failing until then, ends failed with the timeout reason — never pending forever.
    const timedOut = (): Promise<void> | undefined => {
      const t = timeoutBeforeLoop(op.startedAt, op.options, (op.progress.pods as Array<{ phase?: string }> | undefined) ?? [], this.clock.now());
      return t && this.finish(op, DrainStatus.FAILED, { ...op.progress, ...base, errors }, t.reason, t.message);
    };
    const early = timedOut();
    if (early) return early;
    const read = <T>(what: string, call: () => Promise<T>) => this.beforeDeadline(op, errors, what, call);

    const node = await read('reading the node', () => this.kube.getNode(op.node));
    if (node === STOPPED) return;
    if (node === TIMED_OUT) return timedOut();
    if (!node) return this.finish(op, DrainStatus.FAILED, { ...base, errors }, DrainFailureReason.NODE_NOT_FOUND, `node ${op.node} not found`);
    if (!(await this.leader.stillLeader())) return;
    const cordon = await read('cordoning', () => this.kube.cordonForDrain(op.node, { [DRAIN_OPERATION_ANNOTATION]: op.id }));
    if (cordon === STOPPED) return;
    if (cordon === TIMED_OUT) return timedOut();
    if (!cordon.ok) {
      const message = cordon.conflict ? 'conflict' : cordon.message;
      return this.finish(op, DrainStatus.FAILED, { ...base, errors: [...errors, message] }, cordon.conflict || !cordon.notFound ? DrainFailureReason.CORDON_FAILED : DrainFailureReason.NODE_NOT_FOUND, `cordon failed: ${message}`);
    }

    const listed = await read('listing pods', () => this.kube.podsOnNode(op.node));
    if (listed === STOPPED) return;
    if (listed === TIMED_OUT) return timedOut();
    let pods = listed.map(drainPodOf);
    const plan = planDrain(pods, op.options);
    let state = initialDrainState(plan, op.startedAt, op.options);
    let pdbWaits = base.pdbWaits;
    const progress = (s: DrainState, extra: Record<string, unknown> = {}): Record<string, unknown> =>
      ({ ...progressOf(plan, s, { resumed: base.resumed, pdbWaits, errors }), ...extra }) as Record<string, unknown>;

    if (!resumed) {
      const now = this.clock.now();
      const started = await this.repo.transitionAndRecord(
        op.id, DrainStatus.RUNNING, progress(state), now, null,
        this.recordOf(op, 'drain.started', 'STARTED', DrainStatus.RUNNING, progress(state), now),
        this.outbox,
      );
      this.outbox.added();
      if (!started) return;
    } else {
      await this.repo.saveProgress(op.id, progress(state), this.clock.now());
    }

    let results: EvictionResult[] = [];
    let present = pods.map((p) => p.uid);
    for (;;) {
      if (this.shouldStop()) return;
      const now = this.clock.now();
      const step = nextDrainStep(state, now, { results, presentUids: present });
      state = step.state;
      results = [];
      if (step.action === 'complete') return this.finish(op, DrainStatus.COMPLETED, progress(state), null, 'drained', plan, state);
      if (step.action === 'fail') return this.finish(op, DrainStatus.FAILED, progress(state), step.reason, step.message, plan, state);
      if (step.action === 'evict') {
        if (!(await this.leader.stillLeader())) return;
        for (const p of step.pods) {
          const r = p.mode === 'delete' ? await this.kube.deletePod(p.namespace, p.name) : await this.kube.evict(p.namespace, p.name, op.options.gracePeriodSeconds);
          if (r.outcome === 'too-many-requests') pdbWaits += 1;
          if (r.outcome === 'error') errors.push(`${podName(p)}: ${r.message ?? 'eviction failed'}`);
          results.push({ uid: p.uid, outcome: r.outcome, ...(r.message !== undefined ? { message: r.message } : {}) });
        }
      } else {
        await this.repo.saveProgress(op.id, progress(state), now);
        await sleep(step.requeueAfterMs);
      }
      try {
        pods = (await this.kube.podsOnNode(op.node)).map(drainPodOf);
        present = pods.map((p) => p.uid);
      } catch (err) {
        // Keep the last view: no pod counts as gone on a failed read; the deadline still bounds the drain.
        errors.push(`listing pods: ${(err as Error).message}`);
        await sleep(API_RETRY_MS);
      }
    }
  }

  /**
   * beforeDeadline — one API call before the drain loop, retried every `API_RETRY_MS` while the deadline is ahead;
   * each failure is kept in `progress.errors`. TIMED_OUT once the deadline passed, STOPPED when this process
   * should stop (the next leader resumes the operation).
   */
  private async beforeDeadline<T>(op: DrainRow, errors: string[], what: string, call: () => Promise<T>): Promise<T | typeof TIMED_OUT | typeof STOPPED> {
    const deadline = drainDeadline(op.startedAt, op.options).getTime();
    for (;;) {
      if (this.shouldStop()) return STOPPED;
      if (this.clock.now().getTime() >= deadline) return TIMED_OUT;
      try {
        return await call();
      } catch (err) {
        errors.push(`${what}: ${(err as Error).message}`);
        this.logger.warn('drain API call failed; retrying within the deadline', { node: op.node, operationId: op.id, err: (err as Error).message });
        await this.repo.saveProgress(op.id, { ...op.progress, errors: errors.slice(-20) }, this.clock.now());
        await sleep(API_RETRY_MS);
      }
    }
  }

  /**
   * finish — the final state, its scaling event and its CloudEvent in one transaction; the drain annotation goes.
   * When the operation was no longer active (someone else ended it), nothing else happens: the annotation may
   * already belong to a newer drain of the node.
   */
  private async finish(
    op: DrainRow,
    status: typeof DrainStatus.COMPLETED | typeof DrainStatus.FAILED,
    progress: Record<string, unknown>,
    reason: string | null,
    message: string,
    plan?: DrainPlan,
    state?: DrainState,
  ): Promise<void> {
    const now = this.clock.now();
    const final = {
      ...progress,
      message,
      ...(plan && state ? { outcomes: drainPodOutcomes(plan, state).map(({ pod, outcome }) => ({ pod, outcome })) } : {}),
    };
    const ended = await this.repo.transitionAndRecord(
      op.id, status, final, now, reason ?? null,
      this.recordOf(op, status === DrainStatus.COMPLETED ? 'drain.completed' : 'drain.failed', reason ?? 'COMPLETED', status, final, now, message),
      this.outbox,
    );
    if (!ended) {
      this.logger.info('drain already ended elsewhere; left as it is', { node: op.node, operationId: op.id });
      return;
    }
    this.outbox.added();
    this.drains.inc({ service: 'uncordon', status });
    this.logger.info(`drain ${status}`, { node: op.node, operationId: op.id, reason, message });
    // The node stays cordoned (by us); only the "draining" mark goes.
    const cleared: PatchResult = await this.kube
      .patchNode(op.node, { metadata: { annotations: { [DRAIN_OPERATION_ANNOTATION]: null } } })
      .catch((err: Error) => ({ ok: false, conflict: false, notFound: false, message: err.message }));
    if (!cleared.ok && !(!cleared.conflict && cleared.notFound)) {
      this.logger.warn('could not clear the drain annotation', { node: op.node, operationId: op.id });
    }
  }

  /** recordOf — a drain step's `scaling_events` row and its `node.drain.*` CloudEvent, written with the step. */
  private recordOf(
    op: DrainRow,
    action: string,
    reason: string,
    status: DrainStatus,
    progress: Record<string, unknown>,
    now: Date,
    message?: string,
  ): DrainRecord {
    const row = {
      nodeName: op.node,
      action,
      decision: status,
      reason,
      actor: op.actor,
      correlationId: op.correlationId,
      operationId: op.id,
      evidence: { options: op.options, progress, ...(message ? { message } : {}) },
      createdAt: now,
    };
    const type = action === 'drain.started' ? EventTypes.nodeDrainStarted : action === 'drain.completed' ? EventTypes.nodeDrainCompleted : EventTypes.nodeDrainFailed;
    const data: NodeDrainEventData = {
      operationId: op.id,
      node: op.node,
      status,
      ...(status === DrainStatus.FAILED ? { reason } : {}),
      ...(message ? { message } : {}),
      progress: progress as unknown as DrainProgress,
    };
    return { row, event: makeEvent('uncordon', type, data, now, { actor: op.actor, subject: op.node, ...(op.correlationId ? { correlationId: op.correlationId } : {}) }) };
  }
}

/** progressOf — the stored, API-visible progress of a drain. */
export function progressOf(plan: DrainPlan, state: DrainState, extra: { resumed: number; pdbWaits: number; errors: readonly string[] }): DrainProgress {
  return {
    podsTotal: state.pods.length,
    podsLeft: state.pods.filter((p) => p.phase !== 'gone').length,
    pdbWaits: extra.pdbWaits,
    errors: extra.errors.slice(-20),
    resumed: extra.resumed,
    pods: state.pods.map((p) => ({
      pod: podName(p),
      phase: p.phase,
      attempts: p.attempts,
      ...(p.lastMessage !== undefined ? { lastMessage: p.lastMessage } : {}),
    })),
    skipped: plan.skip.map((s) => ({ pod: podName(s.pod), reason: s.reason })),
    refused: plan.refuse.map((r) => ({ pod: podName(r.pod), reason: r.reason })),
  };
}

/** Outcomes of {@link DrainService.beforeDeadline} other than the call's own result. */
const TIMED_OUT = Symbol('timed out');
const STOPPED = Symbol('stopped');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(50, ms)).unref());
