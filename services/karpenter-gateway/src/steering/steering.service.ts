import { Inject, Injectable } from '@nestjs/common';
import type { CommandMeta, SteeringRecommendations, SteeringStatus } from '@nodes-manager/contracts';
import type { ApprovalInPlay, GateFacts } from '@nodes-manager/disruption';
import { CLOCK, CodedError, LOGGER, newMeta, PAUSE_GATE, type ApprovalStore, type Clock, type JsonLogger, type PauseGate } from '@nodes-manager/platform';
import {
  CAPACITY_TYPE_KEY,
  healthViewOf,
  nameLabels,
  planNodePoolEdit,
  samplesFromLedger,
  sameRequirements,
  steerFleet,
  type NodePoolEditPlan,
  type Offering,
  type PoolHealth,
  type PoolHealthView,
  type Requirement,
  type SteeringRails,
  type SteeringRecord,
} from '@nodes-manager/steering';
import { KARPENTER_KUBE, KubeFailure, type KarpenterKube } from '../adapters/outbound/karpenter-kube.adapter.js';
import { poolHealthConfigOf, type KarpenterGatewayConfig } from '../config.js';
import type { NodePool } from '../domain/nodepool.types.js';
import { runningNodesOf } from '../domain/running-nodes.js';
import { DISRUPTION_GATE, type DisruptionGateConfig } from '../tokens.js';
import { KARPENTER_GATEWAY_CONFIG } from '../tokens.js';
import { ON_DEMAND_REPLACER, STEERING_SOURCES, type OnDemandReplacer, type SteeringSources } from './steering-sources.adapter.js';
import { SteeringRepository, type PlanStatus, type SteeringMode, type StoredPlan } from './steering.repository.js';
import { CAPACITY_TYPES, poolKey, poolOfKey } from '@nodes-manager/contracts';

export const STEER_APPROVALS = Symbol('STEER_APPROVALS');
const ACTOR = 'system:karpenter-gateway';
/** Errors of a source that cannot answer now (not a bug of this pass): the pass is skipped, not retried at once. */
const SOURCE_UNAVAILABLE = new Set(['AWS_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE', 'TIMEOUT', 'UPSTREAM_ERROR']);

export interface SteeringPass {
  decidedAt: Date;
  transitions: number;
  plans: Array<{ nodePool: string; status: PlanStatus; detail: string }>;
  /** Look again soon: a write met a conflict and is re-planned. */
  again: boolean;
}

/** Recommendations — the same plan without Karpenter: what a NodePool admitting everything should drop. */
export type Recommendations = SteeringRecommendations;

const requirementsOf = (p: NodePool): Requirement[] => ((p.spec.template.spec as { requirements?: Requirement[] }).requirements ?? []).map((r) => ({ ...r }));

/**
 * SteeringService — one steering pass (docs/steering.md): load the ledger, the prices, the NodePools and what
 * steering last decided and wrote; decide purely (libs/steering `steerFleet`); record every pool's health and its
 * transitions; then per NodePool, by STEERING_MODE: `plan` records the plan only; `execute` writes it — unless the
 * pause holds `steer`, the pool's maintenance window is shut, or `steer` is `manual` (then an approval request) —
 * re-read and re-planned right before the write, guarded by resourceVersion, recorded with before/after and evidence.
 */
