import { Inject, Injectable } from '@nestjs/common';
import { EventTypes, type CommandMeta } from '@nodes-manager/contracts';
import { allowance } from '@nodes-manager/disruption';
import { CLOCK, PAUSE_GATE, type PauseGate, LOGGER, makeEvent, OUTBOX, type Clock, type JsonLogger, type Outbox } from '@nodes-manager/platform';
import type { NodeRemoval, PdbInfo, ScoringNode, ScoringPod } from '@nodes-manager/scoring';
import type { SchedulerScoringConfig } from './config.js';
import type { ClusterSnapshot } from './domain/cluster.js';
import { DecisionKind, recheckRemoval, type DecisionDraft, type ExecutionRun, type Recheck, type SkipReason } from './domain/decisions.js';
import type { ClusterCache } from './adapters/outbound/cluster-cache.adapter.js';
import type { Drainer } from './adapters/outbound/drainer.adapter.js';
import type { SchedulingRepository } from './adapters/outbound/scheduling.repository.js';
import { CLUSTER_CACHE, DRAINER, SCHEDULER_SCORING_CONFIG, SCHEDULING_REPOSITORY } from './tokens.js';

const SERVICE = 'scheduler-scoring' as const;
/** Drains started by our plans in this window count against OPTIMIZE_MAX_DISRUPTIONS while still running. */
const IN_FLIGHT_WINDOW_MS = 24 * 3600 * 1000;

export interface ExecutionResult {
  readonly drained: readonly { node: string; operationId: string; status: string }[];
  readonly skipped: readonly { node: string; reason: SkipReason | 'outside_window' | 'paused'; detail: string }[];
}

/** How `execute` re-checks each node and words its drains (defaults: a consolidation's removal). */
export interface ExecuteOptions<R> {
  readonly heldBack?: readonly { node: string; reason: 'outside_window'; detail: string }[];
  readonly recheck?: (removal: R, fresh: ClusterSnapshot, run: ExecutionRun) => Recheck;
  readonly drained?: { readonly reason?: string; readonly why?: string };
}

/**
 * OptimizeExecutionService — the drains of a plan (a consolidation's, or a replacement's): budgets, a re-check of
 * each node on a fresh read, the pause right before each drain, and the outcome recorded with its events.
 */
