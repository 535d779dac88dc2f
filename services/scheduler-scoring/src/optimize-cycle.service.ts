import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EventTypes, type ApprovalView, type CloudEvent, type CommandMeta } from '@nodes-manager/contracts';
import { approvalModeFor } from '@nodes-manager/disruption';
import { approvalsPass, CLOCK, PAUSE_GATE, type PauseGate, CodedError, LOGGER, makeEvent, NOT_LOCKED, OUTBOX, type ApprovalStore, type Clock, type JsonLogger, type Outbox } from '@nodes-manager/platform';
import { simulatePlacement, type ConsolidationPlan, type NodeRemoval, type SimulateResult } from '@nodes-manager/scoring';
import type { SchedulerScoringConfig } from './config.js';
import { PlanBlockedService } from './plan-blocked.service.js';
import { pendingGroups, type PriceSnapshot } from './domain/cluster.js';
import { decidePlan, decideScaleUp, type DecisionDraft } from './domain/decisions.js';
import { admitNodes, approvalNodes, approvalReason, gateDisruption, type DisruptionGate } from './domain/gate-disruption.js';
import type { CatalogSnapshot } from './domain/instance-catalog.js';
import type { ClusterCache } from './adapters/outbound/cluster-cache.adapter.js';
import { EXECUTION_LOCK, type DecisionView, type PlanRow, type SchedulingRepository } from './adapters/outbound/scheduling.repository.js';
import { decidePublishPlan, plannedContent, type PlanFacts, type PlannedContent } from './domain/planned-content.js';
import { ClusterMarketService } from './cluster-market.service.js';
import { OptimizeExecutionService, type ExecutionResult } from './optimize-execution.service.js';
import { CLUSTER_CACHE, OPTIMIZE_APPROVALS_STORE, SCHEDULER_SCORING_CONFIG, SCHEDULING_REPOSITORY } from './tokens.js';

export const SYSTEM_ACTOR = 'system:scheduler-scoring';
const SERVICE = 'scheduler-scoring' as const;

export type OptimizeMode = 'off' | 'plan' | 'execute';

export interface CycleResult {
  readonly planId?: string;
  readonly mode: OptimizeMode;
  readonly priceSource: PriceSnapshot['source'];
  /** Where the scale-up's instance types came from. */
  readonly catalogSource: CatalogSnapshot['source'];
  readonly decisions: readonly DecisionView[];
  readonly plan?: ConsolidationPlan;
  readonly execution?: ExecutionResult;
  /** What the approval and maintenance-window gate did with the plan (execute mode only; docs/approvals.md). */
  readonly gate?: GateView;
  /** Approved requests carried out at the start of this cycle. */
  readonly approvalsExecuted?: readonly { id: string; status: string }[];
}

export type GateView =
  | { readonly action: 'execute'; readonly heldBack: readonly { node: string; reason: string; detail: string }[] }
  | { readonly action: 'wait_for_window'; readonly heldBack: readonly { node: string; reason: string; detail: string }[]; readonly opensAt?: string }
  | { readonly action: 'approval_requested' | 'approval_open'; readonly approvalId: string; readonly status: string }
  | { readonly action: 'paused'; readonly detail: string };

/** The subject of the optimizer's approvals: one open request at a time for the whole cluster. */
const APPROVAL_SUBJECT = 'cluster';

/**
 * OptimizeCycleService — the optimisation cycle: load (cluster cache, prices) → decide (libs/scoring + domain/) →
 * gate (pause, approvals, maintenance windows) → record (decisions, plans and their events in one transaction), and in
 * `execute` mode the plan and the approved requests carried out by {@link OptimizeExecutionService}. One cycle at a
 * time per process; an execution holds the cluster-wide execution lock.
 */