@Injectable()
export class SteeringService {
  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG) private readonly config: KarpenterGatewayConfig,
    @Inject(KARPENTER_KUBE) private readonly kube: KarpenterKube,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(STEERING_SOURCES) private readonly sources: SteeringSources,
    @Inject(DISRUPTION_GATE) private readonly gate: DisruptionGateConfig,
    @Inject(STEER_APPROVALS) private readonly approvals: ApprovalStore,
    private readonly repo: SteeringRepository,
    @Inject(ON_DEMAND_REPLACER) private readonly replacer: OnDemandReplacer,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
  ) {}

  get mode(): SteeringMode {
    return this.config.STEERING_MODE;
  }

  /**
   * pass — one steering pass under the cluster-wide steering lock; undefined when off, when another replica runs one,
   * or when a source cannot answer: steering never decides on a partial view (no prices means no catalogue of
   * offerings, and a plan on an empty catalogue would undo every exclusion). It says why in `steering.status` and
   * tries again at the next interval.
   */
  async pass(): Promise<SteeringPass | undefined> {
    if (this.mode === 'off') return undefined;
    try {
      return await this.repo.withSteeringLock(() => this.passLocked());
    } catch (err) {
      const coded = CodedError.from(err);
      if (!SOURCE_UNAVAILABLE.has(coded.code)) throw err;
      const waiting = `waiting for the other services: ${coded.message}`;
      await this.repo.saveStatus({ mode: this.mode, state: 'waiting', waiting, passedAt: this.clock.now(), decidedAt: null, recommendations: null });
      this.logger.warn('steering pass skipped: a source did not answer', { reason: coded.code, err: coded.message });
      return undefined;
    }
  }

  private async load(now: Date, meta: CommandMeta) {
    const from = new Date(now.getTime() - poolHealthConfigOf(this.config).windowMs);
    const [rows, market, previous, recentAvoid, records, installed] = await Promise.all([
      this.sources.ledger(from, meta),
      this.sources.market(meta),
      this.repo.previous(),
      this.repo.avoidEntriesSince(new Date(now.getTime() - 3_600_000)),
      this.repo.records(),
      this.kube.installed(),
    ]);
    const nodePools = installed ? await this.kube.listNodePools() : [];
    // Each NodePool's running nodes by offering: what its plan's write would drift (the drift forecast).
    const running = new Map(await Promise.all(nodePools.map(async (p) => [p.metadata.name, runningNodesOf(await this.kube.listNodeClaims(p.metadata.name))] as const)));
    const samples = samplesFromLedger(rows);
    return { samples, market: { prices: market.prices, offerings: withKnownPools(market.offerings, [...samples.keys(), ...previous.keys()]) }, previous, recentAvoid, records, installed, nodePools, running };
  }

  private async passLocked(): Promise<SteeringPass> {
    const now = this.clock.now();
    const meta = newMeta(ACTOR);
    const s = await this.load(now, meta);
    const fleet = steerFleet({
      now,
      samples: s.samples,
      prices: s.market.prices,
      previous: s.previous,
      recentAvoidEntries: s.recentAvoid,
      nodePools: s.nodePools.map((p) => ({ name: p.metadata.name, requirements: requirementsOf(p), record: s.records.get(p.metadata.name) ?? null, nodes: s.running.get(p.metadata.name) ?? [] })),
      offerings: s.market.offerings,
      config: poolHealthConfigOf(this.config),
      rails: { maxAvoidPerHour: this.config.STEERING_MAX_AVOID_PER_HOUR, ...this.editRails() },
    });
    const transitions = await this.repo.saveHealth(fleet.health, this.mode, now);
    for (const h of fleet.health.filter((x) => x.changed)) {
      this.logger.info('pool health changed', { pool: poolKey(h.pool), from: h.from, to: h.state, reason: h.reason, decision: h.state });
    }
    const view = healthViewOf(fleet.health, s.market.prices);
    const recommendations = recommend(fleet.health, view, s.market.offerings, this.editRails(), now);
    const stored: StoredPlan[] = [];
    let again = false;
    for (const plan of fleet.plans) {
      const out = await this.act(plan, view, s.market.offerings, s.records.get(plan.nodePool) ?? null, fleet.health, meta).catch((err: Error) => ({ status: 'failed' as const, detail: err.message }));
      if (out.status === 'conflict') again = true;
      stored.push({ nodePool: plan.nodePool, mode: this.mode, plan, status: out.status, detail: out.detail, plannedAt: now });
    }
    await this.repo.savePlans(stored);
    if (this.mode === 'execute' && s.installed) await this.replaceOnDemand(fleet.plans, fleet.health, meta);
    await this.repo.saveStatus({ mode: this.mode, state: 'decided', waiting: null, passedAt: now, decidedAt: now, recommendations });
    return { decidedAt: now, transitions, plans: stored.map((p) => ({ nodePool: p.nodePool, status: p.status, detail: p.detail })), again };
  }

  /** act — what `execute` does with one NodePool's plan; `plan` mode records it only. */
  private async act(plan: NodePoolEditPlan, view: Map<string, PoolHealthView>, offerings: Offering[], record: SteeringRecord | null, health: PoolHealth[], meta: CommandMeta): Promise<{ status: PlanStatus; detail: string }> {
    if (!plan.write) return { status: 'nothing_to_do', detail: plan.sentence };
    if (this.mode !== 'execute') return { status: 'planned', detail: `STEERING_MODE=${this.mode}: nothing is written. ${plan.sentence}` };
    // The disruption gate, in its one order: the pause, then the approval, then the window (docs/approvals.md#one-gate).
    const open = await this.approvals.open(plan.nodePool);
    const admitted = await this.pause.admit('steer', this.gateFacts(plan.nodePool, open ? { kind: 'open', id: open.id, status: open.status } : { kind: 'none' }));
    if (!admitted.admit) {
      if (admitted.reason === 'paused' || admitted.reason === 'pause_unknown') return { status: 'paused', detail: admitted.detail };
      if (admitted.reason === 'outside_window') return { status: 'outside_window', detail: admitted.detail };
      if (admitted.reason !== 'request_approval') return { status: 'awaiting_approval', detail: admitted.detail };
      const a = await this.approvals.request(
        {
          subject: plan.nodePool,
          reason: plan.sentence,
          planId: null,
          nodes: [{ node: plan.nodePool, nodePool: plan.nodePool, reason: plan.changes.join(', ') || 'steer' }],
          extra: { after: plan.after, before: plan.before, changes: plan.changes, evidence: evidenceOf(plan, health) },
        },
        meta,
      );
      return { status: 'awaiting_approval', detail: `approval ${a.id} requested` };
    }
    return this.write(plan.nodePool, view, offerings, record, health, null, meta);
  }

  /**
   * replaceOnDemand — the way back to Spot, gradually: each pass, the on-demand nodes a NodePool launched during its
   * fallback and still there are sent to scheduler-scoring's optimizer (`optimize.replace`), which drains them a few
   * at a time through its own gate — OPTIMIZE_MAX_DISRUPTIONS, the pool's maintenance window, approvals of kind
   * `optimize`, the pause, a fresh re-check of each node — so Karpenter launches Spot replacements. Nodes accepted
   * (draining) or refused (gone, no longer on-demand) are forgotten; queued ones are asked for again next pass; what
   * was asked and answered is recorded with the NodePool's plan. A NodePool back on on-demand stops it.
   */
  private async replaceOnDemand(plans: readonly NodePoolEditPlan[], health: readonly PoolHealth[], meta: CommandMeta): Promise<void> {
    const pending = await this.repo.replacements();
    for (const [name, nodes] of pending) {
      const plan = plans.find((p) => p.nodePool === name);
      if (!plan || plan.fallback) {
        await this.repo.setReplacements(name, []);
        continue;
      }
      const claims = new Set(await this.onDemandSince(name, null));
      const still = nodes.filter((n) => claims.has(n));
      if (still.length === 0) {
        await this.repo.setReplacements(name, []);
        continue;
      }
      const reason = `NodePool ${name} admits Spot again: the on-demand nodes it launched during its fallback move back to Spot`;
      try {
        const r = await this.replacer.replace({ nodePool: name, nodes: still, reason, evidence: evidenceOf(plan, health) }, meta);
        const done = new Set(r.results.filter((x) => x.outcome !== 'queued').map((x) => x.node));
        await this.repo.setReplacements(name, still.filter((n) => !done.has(n)));
        await this.repo.recordReplacement(name, { askedAt: this.clock.now().toISOString(), nodes: still, reason, requestId: r.requestId, action: r.action, detail: r.detail, results: r.results });
        this.logger.info('on-demand nodes sent to the optimizer on the way back to Spot', { nodePool: name, decision: r.action, nodes: still.join(','), accepted: r.results.filter((x) => x.outcome === 'accepted').length, left: still.length - done.size });
      } catch (err) {
        this.logger.warn('asking the optimizer to replace on-demand nodes failed; asked again next pass', { nodePool: name, err: (err as Error).message });
      }
    }
  }

  /** gateFacts — what the disruption gate needs of a NodePool's steering write, but the pause. */
  private gateFacts(nodePool: string, approval: ApprovalInPlay): GateFacts {
    return { policy: this.gate.policy, windows: this.gate.windows, nodePool, now: this.clock.now(), approval };
  }

  /**
   * write — re-reads the NodePool, re-plans on what it holds now (so a change made meanwhile is kept, never
   * overwritten), and writes the requirements with the resourceVersion read; a 409 is a re-plan on the next pass.
   * `approvedAfter`: an approval's requirements — the write goes only if the fresh plan still wants exactly those.
   */
  private async write(
    name: string,
    view: Map<string, PoolHealthView>,
    offerings: Offering[],
    record: SteeringRecord | null,
    health: PoolHealth[],
    approval: { id: string; after: Requirement[]; evidence: unknown } | null,
    meta: CommandMeta,
  ): Promise<{ status: PlanStatus; detail: string }> {
    const pool = await this.kube.getNodePool(name);
    if (!pool) return { status: 'nothing_to_do', detail: `NodePool ${name} is gone` };
    const now = this.clock.now();
    const plan = planNodePoolEdit({ nodePool: name, requirements: requirementsOf(pool), record, offerings, health: view, rails: this.editRails(), now });
    if (!plan.write) return { status: 'nothing_to_do', detail: `re-checked at execution: ${plan.sentence}` };
    if (approval && !sameRequirements(approval.after, plan.after)) {
      return { status: 'conflict', detail: 'the plan changed since it was approved: it is planned again' };
    }
    let written: NodePool;
    try {
      written = await this.kube.mergePatchNodePool(name, { metadata: { resourceVersion: pool.metadata.resourceVersion }, spec: { template: { spec: { requirements: plan.after } } } });
    } catch (err) {
      if (err instanceof KubeFailure && err.status === 409) {
        this.logger.info('nodepool changed since read: steering plans again', { nodePool: name });
        return { status: 'conflict', detail: `${name} changed since it was read: planned again` };
      }
      throw err;
    }
    const replaceOnDemand = plan.returnToSpot ? await this.onDemandSince(name, plan.returnToSpot.fallbackSince) : [];
    // An approved write keeps the evidence the operator approved on.
    const evidence = approval ? approval.evidence : evidenceOf(plan, health);
    await this.repo.recordSteer({ plan, resourceVersion: written.metadata.resourceVersion ?? '', approvalId: approval?.id ?? null, replaceOnDemand, evidence, meta, now });
    this.logger.info('nodepool steered', { nodePool: name, changes: plan.changes.join(','), actor: meta.actor, correlationId: meta.correlationId });
    return { status: 'written', detail: plan.sentence };
  }

  /** onDemandSince — the pool's on-demand nodes launched since the fallback began: replaced gradually on the way back. */
  private async onDemandSince(name: string, since: Date | null): Promise<string[]> {
    const claims = await this.kube.listNodeClaims(name);
    return claims
      .filter((c) => c.metadata.labels?.[CAPACITY_TYPE_KEY] === 'on-demand' && !c.metadata.deletionTimestamp)
      .filter((c) => !since || !c.metadata.creationTimestamp || Date.parse(c.metadata.creationTimestamp) >= since.getTime())
      .map((c) => c.status?.nodeName ?? c.metadata.name)
      .sort();
  }

  /**
   * runApproved — an approved `steer` request, carried out as its approver: inside the window, not paused, claimed
   * (one replica), then written only if the plan made afresh is still the one approved; else skipped with the reason.
   */
  async runApproved(approvalId: string, name: string, meta: CommandMeta): Promise<unknown> {
    // The approved write waits, unclaimed, while paused or outside its window (the owner of the pause asked afresh).
    if (!(await this.pause.admit('steer', this.gateFacts(name, { kind: 'approved', id: approvalId }), { fresh: true })).admit) return undefined;
    return this.repo.withSteeringLock(async () => {
      if (!(await this.approvals.claim(approvalId))) return undefined;
      let result: { status: PlanStatus; detail: string };
      try {
        const now = this.clock.now();
        const s = await this.load(now, meta);
        // The pools as the last pass left them, at the prices now: the plan is made as that pass made it.
        const view = new Map([...s.previous.entries()].map(([k, p]) => [k, { state: p.state, spotPerHour: s.market.prices.get(k)?.spotPerHour ?? null }] as const));
        const extra = await this.approvals.extra(approvalId);
        const after = (extra.after ?? []) as Requirement[];
        result = await this.write(name, view, s.market.offerings, s.records.get(name) ?? null, [], { id: approvalId, after, evidence: extra.evidence ?? [] }, meta);
      } catch (err) {
        result = { status: 'failed', detail: (err as Error).message };
      }
      const outcome = result.status === 'written' ? 'started' : result.status === 'failed' ? 'failed' : 'skipped';
      const reason = result.status === 'written' ? 'steered' : result.status === 'conflict' ? 'plan_changed' : result.status;
      return this.approvals.finish(approvalId, [{ node: name, outcome, reason, detail: result.detail }], meta);
    });
  }

  /** editRails — the bounds on every NodePool edit (docs/steering.md#the-rails). */
  private editRails(): SteeringRails {
    return { maxExcludedShare: this.config.STEERING_MAX_EXCLUDED_SHARE, keepCheapest: this.config.STEERING_KEEP_CHEAPEST };
  }

  /** underLock — `fn` under the steering lock; undefined (not run) while another run holds it. */
  underLock<T>(fn: () => Promise<T>): Promise<T | undefined> {
    return this.repo.withSteeringLock(fn);
  }

  /**
   * status — the `steering.status` answer, from what the steering leader stored (docs/steering.md#status): the last
   * pass — how it ended, when, its recommendations — and each pool's health and NodePool's plan. The same from every
   * replica. The mode is this replica's configuration (every replica has the same).
   */
  async status(): Promise<SteeringStatus> {
    const [{ pools, plans }, last, karpenterInstalled] = await Promise.all([this.repo.status(), this.repo.lastPass(), this.kube.installed().catch(() => false)]);
    const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);
    return {
      mode: this.mode,
      karpenterInstalled,
      state: last?.state ?? 'none',
      passedAt: iso(last?.passedAt),
      decidedAt: iso(last?.decidedAt),
      ...(last?.state === 'waiting' && last.waiting ? { waiting: last.waiting } : {}),
      pools,
      nodePools: plans.map((p) => ({ ...(p.plan as unknown as Record<string, unknown>), nodePool: p.nodePool, status: p.status, detail: p.detail, plannedAt: iso(p.plannedAt)! })),
      recommendations: last?.recommendations ?? { instanceTypes: [], zones: [], pools: [] },
    };
  }
}

