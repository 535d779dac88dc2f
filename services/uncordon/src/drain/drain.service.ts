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
  type ReconcileResult,
  type ReconcileContext,
  type SqlRunner,
  PAUSE_GATE,
  type PauseGate,
  PdbBlockedNodes,
  PDB_BLOCKED_EVENT_REASON,
} from '@nodes-manager/platform';
import { nodePoolOf } from '@nodes-manager/kube';
import type { UncordonConfig } from '../config.js';
import {
  drainPodOutcomes,
  drainStateFromJson,
  drainStateToJson,
  initialDrainState,
  nextDrainStep,
  planDrain,
  timeoutBeforeLoop,
  type DrainLoop,
  type DrainPlan,
  type DrainPod,
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
 * DrainService — `kubectl drain` as an operation (docs/uncordon.md#drain). `start` only records it (202); the leader
 * carries it on, one step per reconcile of the drain controller (its key: the operation's id), each step going on
 * from the row: cordon (server-side apply as `nodes-manager`, plus the drain annotation) and triage the pods (pure
 * `planDrain`) once, then the pure `nextDrainStep` — evictions through policy/v1, 429s retried every 5 s, each
 * evicted pod awaited — until completed or failed with a reason. The plan, each pod's phase and the last answers
 * are saved after every step, so a restart or a new leader resumes the operation where it was, with its original
 * deadline; nothing of a drain lives in memory between steps.
 */
@Injectable()
export class DrainService {
  private readonly drains;
  /** Nodes whose drain a PodDisruptionBudget holds, and which budget (gauge and Node Event; docs/pause.md#blocked). */
  private readonly pdbBlocked: PdbBlockedNodes;

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
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
  ) {
    this.drains = metrics.counter('nodes_manager_drains_total', 'Drain operations by final status', ['status']);
    this.pdbBlocked = new PdbBlockedNodes(metrics, 'uncordon', 'drain');
  }

  /**
   * start — records a pending drain of an existing node (the drain controller takes it from there); NOT_FOUND for an
   * unknown node, CONFLICT while one runs. A
   * manual drain (through the API: `req.manual`) is recorded with it, in the same transaction, as an approval of kind
   * `drain` that its operator requested and approved, already `executed` (docs/approvals.md).
   */
  async start(req: DrainRequest, meta: CommandMeta): Promise<DrainOperation> {
    // No drain starts while the fleet is paused (or the pause is unknown): 409 naming why (docs/pause.md).
    const admitted = await this.pause.admit('drain');
    if (!admitted.admit) throw new CodedError('CONFLICT', `no drain starts: ${admitted.detail}`, { node: req.node, reason: admitted.reason });
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
    return drainView((await this.repo.get(id))!);
  }

  /** get — by operation id, or a node's active (else latest) drain: what node-sync's node view can show. */
  async get(q: { id?: string; node?: string }): Promise<DrainOperation> {
    const row = q.id ? await this.repo.get(q.id) : q.node ? await this.repo.latestForNode(q.node) : undefined;
    if (!row) throw new CodedError('NOT_FOUND', q.id ? `drain operation ${q.id} not found` : `node ${q.node} has no drain`, q);
    return drainView(row);
  }

  /**
   * step — one step of the operation `id`, from its row (the drain controller's reconcile). Answers when to look
   * again: at once after a step that moved it on, after the poll or retry the loop asked for, or after
   * `API_RETRY_MS` when an API call failed. An operation that is over (here or elsewhere) is left alone.
   */
  async step(id: string, ctx: Step): Promise<ReconcileResult> {
    const op = await this.repo.get(id);
    if (!op || (op.status !== DrainStatus.PENDING && op.status !== DrainStatus.RUNNING) || ctx.signal.aborted) return {};
    const saved = drainStateFromJson(op.state);
    // Another term moved a running drain on last (or none recorded one): a restart or a failover resumes it.
    const resumed = op.status === DrainStatus.RUNNING && saved?.term !== ctx.term;
    const counters: Counters = {
      resumed: ((op.progress.resumed as number | undefined) ?? 0) + (resumed ? 1 : 0),
      pdbWaits: (op.progress.pdbWaits as number | undefined) ?? 0,
      errors: [...((op.progress.errors as string[] | undefined) ?? [])],
    };
    if (resumed) this.logger.info('resuming drain', { node: op.node, operationId: op.id });
    return saved?.loop ? this.advance(op, saved.loop, ctx, counters) : this.prepare(op, ctx, counters);
  }

  /**
   * prepare — the steps before the loop: the deadline (an operation picked up past it fails at once with
   * `TIMEOUT_BLOCKED_BY_PDB` when its saved progress showed pods blocked by a PDB, else `TIMEOUT_PODS_NOT_GONE`),
   * then read the node, cordon it, list and triage its pods, and record the operation `running` with its plan. A
   * failed API call is kept in `progress.errors` and tried again `API_RETRY_MS` later, while the deadline is ahead.
   */
  private async prepare(op: DrainRow, ctx: Step, counters: Counters): Promise<ReconcileResult> {
    const t = timeoutBeforeLoop(op.startedAt, op.options, (op.progress.pods as Array<{ phase?: string }> | undefined) ?? [], this.clock.now());
    if (t) return this.finish(op, ctx, DrainStatus.FAILED, { ...op.progress, ...counters }, t.reason, t.message);
    const retry = async (what: string, err: unknown): Promise<ReconcileResult> => {
      counters.errors.push(`${what}: ${(err as Error).message}`);
      this.logger.warn('drain API call failed; retrying within the deadline', { node: op.node, operationId: op.id, err: (err as Error).message });
      await this.repo.saveStep(op.id, { ...op.progress, ...counters, errors: counters.errors.slice(-20) }, drainStateToJson({ term: ctx.term }), this.clock.now(), ctx.fence);
      return { requeueAfterMs: API_RETRY_MS };
    };

    let node;
    try {
      node = await this.kube.getNode(op.node);
    } catch (err) {
      return retry('reading the node', err);
    }
    if (!node) return this.finish(op, ctx, DrainStatus.FAILED, { ...counters }, DrainFailureReason.NODE_NOT_FOUND, `node ${op.node} not found`);
    if (!(await this.leader.stillLeader())) return {};
    let cordon;
    try {
      cordon = await this.kube.cordonForDrain(op.node, { [DRAIN_OPERATION_ANNOTATION]: op.id });
    } catch (err) {
      return retry('cordoning', err);
    }
    if (!cordon.ok) {
      const message = cordon.conflict ? 'conflict' : cordon.message;
      return this.finish(op, ctx, DrainStatus.FAILED, { ...counters, errors: [...counters.errors, message] }, cordon.conflict || !cordon.notFound ? DrainFailureReason.CORDON_FAILED : DrainFailureReason.NODE_NOT_FOUND, `cordon failed: ${message}`);
    }
    let pods: DrainPod[];
    try {
      pods = (await this.kube.podsOnNode(op.node)).map(drainPodOf);
    } catch (err) {
      return retry('listing pods', err);
    }

    const plan = planDrain(pods, op.options);
    const loop: DrainLoop = { plan, state: initialDrainState(plan, op.startedAt, op.options), results: [], present: pods.map((p) => p.uid) };
    const progress = progressOf(plan, loop.state, counters) as unknown as Record<string, unknown>;
    const state = drainStateToJson({ term: ctx.term, loop });
    const now = this.clock.now();
    if (op.status === DrainStatus.PENDING) {
      const started = await this.repo.transitionAndRecord(
        op.id, DrainStatus.RUNNING, progress, now, null,
        this.recordOf(op, 'drain.started', 'STARTED', DrainStatus.RUNNING, progress, now),
        this.outbox,
        ctx.fence,
        state,
      );
      this.outbox.added();
      if (!started) return {};
    } else if (!(await this.repo.saveStep(op.id, progress, state, now, ctx.fence))) return {};
    return { requeueAfterMs: 0 };
  }

  /**
   * advance — one turn of the loop: list the node's pods (a failed listing keeps the last view: no pod counts as
   * gone on it, and the deadline still bounds the drain), fold in the last answers and decide (`nextDrainStep`),
   * then complete, fail, evict the pods due, or wait.
   */
  private async advance(op: DrainRow, loop: DrainLoop, ctx: Step, counters: Counters): Promise<ReconcileResult> {
    let present = loop.present;
    let listFailed = false;
    try {
      present = (await this.kube.podsOnNode(op.node)).map(drainPodOf).map((p) => p.uid);
    } catch (err) {
      counters.errors.push(`listing pods: ${(err as Error).message}`);
      listFailed = true;
    }
    const now = this.clock.now();
    const step = nextDrainStep(loop.state, now, { results: loop.results, presentUids: present });
    const progress = (s: DrainState) => progressOf(loop.plan, s, counters) as unknown as Record<string, unknown>;
    if (step.action === 'complete') return this.finish(op, ctx, DrainStatus.COMPLETED, progress(step.state), null, 'drained', loop.plan, step.state);
    if (step.action === 'fail') return this.finish(op, ctx, DrainStatus.FAILED, progress(step.state), step.reason, step.message, loop.plan, step.state);

    const results: EvictionResult[] = [];
    const refusals: { pod: string; pdb: string }[] = [];
    // A pause stops a running drain at a safe point: no new eviction (one sent is not taken back); it stays running
    // and cordoned with `progress.pausedSince`, and goes on when the pause ends; its deadline still counts.
    const admitted = step.action === 'evict' ? await this.pause.admit('drain') : undefined;
    if (admitted && !admitted.admit) {
      const pausedSince = (op.progress.pausedSince as string | undefined) ?? now.toISOString();
      if (!op.progress.pausedSince) this.logger.info('drain paused at a safe point: no new eviction', { node: op.node, operationId: op.id, reason: admitted.detail });
      if (!(await this.repo.saveStep(op.id, { ...progress(loop.state), pausedSince }, drainStateToJson({ term: ctx.term, loop: { ...loop, results: [], present } }), now, ctx.fence))) return {};
      return { requeueAfterMs: Math.min(this.config.SCAN_INTERVAL_SECONDS * 1000, Math.max(0, op.startedAt.getTime() + op.options.timeoutSeconds * 1000 - now.getTime()) + 1) };
    }
    if (step.action === 'evict') {
      if (ctx.signal.aborted || !(await this.leader.stillLeader())) return {};
      for (const p of step.pods) {
        const r = p.mode === 'delete' ? await this.kube.deletePod(p.namespace, p.name) : await this.kube.evict(p.namespace, p.name, op.options.gracePeriodSeconds);
        if (r.outcome === 'too-many-requests') counters.pdbWaits += 1;
        if (r.outcome === 'error') counters.errors.push(`${podName(p)}: ${r.message ?? 'eviction failed'}`);
        results.push({ uid: p.uid, outcome: r.outcome, ...(r.message !== undefined ? { message: r.message } : {}) });
        if (r.outcome === 'too-many-requests') refusals.push({ pod: podName(p), pdb: r.pdb ?? 'a PodDisruptionBudget' });
      }
      await this.notePdb(op.node, refusals);
    }
    const next: DrainLoop = { ...loop, state: step.state, results, present };
    if (!(await this.repo.saveStep(op.id, progress(step.state), drainStateToJson({ term: ctx.term, loop: next }), now, ctx.fence))) return {};
    if (step.action === 'evict') return { requeueAfterMs: 0 };
    // A failed listing is tried again no sooner than API_RETRY_MS, but never later than the deadline: a drain fails
    // at its timeout even while the API stumbles.
    const untilDeadline = Math.max(0, next.state.deadline.getTime() - now.getTime());
    return { requeueAfterMs: listFailed ? Math.min(Math.max(API_RETRY_MS, step.requeueAfterMs), untilDeadline) : step.requeueAfterMs };
  }

  /**
   * notePdb — after a round of evictions: a node whose eviction a PodDisruptionBudget refused is counted in
   * `nodes_manager_pdb_blocked_nodes` and, the first time (or when another budget holds it), gets a Warning Event
   * `DisruptionBlockedByPDB` naming the budget and the pod; a round with no refusal clears it.
   */
  private async notePdb(node: string, refusals: readonly { pod: string; pdb: string }[]): Promise<void> {
    const refused = refusals[0];
    if (!refused) return this.pdbBlocked.clear(node);
    if (!this.pdbBlocked.block(node, refused.pdb)) return;
    const pdb = refused.pdb;
    const message = `the drain of ${node} could not evict ${refused.pod}: PodDisruptionBudget ${pdb} allows no disruption now; retried until the drain's deadline`;
    this.logger.info('drain blocked by a PodDisruptionBudget', { node, pdb });
    const n = await this.kube.getNode(node).catch(() => undefined);
    if (n) await this.kube.nodeEvent(n, PDB_BLOCKED_EVENT_REASON, message, this.clock.now(), 'Warning').catch((err: Error) => this.logger.warn('node event not written', { node, err: err.message }));
  }

  /**
   * finish — the final state, its scaling event and its CloudEvent in one transaction; the drain annotation goes.
   * When the operation was no longer active (someone else ended it), nothing else happens: the annotation may
   * already belong to a newer drain of the node.
   */
  private async finish(
    op: DrainRow,
    ctx: Step,
    status: typeof DrainStatus.COMPLETED | typeof DrainStatus.FAILED,
    progress: Record<string, unknown>,
    reason: string | null,
    message: string,
    plan?: DrainPlan,
    state?: DrainState,
  ): Promise<ReconcileResult> {
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
      ctx.fence,
    );
    if (!ended) {
      this.logger.info('drain already ended elsewhere; left as it is', { node: op.node, operationId: op.id });
      return {};
    }
    this.outbox.added();
    this.pdbBlocked.clear(op.node);
    this.drains.inc({ service: 'uncordon', status });
    this.logger.info(`drain ${status}`, { node: op.node, operationId: op.id, reason, message });
    // The node stays cordoned (by us); only the "draining" mark goes.
    const cleared: PatchResult = await this.kube
      .patchNode(op.node, { metadata: { annotations: { [DRAIN_OPERATION_ANNOTATION]: null } } })
      .catch((err: Error) => ({ ok: false, conflict: false, notFound: false, message: err.message }));
    if (!cleared.ok && !(!cleared.conflict && cleared.notFound)) {
      this.logger.warn('could not clear the drain annotation', { node: op.node, operationId: op.id });
    }
    return {};
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

/** What a drain step knows of its reconcile: the term it writes under (and its fence), and when to stop. */
type Step = Pick<ReconcileContext, 'term' | 'fence' | 'signal'>;

/** The counters a drain's progress carries from step to step. */
interface Counters {
  resumed: number;
  pdbWaits: number;
  errors: string[];
}