@Injectable()
export class OptimizeCycleService {
  private running?: Promise<unknown>;

  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) private readonly config: SchedulerScoringConfig,
    @Inject(CLUSTER_CACHE) private readonly cluster: ClusterCache,
    @Inject(SCHEDULING_REPOSITORY) private readonly repo: SchedulingRepository,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(OPTIMIZE_APPROVALS_STORE) private readonly approvals: ApprovalStore,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
    @Inject(PlanBlockedService) private readonly blocked: PlanBlockedService,
    @Inject(ClusterMarketService) private readonly market: ClusterMarketService,
    @Inject(OptimizeExecutionService) private readonly execution: OptimizeExecutionService,
  ) {}

  /**
   * runCycle — scale-up recommendation for the pending pods and a consolidation plan, recorded with their
   * rationale and events in one transaction; in `execute` mode the plan is then carried out. One cycle at a
   * time per process: a trigger during a loop cycle waits for it, then runs its own.
   */
  runCycle(opts: { mode: OptimizeMode; meta?: CommandMeta }): Promise<CycleResult> {
    return this.serially(() => this.cycle(opts.mode, opts.meta ?? { actor: SYSTEM_ACTOR, correlationId: randomUUID() }));
  }

  /**
   * runLoopCycle — the loop's cycle: like `runCycle`, but `stillLeader` is asked when its turn comes (after any
   * cycle it waited for), and when it says no nothing runs (undefined) — a cycle never starts after leadership
   * is lost.
   */
  runLoopCycle(mode: OptimizeMode, stillLeader: () => Promise<boolean>): Promise<CycleResult | undefined> {
    return this.serially(async () => ((await stillLeader()) ? this.cycle(mode, { actor: SYSTEM_ACTOR, correlationId: randomUUID() }, true) : undefined));
  }

  /**
   * underExecutionLock — `fn` after this process's cycle in progress and under the cluster-wide execution lock, as a
   * cycle in `execute` mode runs: undefined (not run) while another replica's run holds it.
   */
  underExecutionLock<T>(fn: () => Promise<T>): Promise<T | undefined> {
    return this.serially(async () => {
      const out = await this.repo.withExecutionLock(fn);
      return out === NOT_LOCKED ? undefined : out;
    });
  }

  private async serially<T>(fn: () => Promise<T>): Promise<T> {
    const prev = this.running;
    const next = (async () => {
      await prev?.catch(() => undefined);
      return fn();
    })();
    this.running = next;
    try {
      return await next;
    } finally {
      if (this.running === next) this.running = undefined;
    }
  }

  /**
   * cycle — in `execute` mode the whole cycle runs under the cluster-wide execution lock (see
   * `withExecutionLock`): another replica's run in progress is a CONFLICT, so no two runs ever count the same
   * in-flight drains and OPTIMIZE_MAX_DISRUPTIONS holds across replicas.
   */
  private async cycle(mode: OptimizeMode, meta: CommandMeta, loop = false): Promise<CycleResult> {
    // Pending approvals expire at their deadline by themselves (OptimizeApprovalsController).
    if (mode !== 'execute') return this.cycleLocked(mode, meta, loop);
    const out = await this.repo.withExecutionLock(async () => {
      const approvalsExecuted = await this.runApproved(meta);
      const result = await this.cycleLocked(mode, meta, loop);
      return approvalsExecuted.length ? { ...result, approvalsExecuted } : result;
    });
    if (out === NOT_LOCKED) throw new CodedError('CONFLICT', 'an optimisation run is in progress', { lock: EXECUTION_LOCK });
    return out;
  }

  /** cycleLocked — one cycle; `loop`: the leader's loop cycle, which also writes the plan's Node Events. */
  private async cycleLocked(mode: OptimizeMode, meta: CommandMeta, loop: boolean): Promise<CycleResult> {
    const snap = this.market.snapshot();
    const { prices, catalog } = await this.market.market(snap, meta, true);
    const groups = pendingGroups(snap.pods);
    let scaleUp: SimulateResult | undefined;
    if (groups.length > 0) scaleUp = simulatePlacement({ pods: groups, nodes: snap.nodes, catalog: catalog.types, prices: prices.table });
    const drafts: DecisionDraft[] = [decideScaleUp(groups, scaleUp, prices.source, catalog.source)];
    let plan: ConsolidationPlan | undefined;
    if (mode !== 'off') {
      plan = this.market.consolidate(snap, prices);
      drafts.push(decidePlan(plan, { threshold: this.config.OPTIMIZE_UTILIZATION_THRESHOLD, source: prices.source, mode }));
      this.blocked.count(plan);
    }
    const now = this.clock.now();
    const planId = plan ? randomUUID() : undefined;
    const poolOf = this.market.poolOf(snap);
    const gate = mode === 'execute' && plan && plan.remove.length > 0 ? await this.gate(plan, poolOf, now) : undefined;
    let requested: { id: string; status: string } | undefined;
    const previous = plan ? await this.repo.latestPlan(null) : undefined;
    const planRow = plan && planId
      ? {
          id: planId,
          status: gate?.action === 'execute' ? 'executing' : gate?.action === 'wait_for_window' ? 'waiting_for_window' : gate?.action === 'request_approval' ? 'awaiting_approval' : 'planned',
          nodePool: null,
          plan: { ...plan, threshold: this.config.OPTIMIZE_UTILIZATION_THRESHOLD, priceSource: prices.source },
          hourlySavingsUsd: plan.hourlySavingsUsd,
          monthlySavingsUsd: plan.monthlySavingsUsd,
          dryRun: mode !== 'execute',
          actor: meta.actor,
          correlationId: meta.correlationId,
          now,
        }
      : undefined;
    const decisions = await this.repo.recordCycle(drafts, { skipRepeats: meta.actor === SYSTEM_ACTOR, meta: { ...meta, now }, ...(planRow ? { plan: planRow } : {}) }, this.outbox, (rows) => {
      const events: CloudEvent[] = rows.map((d) => makeEvent(SERVICE, EventTypes.schedulingDecided, d, now, { ...meta, subject: d.subject }));
      if (plan && planId) {
        const content = plannedContent(plan, mode === 'execute' ? 'execute' : 'plan', prices.source);
        const publish = decidePublishPlan(content, previousPlanContent(previous), {
          askedByCaller: meta.actor !== SYSTEM_ACTOR,
          executing: mode === 'execute' && plan.remove.length > 0,
        });
        if (publish.publish) events.push(makeEvent(SERVICE, EventTypes.optimizePlanned, { planId, ...content }, now, meta));
        else this.logger.debug('plan unchanged, not republished', { planId, reason: publish.reason, correlationId: meta.correlationId });
      }
      return events;
    });
    this.outbox.added();
    if (loop && plan) await this.blocked.announce(plan);
    if (gate?.action === 'request_approval' && plan && planId) {
      // Its own transaction, after the plan's: the request names the plan row, which is then committed.
      const a = await this.approvals.request(
        {
          subject: APPROVAL_SUBJECT,
          reason: approvalReason(plan, this.config.OPTIMIZE_UTILIZATION_THRESHOLD),
          planId,
          nodes: approvalNodes(plan, poolOf),
          pdbImpact: plan.pdbImpact.map((p) => ({ ...p })),
          hourlySavingsUsd: plan.hourlySavingsUsd,
          monthlySavingsUsd: plan.monthlySavingsUsd,
          extra: { remove: plan.remove },
        },
        meta,
      );
      requested = { id: a.id, status: a.status };
    }
    // A cycle that decided nothing new is a repeat: logged at debug only.
    (decisions.length > 0 ? this.logger.info : this.logger.debug).call(this.logger, 'scheduling cycle', {
      decision: drafts.map((d) => `${d.kind}:${d.outcome}`).join(','),
      remove: plan?.remove.length ?? 0,
      mode,
      correlationId: meta.correlationId,
    });
    const base = { ...(planId ? { planId } : {}), mode, priceSource: prices.source, catalogSource: catalog.source, decisions, ...(plan ? { plan } : {}) };
    if (!gate || !plan || !planId) return base;
    if (gate.action !== 'execute') {
      const view: GateView =
        gate.action === 'wait_for_window'
          ? { action: 'wait_for_window', heldBack: gate.heldBack, ...(gate.opensAt ? { opensAt: gate.opensAt.toISOString() } : {}) }
          : gate.action === 'paused'
            ? { action: 'paused', detail: gate.detail }
            : gate.action === 'approval_open'
            ? { action: 'approval_open', approvalId: gate.approvalId, status: gate.status }
            : { action: 'approval_requested', approvalId: requested!.id, status: requested!.status };
      this.logger.debug('consolidation held by the disruption gate', { decision: view.action, correlationId: meta.correlationId });
      return { ...base, gate: view };
    }
    const execution = await this.execution.execute(planId, gate.removals, meta, { heldBack: gate.heldBack });
    return { ...base, execution, gate: { action: 'execute', heldBack: gate.heldBack } };
  }

  /** gate — DISRUPTION_APPROVAL for `optimize` and DISRUPTION_WINDOWS decide what a plan that drains nodes does now. */
  private async gate(plan: ConsolidationPlan, poolOf: (node: string) => string | undefined, now: Date): Promise<DisruptionGate> {
    const mode = approvalModeFor(this.config.DISRUPTION_APPROVAL, 'optimize');
    const open = mode === 'manual' ? await this.approvals.open(APPROVAL_SUBJECT) : undefined;
    return gateDisruption({ policy: this.config.DISRUPTION_APPROVAL, removals: plan.remove, poolOf, windows: this.config.DISRUPTION_WINDOWS, now, pause: await this.pause.check('optimize'), ...(open ? { openApproval: { id: open.id, status: open.status } } : {}) });
  }

  /**
   * runApproved — carry out approved requests (under the execution lock). One left `executing` by a run that died is
   * failed first. An approved request waits while none of its nodes is inside a maintenance window; otherwise one
   * replica claims it (a conditional update, so never twice) and its plan runs through `execute` — every node
   * re-checked on a fresh read, those outside their window skipped — and it ends `executed` or `failed` with the
   * per-node results.
   */
  private async runApproved(meta: CommandMeta): Promise<{ id: string; status: string }[]> {
    const done: { id: string; status: string }[] = [];
    // Paused (or the pause unknown): approved requests wait, unclaimed, the owner asked afresh (docs/pause.md); each
    // one's windows are its nodes' (`executeApproved`).
    const pause = await this.pause.check('optimize', { fresh: true });
    if (!pause.go) {
      this.logger.debug('approved consolidations wait: disruptive actions paused', { reason: pause.detail });
      return done;
    }
    // The whole pass holds the execution lock already: no `under`.
    await approvalsPass(this.approvals, { execute: async (a, runMeta) => {
      const finished = await this.executeApproved(a, runMeta);
      if (finished) done.push(finished);
    } }, meta);
    return done;
  }

  /** executeApproved — one approved request: waits for a window, else claimed, executed and finished. */
  private async executeApproved(a: ApprovalView, runMeta: CommandMeta): Promise<{ id: string; status: string } | undefined> {
    const extra = await this.approvals.extra(a.id);
    // An approved `optimize.replace` request is carried out by the next request of its caller (OptimizeReplaceService).
    if (extra['replace'] !== undefined) return undefined;
    const remove = (Array.isArray(extra['remove']) ? extra['remove'] : []) as NodeRemoval[];
    const snap = this.cluster.synced ? this.cluster.snapshot() : undefined;
    const stored = new Map(a.nodes.map((n) => [n.node, n.nodePool ?? undefined]));
    const current = snap ? this.market.poolOf(snap) : () => undefined;
    const poolOf = (node: string) => current(node) ?? stored.get(node);
    const pause = await this.pause.check('optimize');
    const split = admitNodes(remove, poolOf, { pause, policy: this.config.DISRUPTION_APPROVAL, windows: this.config.DISRUPTION_WINDOWS, now: this.clock.now(), approval: { kind: 'approved', id: a.id } });
    if (split.refused) return undefined;
    if (remove.length > 0 && split.inside.length === 0) {
      this.logger.debug('approved consolidation waits for its maintenance window', { approvalId: a.id, opensAt: split.opensAt?.toISOString() });
      return undefined;
    }
    if (!(await this.approvals.claim(a.id))) return undefined;
    const planId = a.planId ?? randomUUID();
    const plan: ConsolidationPlan = { remove: split.inside, blocked: [], pdbImpact: a.pdbImpact, hourlySavingsUsd: a.hourlySavingsUsd ?? 0, monthlySavingsUsd: a.monthlySavingsUsd ?? 0 };
    const execution = await this.execution.execute(planId, plan.remove, runMeta, { heldBack: split.outside });
    const finished = await this.approvals.finish(
      a.id,
      [
        ...execution.drained.map((d) => ({ node: d.node, outcome: 'started' as const, reason: 'planned_removal', detail: `drain ${d.operationId} ${d.status}`, operationId: d.operationId })),
        ...execution.skipped.map((x) => ({ node: x.node, outcome: 'skipped' as const, reason: x.reason, detail: x.detail })),
      ],
      runMeta,
    );
    return { id: finished.id, status: finished.status };
  }

}

/** previousPlanContent — the `optimize.planned` content of a stored plan row (the cluster-wide plan), if there is one. */
function previousPlanContent(row: PlanRow | undefined): PlannedContent | undefined {
  if (!row) return undefined;
  const plan = row.plan as unknown as Partial<PlanFacts> & { priceSource?: string };
  if (!Array.isArray(plan.remove) || !Array.isArray(plan.blocked)) return undefined;
  return plannedContent(plan as PlanFacts, row.dryRun ? 'plan' : 'execute', String(plan.priceSource));
}