/**
 * withKnownPools — the catalogue with every pool the ledger or a previous decision knows, priced or not: a pool the
 * price list leaves out (a stale or partial answer) must still be seen as avoided, or its exclusion would be undone.
 */
function withKnownPools(offerings: readonly Offering[], keys: readonly string[]): Offering[] {
  const have = new Set(offerings.map((o) => `${poolKey(o)}/${o.capacityType}`));
  const out = [...offerings];
  for (const key of new Set(keys)) {
    const { instanceType, zone } = poolOfKey(key);
    for (const capacityType of CAPACITY_TYPES) {
      if (!have.has(`${key}/${capacityType}`)) out.push({ instanceType, zone, capacityType, labels: nameLabels(instanceType) });
    }
  }
  return out;
}

/** evidenceOf — the health of the pools a plan keeps out, as recorded with the change. */
function evidenceOf(plan: NodePoolEditPlan, health: readonly PoolHealth[]) {
  const keys = new Set([...plan.exclusions.flatMap((e) => e.covers.map(poolKey)), ...plan.heldBack.map((h) => poolKey(h.pool))]);
  return health.filter((h) => keys.has(poolKey(h.pool)) || (plan.fallback && h.state === 'avoid')).map((h) => ({ pool: poolKey(h.pool), state: h.state, reason: h.reason, sentence: h.sentence, share: h.evidence.share, interval95: h.evidence.interval95, samples: h.evidence.samples }));
}

/**
 * recommend — without Karpenter (or before `execute`): the plan for a NodePool admitting every offering, Spot and
 * on-demand — the instance types and zones it would drop, and the avoided pools.
 */
export function recommend(health: readonly PoolHealth[], view: ReadonlyMap<string, PoolHealthView>, offerings: readonly Offering[], rails: SteeringRails, now: Date): Recommendations {
  const plan = planNodePoolEdit({
    nodePool: 'the fleet',
    requirements: [{ key: CAPACITY_TYPE_KEY, operator: 'In', values: [...CAPACITY_TYPES] }],
    record: null,
    offerings,
    health: view,
    rails,
    now,
  });
  return {
    instanceTypes: plan.exclusions.filter((e) => e.kind === 'instance-type').map((e) => e.value).sort(),
    zones: plan.exclusions.filter((e) => e.kind === 'zone').map((e) => e.value).sort(),
    pools: health.filter((h) => h.state === 'avoid').map((h) => poolKey(h.pool)).sort(),
  };
}
