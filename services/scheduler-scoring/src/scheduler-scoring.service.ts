// This file is longer than 500 lines: the cycle, its execution and the approvals it carries out share the execution
// lock and one execute path (re-check, budgets, records); splitting the approvals into their own service is the next step.
import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  EventTypes,
  type ApprovalView,
  type CloudEvent,
  type CommandMeta,
  type DecisionsListQuery,
  type PlacementListQuery,
  type SimulateRequest,
} from '@nodes-manager/contracts';
import { allowance, approvalModeFor } from '@nodes-manager/disruption';
import { approvalsPass, CLOCK, PAUSE_GATE, type PauseGate, CodedError, LOGGER, makeEvent, OUTBOX, type ApprovalStore, type Clock, type JsonLogger, type Outbox, validationFailed } from '@nodes-manager/platform';
import {
  countWorkloadZones,
  lowerBoundCost,
  planConsolidation,
  simulatePlacement,
  type ConsolidationPlan,
  type NodeRemoval,
  type PdbInfo,
  type ScoringContext,
  type ScoringNode,
  type ScoringPod,
  type ScoringWeights,
  type SimulateResult,
} from '@nodes-manager/scoring';
import type { SchedulerScoringConfig } from './config.js';
import { PlanBlockedService } from './plan-blocked.service.js';
import { pendingGroups, type ClusterSnapshot, type PriceSnapshot } from './domain/cluster.js';
import { decidePlan, decideScaleUp, DecisionKind, recheckRemoval, type DecisionDraft, type ExecutionRun, type Recheck, type SkipReason } from './domain/decisions.js';
import { approvalNodes, approvalReason, gateDisruption, splitByWindow, type DisruptionGate } from './domain/gate-disruption.js';
import { bundledCatalog, toCatalog, type CatalogSnapshot, type InstanceTypeFacts } from './domain/instance-catalog.js';
import { placementAfter, placementPage } from './domain/placement.js';
import { toSimulateGroups } from './domain/simulate-request.js';
import type { CatalogSource } from './adapters/outbound/catalog-source.adapter.js';
import type { ClusterCache } from './adapters/outbound/cluster-cache.adapter.js';
import type { Drainer } from './adapters/outbound/drainer.adapter.js';
import type { PriceSource } from './adapters/outbound/price-source.adapter.js';
import { EXECUTION_LOCK, type DecisionView, type PlanRow, type SchedulingRepository } from './adapters/outbound/scheduling.repository.js';
import { decidePublishPlan, plannedContent, type PlanFacts, type PlannedContent } from './domain/planned-content.js';
import { CATALOG_SOURCE, CLUSTER_CACHE, DRAINER, OPTIMIZE_APPROVALS_STORE, PRICE_SOURCE, SCHEDULER_SCORING_CONFIG, SCHEDULING_REPOSITORY } from './tokens.js';

export const SYSTEM_ACTOR = 'system:scheduler-scoring';
const SERVICE = 'scheduler-scoring' as const;
/** Drains started by our plans in this window count against OPTIMIZE_MAX_DISRUPTIONS while still running. */
const IN_FLIGHT_WINDOW_MS = 24 * 3600 * 1000;

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
 * SchedulerScoringService — load (cluster cache, prices) → decide (libs/scoring + domain/) → act (drains through
 * the uncordon service) → record (decisions, plans and their events in one transaction).
 */