@Injectable()
export class OptimizeExecutionService {
  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) private readonly config: SchedulerScoringConfig,
    @Inject(CLUSTER_CACHE) private readonly cluster: ClusterCache,
    @Inject(DRAINER) private readonly drainer: Drainer,
    @Inject(SCHEDULING_REPOSITORY) private readonly repo: SchedulingRepository,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
  ) {}

  /** inFlight — drains our plans started that are still pending or running. */
  private async inFlight(meta: CommandMeta): Promise<number> {
    const ids = await this.repo.recentDrainIds(new Date(this.clock.now().getTime() - IN_FLIGHT_WINDOW_MS));
    let n = 0;
    for (const id of ids) {
      try {
        const op = await this.drainer.get(id, meta);
        if (op.status === 'pending' || op.status === 'running') n += 1;
      } catch (err) {
        if ((err as { code?: string }).code !== 'NOT_FOUND') n += 1; // unknown state: count it, stay under the cap
      }
    }
    return n;
  }

  /**
   * freshSnapshot — the cache's view of the cluster with `name` (node and pods) as just read from the API server
   * and the budgets as just read too: what the re-check before a drain decides on.
   */
  private freshSnapshot(name: string, fresh: { node?: ScoringNode; pods: ScoringPod[] }, pdbs: readonly PdbInfo[]): ClusterSnapshot {
    const snap = this.cluster.snapshot();
    const nodes = snap.nodes.filter((n) => n.name !== name);
    if (fresh.node) nodes.push(fresh.node);
    return { nodes, pods: [...snap.pods.filter((p) => p.nodeName !== name), ...fresh.pods], pdbs };
  }

  /**
   * execute — drain the planned nodes through the uncordon service, at most OPTIMIZE_MAX_DISRUPTIONS in flight
   * (runs hold the execution lock, and each drain is recorded as soon as it starts, so the count is exact), each
   * re-checked just before on a fresh read (`recheckRemoval`: the node and its pods from the API, budgets read
   * from the API once per run and spent across it, the pods still fitting on what stays with the nodes drained
   * earlier in this run gone) — else skipped with a recorded reason. A node whose re-check fails (an API error)
   * is skipped as `recheck_failed`; whatever happens, the outcome per node and overall is recorded with
   * `optimize.executed`, in one transaction.
   */
  async execute<R extends { node: string }>(planId: string, removals: readonly R[], meta: CommandMeta, opts: ExecuteOptions<R> = {}): Promise<ExecutionResult> {
    const heldBack = opts.heldBack ?? [];
    const recheck = opts.recheck ?? ((r: R, snap: ClusterSnapshot, run: ExecutionRun) => recheckRemoval(r as unknown as NodeRemoval, snap, this.config.OPTIMIZE_UTILIZATION_THRESHOLD, run));
    const plan = { remove: removals };
    const drained: { node: string; operationId: string; status: string }[] = [];
    const skipped: { node: string; reason: SkipReason | 'outside_window' | 'paused'; detail: string }[] = [...heldBack];
    const gone = new Set<string>();
    const budgetUsed = new Map<string, number>();
    const errorWords = (err: unknown) => `${(err as { code?: string | number }).code ?? 'ERROR'}: ${(err as Error).message}`;
    try {
      // Two numbers: the count, or the percentage of the cluster's nodes, whichever allows more (docs/fencing.md#limits).
      const limit = { count: this.config.OPTIMIZE_MAX_DISRUPTIONS, percent: this.config.OPTIMIZE_MAX_DISRUPTIONS_PERCENT };
      const allowed = allowance(limit, this.cluster.synced ? this.cluster.snapshot().nodes.length : 0);
      let budget = Math.max(0, allowed - (await this.inFlight(meta)));
      const pdbs = budget > 0 ? await this.cluster.freshPdbs() : [];
      for (const removal of plan.remove) {
        if (budget <= 0) {
          skipped.push({ node: removal.node, reason: 'max_disruptions', detail: `${allowed} optimizer drain${allowed === 1 ? '' : 's'} already in flight (OPTIMIZE_MAX_DISRUPTIONS=${limit.count}, OPTIMIZE_MAX_DISRUPTIONS_PERCENT=${limit.percent})` });
          continue;
        }
        let check: Recheck;
        try {
          const fresh = await this.cluster.freshNode(removal.node);
          check = recheck(removal, this.freshSnapshot(removal.node, fresh, pdbs), { gone, budgetUsed });
        } catch (err) {
          skipped.push({ node: removal.node, reason: 'recheck_failed', detail: `could not re-read ${removal.node}: ${errorWords(err)}` });
          continue;
        }
        if (!check.ok) {
          skipped.push({ node: removal.node, reason: check.reason, detail: check.detail });
          continue;
        }
        // Right before each drain: a pause since the plan skips the rest (docs/pause.md).
        const admitted = await this.pause.admit('optimize', { policy: this.config.DISRUPTION_APPROVAL, windows: this.config.DISRUPTION_WINDOWS, nodePool: undefined, now: this.clock.now(), running: true });
        if (!admitted.admit) {
          skipped.push({ node: removal.node, reason: 'paused', detail: admitted.detail });
          continue;
        }
        let op;
        try {
          op = await this.drainer.drain(removal.node, meta);
        } catch (err) {
          skipped.push({ node: removal.node, reason: 'drain_refused', detail: errorWords(err) });
          continue;
        }
        const started = { node: removal.node, operationId: op.id, status: op.status };
        drained.push(started);
        gone.add(removal.node);
        budget -= 1;
        for (const [k, n] of check.budgetNeed) budgetUsed.set(k, (budgetUsed.get(k) ?? 0) + n);
        await this.repo.recordDrain(planId, started);
      }
    } catch (err) {
      // The in-flight count, the budgets or a drain's record could not be read or written: stop, and say so.
      const handled = new Set([...drained.map((d) => d.node), ...skipped.map((x) => x.node)]);
      for (const r of plan.remove) {
        if (!handled.has(r.node)) skipped.push({ node: r.node, reason: 'recheck_failed', detail: `execution stopped: ${errorWords(err)}` });
      }
      this.logger.warn('consolidation execution stopped', { err: (err as Error).message, correlationId: meta.correlationId });
    } finally {
      await this.recordExecution(planId, drained, skipped, meta, opts.drained);
    }
    return { drained, skipped };
  }

  private async recordExecution(
    planId: string,
    drained: readonly { node: string; operationId: string; status: string }[],
    skipped: readonly { node: string; reason: SkipReason | 'outside_window' | 'paused'; detail: string }[],
    meta: CommandMeta,
    words: ExecuteOptions<{ node: string }>['drained'] = {},
  ): Promise<void> {
    const now = this.clock.now();
    const drafts: DecisionDraft[] = [
      ...drained.map((d) => ({
        kind: DecisionKind.consolidationAction,
        subject: d.node,
        outcome: 'drain_started',
        reason: words.reason ?? 'planned_removal',
        rationale: `Draining ${d.node} (operation ${d.operationId}) as ${words.why ?? `planned by ${planId}: re-checked just before, still under the threshold with nothing blocking`}.`,
        score: null,
        details: { planId, operationId: d.operationId },
      })),
      ...skipped.map((s) => ({
        kind: DecisionKind.consolidationAction,
        subject: s.node,
        outcome: 'skipped',
        reason: s.reason,
        rationale: `Not draining ${s.node}: ${s.detail}.`,
        score: null,
        details: { planId },
      })),
    ];
    const execution = { drained, skipped };
    await this.repo.recordExecution(planId, drained.length > 0 ? 'executed' : 'skipped', execution, drafts, { ...meta, now }, this.outbox, (rows) => [
      ...rows.map((d) => makeEvent(SERVICE, EventTypes.schedulingDecided, d, now, { ...meta, subject: d.subject })),
      makeEvent(SERVICE, EventTypes.optimizeExecuted, { planId, drained, skipped }, now, meta),
    ]);
    this.outbox.added();
    for (const d of drained) this.logger.info('consolidation drain started', { node: d.node, operationId: d.operationId, correlationId: meta.correlationId });
    for (const s of skipped) this.logger.info('consolidation drain skipped', { node: s.node, reason: s.reason, correlationId: meta.correlationId });
  }
}