@Injectable()
export class SchedulerScoringService {
  private readonly weights: ScoringWeights | undefined;
  private priceCache?: { at: number; prices: PriceSnapshot; zones: string };
  private catalogCache?: { at: number; types: readonly InstanceTypeFacts[] };
  private running?: Promise<unknown>;

  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) private readonly config: SchedulerScoringConfig,
    @Inject(CLUSTER_CACHE) private readonly cluster: ClusterCache,
    @Inject(PRICE_SOURCE) private readonly priceSource: PriceSource,
    @Inject(CATALOG_SOURCE) private readonly catalogSource: CatalogSource,
    @Inject(DRAINER) private readonly drainer: Drainer,
    @Inject(SCHEDULING_REPOSITORY) private readonly repo: SchedulingRepository,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(OPTIMIZE_APPROVALS_STORE) private readonly approvals: ApprovalStore,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
    @Inject(PlanBlockedService) private readonly blocked: PlanBlockedService,
  ) {
    this.weights = config.SCORING_WEIGHTS;
  }

  private snapshot(): ClusterSnapshot {
    if (!this.cluster.synced) throw new CodedError('SERVICE_UNAVAILABLE', 'scheduler-scoring has not finished listing the cluster yet', { synced: false });
    return this.cluster.snapshot();
  }

  /** prices — spot-advisor's (or the bundled) table, reused for one scan interval; each cycle asks afresh. */
  private async prices(snap: ClusterSnapshot, meta: CommandMeta, fresh = false): Promise<PriceSnapshot> {
    const zones = [...new Set(snap.nodes.map((n) => n.zone))].sort();
    const key = zones.join(',');
    const now = this.clock.now().getTime();
    const c = this.priceCache;
    if (!fresh && c && c.zones === key && now - c.at < this.config.SCAN_INTERVAL_SECONDS * 1000) return c.prices;
    const prices = await this.priceSource.prices(zones, meta);
    this.priceCache = { at: now, prices, zones: key };
    return prices;
  }

  /**
   * market — prices and the instance catalog new nodes may be, fetched together. The catalog is spot-advisor's
   * EC2 types (reused for CATALOG_CACHE_SECONDS; only an answer is kept, so a missing spot-advisor is asked again
   * with the next prices) mapped with these prices by `toCatalog`; the bundled catalog when it does not answer.
   */
  private async market(snap: ClusterSnapshot, meta: CommandMeta, fresh = false): Promise<{ prices: PriceSnapshot; catalog: CatalogSnapshot }> {
    const [prices, catalog] = await Promise.all([this.prices(snap, meta, fresh), this.catalogFacts(meta)]);
    if (!catalog.ok) return { prices, catalog: bundledCatalog(catalog.detail) };
    const mapped = toCatalog(catalog.types, prices.table);
    if (mapped.types.length === 0) return { prices, catalog: bundledCatalog(`EMPTY: none of spot-advisor's ${catalog.types.length} instance types is usable`) };
    return { prices, catalog: { types: mapped.types, source: 'spot-advisor', excluded: mapped.excluded } };
  }

  private async catalogFacts(meta: CommandMeta): Promise<{ ok: true; types: readonly InstanceTypeFacts[] } | { ok: false; detail: string }> {
    const now = this.clock.now().getTime();
    const c = this.catalogCache;
    if (c && now - c.at < this.config.CATALOG_CACHE_SECONDS * 1000) return { ok: true, types: c.types };
    const fetched = await this.catalogSource.instanceTypes(meta);
    if (fetched.ok) this.catalogCache = { at: now, types: fetched.types };
    return fetched;
  }

  private context(snap: ClusterSnapshot, prices: PriceSnapshot): ScoringContext {
    return {
      prices: prices.table,
      zones: [...new Set(snap.nodes.map((n) => n.zone))].sort(),
      workloadZoneCounts: countWorkloadZones(snap.pods, snap.nodes),
      ...(this.weights ? { weights: this.weights } : {}),
    };
  }

  /** placement — every running workload pod with its node, class, score and rationale; filtered, paged. */
  async placement(q: Partial<PlacementListQuery>, meta: CommandMeta) {
    const snap = this.snapshot();
    const prices = await this.prices(snap, meta);
    const after = q.cursor === undefined ? undefined : placementAfter(q.cursor);
    const page = placementPage(snap.pods, snap.nodes, this.context(snap, prices), {
      limit: q.limit ?? 50,
      ...(after !== undefined ? { after } : {}),
      ...(q.namespace ? { namespace: q.namespace } : {}),
      ...(q.node ? { node: q.node } : {}),
      ...(q.workloadClass ? { workloadClass: q.workloadClass } : {}),
    });
    return { ...page, priceSource: prices.source };
  }

  async decisions(q: Partial<DecisionsListQuery>) {
    return this.repo.listDecisions({
      limit: q.limit ?? 50,
      ...(q.cursor ? { cursor: q.cursor } : {}),
      ...(q.kind ? { kind: q.kind } : {}),
      ...(q.subject ? { subject: q.subject } : {}),
    });
  }

  private consolidate(snap: ClusterSnapshot, prices: PriceSnapshot, nodePool?: string): ConsolidationPlan {
    return planConsolidation({
      nodes: snap.nodes,
      pods: snap.pods,
      pdbs: snap.pdbs,
      prices: prices.table,
      threshold: this.config.OPTIMIZE_UTILIZATION_THRESHOLD,
      ...(nodePool ? { candidates: (n) => n.nodePool === nodePool } : {}),
    });
  }

  /** plan — the consolidation plan on the current cluster (read only; the loop and trigger store theirs). */
  async plan(q: { nodePool?: string }, meta: CommandMeta) {
    const snap = this.snapshot();
    const prices = await this.prices(snap, meta);
    const plan = this.consolidate(snap, prices, q.nodePool);
    const latest = await this.repo.latestPlan(q.nodePool ?? null);
    return {
      ...plan,
      threshold: this.config.OPTIMIZE_UTILIZATION_THRESHOLD,
      mode: this.config.OPTIMIZE_MODE,
      ...(q.nodePool ? { nodePool: q.nodePool } : {}),
      priceSource: prices.source,
      ...(prices.detail ? { priceSourceDetail: prices.detail } : {}),
      generatedAt: this.clock.now().toISOString(),
      ...(latest ? { latestStoredPlan: { id: latest.id, status: latest.status, createdAt: latest.createdAt, executedAt: latest.executedAt } } : {}),
    };
  }

  /** simulate — N pod groups → where they would go on the current fleet and what new nodes would cost. */
  async simulate(req: SimulateRequest, meta: CommandMeta) {
    const parsed = toSimulateGroups(req);
    if (!parsed.ok) throw validationFailed(parsed.problems.map((p) => ({ in: 'body', field: p.field, message: p.problem })));
    const snap = this.snapshot();
    const { prices, catalog } = await this.market(snap, meta);
    const input = { pods: parsed.groups, nodes: snap.nodes, catalog: catalog.types, prices: prices.table };
    const result = simulatePlacement(input);
    const bound = lowerBoundCost(input).usdPerHour;
    return {
      ...result,
      newNodes: result.additions.reduce((s, a) => s + a.count, 0),
      lowerBoundUsdPerHour: Math.round(bound * 1e6) / 1e6,
      priceSource: prices.source,
      ...(prices.detail ? { priceSourceDetail: prices.detail } : {}),
      catalogSource: catalog.source,
      ...(catalog.detail ? { catalogSourceDetail: catalog.detail } : {}),
      catalogTypes: catalog.types.length,
    };
  }

  /** trigger — one cycle now for the calling user; `dryRun: false` executes the plan as OPTIMIZE_MODE=execute. */
  trigger(req: { dryRun?: boolean }, meta: CommandMeta): Promise<CycleResult> {
    return this.runCycle({ mode: req.dryRun === false ? 'execute' : 'plan', meta });
  }

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
      const release = await this.repo.tryExecutionLock();
      if (!release) return undefined;
      try {
        return await fn();
      } finally {
        await release();
      }
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
   * `tryExecutionLock`): another replica's run in progress is a CONFLICT, so no two runs ever count the same
   * in-flight drains and OPTIMIZE_MAX_DISRUPTIONS holds across replicas.
   */
  private async cycle(mode: OptimizeMode, meta: CommandMeta, loop = false): Promise<CycleResult> {
    // Pending approvals expire at their deadline by themselves (OptimizeApprovalsController).
    if (mode !== 'execute') return this.cycleLocked(mode, meta, loop);
    const release = await this.repo.tryExecutionLock();
    if (!release) throw new CodedError('CONFLICT', 'an optimisation run is in progress', { lock: EXECUTION_LOCK });
    try {
      const approvalsExecuted = await this.runApproved(meta);
      const result = await this.cycleLocked(mode, meta, loop);
      return approvalsExecuted.length ? { ...result, approvalsExecuted } : result;
    } finally {
      await release();
    }
  }

  /** cycleLocked — one cycle; `loop`: the leader's loop cycle, which also writes the plan's Node Events. */
  private async cycleLocked(mode: OptimizeMode, meta: CommandMeta, loop: boolean): Promise<CycleResult> {
    const snap = this.snapshot();
    const { prices, catalog } = await this.market(snap, meta, true);
    const groups = pendingGroups(snap.pods);
    let scaleUp: SimulateResult | undefined;
    if (groups.length > 0) scaleUp = simulatePlacement({ pods: groups, nodes: snap.nodes, catalog: catalog.types, prices: prices.table });
    const drafts: DecisionDraft[] = [decideScaleUp(groups, scaleUp, prices.source, catalog.source)];
    let plan: ConsolidationPlan | undefined;
    if (mode !== 'off') {
      plan = this.consolidate(snap, prices);
      drafts.push(decidePlan(plan, { threshold: this.config.OPTIMIZE_UTILIZATION_THRESHOLD, source: prices.source, mode }));
      this.blocked.count(plan);
    }
    const now = this.clock.now();
    const planId = plan ? randomUUID() : undefined;
    const poolOf = this.poolOf(snap);
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
    const execution = await this.execute(planId, gate.removals, meta, { heldBack: gate.heldBack });
    return { ...base, execution, gate: { action: 'execute', heldBack: gate.heldBack } };
  }

  /** poolOf — each node's NodePool in the snapshot (for per-pool maintenance windows). */
  private poolOf(snap: ClusterSnapshot): (node: string) => string | undefined {
    const pools = new Map(snap.nodes.map((n) => [n.name, n.nodePool]));
    return (node) => pools.get(node) ?? undefined;
  }

  /** gate — DISRUPTION_APPROVAL for `optimize` and DISRUPTION_WINDOWS decide what a plan that drains nodes does now. */
  private async gate(plan: ConsolidationPlan, poolOf: (node: string) => string | undefined, now: Date): Promise<DisruptionGate> {
    const mode = approvalModeFor(this.config.DISRUPTION_APPROVAL, 'optimize');
    const open = mode === 'manual' ? await this.approvals.open(APPROVAL_SUBJECT) : undefined;
    return gateDisruption({ mode, removals: plan.remove, poolOf, windows: this.config.DISRUPTION_WINDOWS, now, pause: await this.pause.checkReady('optimize'), ...(open ? { openApproval: { id: open.id, status: open.status } } : {}) });
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
    // Paused (or the pause unknown): approved requests wait, unclaimed, the owner asked afresh (docs/pause.md).
    const pause = await this.pause.checkNow('optimize');
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
    const current = snap ? this.poolOf(snap) : () => undefined;
    const poolOf = (node: string) => current(node) ?? stored.get(node);
    const split = splitByWindow(remove, poolOf, this.config.DISRUPTION_WINDOWS, this.clock.now());
    if (remove.length > 0 && split.inside.length === 0) {
      this.logger.debug('approved consolidation waits for its maintenance window', { approvalId: a.id, opensAt: split.opensAt?.toISOString() });
      return undefined;
    }
    if (!(await this.approvals.claim(a.id))) return undefined;
    const planId = a.planId ?? randomUUID();
    const plan: ConsolidationPlan = { remove: split.inside, blocked: [], pdbImpact: a.pdbImpact, hourlySavingsUsd: a.hourlySavingsUsd ?? 0, monthlySavingsUsd: a.monthlySavingsUsd ?? 0 };
    const execution = await this.execute(planId, plan.remove, runMeta, { heldBack: split.outside });
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
        const pause = this.pause.check('optimize');
        if (!pause.go) {
          skipped.push({ node: removal.node, reason: 'paused', detail: pause.detail });
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

/** previousPlanContent — the `optimize.planned` content of a stored plan row (the cluster-wide plan), if there is one. */
function previousPlanContent(row: PlanRow | undefined): PlannedContent | undefined {
  if (!row) return undefined;
  const plan = row.plan as unknown as Partial<PlanFacts> & { priceSource?: string };
  if (!Array.isArray(plan.remove) || !Array.isArray(plan.blocked)) return undefined;
  return plannedContent(plan as PlanFacts, row.dryRun ? 'plan' : 'execute', String(plan.priceSource));
}
