import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { V1Node } from '@kubernetes/client-node';
import {
  EventTypes,
  LEDGER_SOURCES,
  poolKey,
  type InstanceState,
  type InterruptionRates,
  type InterruptionRatesQuery,
  type InterruptionsListQuery,
  type InterruptionsListReply,
  type LedgerSource,
  type RebalanceFigures,
  type RebalanceObservedData,
  type RebalancesListQuery,
  type RebalancesSummary,
  type RebalancesSummaryQuery,
  type RebalanceView,
} from '@nodes-manager/contracts';
import { CLOCK, HEALTH_REGISTRY, LOGGER, makeEvent, METRICS, type Clock, type HealthRegistry, type JsonLogger, type LeaderElector, type Metrics } from '@nodes-manager/platform';
import type { UncordonConfig } from '../config.js';
import { advanceLedger, givenBackMs, untilNextHorizonMs, type Ec2View, type LedgerConfig, type LedgerEntry, type LedgerStep } from './domain/advance-ledger.js';
import { attributeClaimEvents, ledgerNodeOf, nodeFactsOf, type ClaimRef, type LedgerNode, type NodeEvent } from './domain/ledger-node.js';
import { graceFor, type GraceChoice, type GraceMode } from './domain/learned-grace.js';
import { summarise } from './domain/rebalance-figures.js';
import type { KubeNodeEvents, LedgerEventsView } from './kube-node-events.adapter.js';
import type { InstanceStates } from './instance-states.adapter.js';
import type { NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { viewOf, type RebalanceLedgerRepository } from './rebalance-ledger.repository.js';
import { INSTANCE_STATES, NODE_EVENTS, NODE_HOURS, NODE_SOURCE, REBALANCE_REPOSITORY, SPOT_INTERRUPTIONS, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';
import { detectInterruptions } from './domain/detect-interruptions.js';
import { interruptionRates } from './domain/interruption-rates.js';
import type { NodeHours } from './node-hours.adapter.js';
import type { SpotInterruptionsRepository } from './spot-interruptions.repository.js';

const LEDGER_ACTOR = 'system:uncordon';
const DAY_MS = 86_400_000;
/** A deleted NodeClaim is remembered this long: its Events (kept by the API server for an hour by default) still find its node. */
const CLAIM_MEMORY_MS = DAY_MS;
/** A node that went is remembered this long: Events about it (its NodeClaim's too) can still arrive. */
const GONE_MEMORY_MS = 3_600_000;

/** SourceState — what the ledger has read from one source: signals recorded, and the last one's time. */
export interface SourceState {
  readonly signals: number;
  readonly lastAt: string | null;
}

/** PoolMeasure — what a cordon verdict shows of its pool: the measured share, p90 lead time and the grace it gets. */
export interface PoolMeasure {
  readonly instanceType: string | null;
  readonly zone: string | null;
  readonly samples: number;
  readonly interruptedShare: number | null;
  readonly interval95: readonly [number, number] | null;
  readonly p90LeadMinutes: number | null;
  readonly grace: GraceChoice;
}

/**
 * RebalanceLedgerService — the rebalance ledger (docs/rebalance-ledger.md): after each auto-uncordon pass the
 * leader turns the synced node view, NTH's Node Events (read at most once per scan interval) and — for nodes that
 * went — EC2's state reasons (asked of spot-advisor) into ledger rows and outcomes with the pure
 * {@link advanceLedger}; rows and their `rebalance.observed` / `rebalance.resolved` events are written in one
 * transaction. Any replica answers the list, the summary, and the per-pool figures learned grace and the cordon
 * view use.
 */
@Injectable()
export class RebalanceLedgerService {
  private readonly ledgerConfig: LedgerConfig;
  private readonly observedTotal;
  private readonly resolvedTotal;
  private readonly signalsTotal;
  private events: { at: number; view: LedgerEventsView } = { at: Number.NEGATIVE_INFINITY, view: { nodeEvents: [], claimEvents: [], claims: [] } };
  /** Every NodeClaim seen, deleted ones for {@link CLAIM_MEMORY_MS}: name → its ref and when last seen. */
  private readonly claimMemory = new Map<string, { ref: ClaimRef; seenAt: number }>();
  private unattributed = 0;
  private lastNodes = new Map<string, LedgerNode>();
  private readonly goneNodes = new Map<string, { node: LedgerNode; at: number }>();
  private readonly interruptionsTotal;
  private readonly sources = new Map<LedgerSource, { signals: number; lastAt: string | null }>(LEDGER_SOURCES.map((s) => [s, { signals: 0, lastAt: null }]));
  private ec2NotConfiguredUntil = 0;
  private figuresCache?: { at: number; pools: Map<string, RebalanceFigures> };

  constructor(
    @Inject(UNCORDON_CONFIG) private readonly config: UncordonConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(NODE_SOURCE) private readonly source: NodeSource,
    @Inject(NODE_EVENTS) private readonly nodeEvents: KubeNodeEvents,
    @Inject(INSTANCE_STATES) private readonly instances: InstanceStates,
    @Inject(REBALANCE_REPOSITORY) private readonly repo: RebalanceLedgerRepository,
    @Inject(SPOT_INTERRUPTIONS) private readonly interruptions: SpotInterruptionsRepository,
    @Inject(NODE_HOURS) private readonly nodeHours: NodeHours,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    @Inject(METRICS) metrics: Metrics,
    @Inject(HEALTH_REGISTRY) health: HealthRegistry,
  ) {
    // Which of the ledger's sources are live, in /readyz's details (never failing readiness: each source is optional).
    health.register('uncordon.ledger-sources', () => this.sourcesStatus());
    this.ledgerConfig = {
      horizonMs: config.REBALANCE_HORIZON_HOURS * 3_600_000,
      cordonManagers: config.AUTO_UNCORDON_CORDON_MANAGERS,
      ec2WaitMs: config.REBALANCE_EC2_WAIT_SECONDS * 1000,
    };
    this.observedTotal = metrics.counter('nodes_manager_rebalances_observed_total', 'Spot rebalance recommendations entered in the ledger', []);
    this.resolvedTotal = metrics.counter('nodes_manager_rebalances_resolved_total', 'Ledger rows that reached their final outcome, by outcome', ['outcome']);
    this.interruptionsTotal = metrics.counter(
      'nodes_manager_spot_interruptions_total',
      'Spot interruptions recorded, by whether a rebalance recommendation came first (followed) or not (none)',
      ['recommendation'],
    );
    this.signalsTotal = metrics.counter(
      'nodes_manager_rebalance_signals_total',
      'Rebalance and interruption signals entered in the ledger as evidence, by the system they came from (karpenter, nth-imds, nth-queue, nth, ec2) and kind',
      ['source', 'kind'],
    );
  }

  /**
   * pass — one ledger pass over the synced node view (the leader only). The rebalance-ledger controller runs it as
   * its one key: after each auto-uncordon pass, on ledger-relevant node changes, every scan interval, and at the
   * soonest horizon of the rows left open (its answer).
   */
  async pass(): Promise<{ requeueAfterMs?: number }> {
    const nodes = this.source.list().map(ledgerNodeOf);
    const events = await this.currentEvents(nodes);
    const entries = await this.repo.forStep(nodes.map((n) => n.uid));
    const present = new Set(nodes.map((n) => n.uid));
    const goneIds = entries.filter((e) => e.resolvedAt === null && !present.has(e.nodeUid) && e.instanceId).map((e) => e.instanceId!);
    const ec2 = await this.ec2View(goneIds);
    const now = this.clock.now();
    const step = advanceLedger({ entries, nodes, events, ec2, now, config: this.ledgerConfig, newId: randomUUID });
    // The next pass comes at the soonest horizon of the rows left open, if no scan tick or node change comes first.
    const after = new Map(entries.map((e) => [e.id, e]));
    for (const e of [...step.opened, ...step.updated]) after.set(e.id, e);
    const next = untilNextHorizonMs([...after.values()], now, this.ledgerConfig.horizonMs);
    const requeue = next !== undefined ? { requeueAfterMs: next } : {};
    const gone = this.rememberNodes(nodes, now.getTime());
    if (step.opened.length > 0 || step.updated.length > 0) {
      if (!(await this.leader.stillLeader())) return {};
      await this.record(step, now);
    }
    await this.recordInterruptions(nodes, gone, events, [...after.values()], now);
    return requeue;
  }

  /**
   * rememberNodes — the nodes of this view, remembered for {@link GONE_MEMORY_MS} once gone (an interruption Event
   * about a node can arrive after it went, its NodeClaim's too). Returns the nodes gone within that time.
   */
  private rememberNodes(nodes: readonly LedgerNode[], now: number): LedgerNode[] {
    const present = new Set(nodes.map((n) => n.uid));
    for (const [uid, seen] of this.lastNodes) if (!present.has(uid) && !this.goneNodes.has(uid)) this.goneNodes.set(uid, { node: seen, at: now });
    this.lastNodes = new Map(nodes.map((n) => [n.uid, n]));
    for (const [uid, g] of this.goneNodes) if (now - g.at > GONE_MEMORY_MS || present.has(uid)) this.goneNodes.delete(uid);
    return [...this.goneNodes.values()].map((g) => g.node);
  }

  /**
   * recordInterruptions — every Spot interruption not recorded yet (docs/rebalance-ledger.md#interruptions-per-1000-node-hours), with or
   * without a rebalance recommendation before it: the numerator of a pool's interruptions per 1,000 node-hours.
   */
  private async recordInterruptions(nodes: readonly LedgerNode[], gone: readonly LedgerNode[], events: readonly NodeEvent[], ledger: readonly LedgerEntry[], now: Date): Promise<void> {
    const candidates = detectInterruptions({ nodes, gone, events, ledger, recorded: new Set(), now, newId: randomUUID });
    if (candidates.length === 0) return;
    const recorded = await this.interruptions.recorded(candidates.map((c) => c.nodeUid));
    const fresh = candidates.filter((c) => !recorded.has(c.nodeUid));
    if (fresh.length === 0 || !(await this.leader.stillLeader())) return;
    for (const e of await this.interruptions.insert(fresh, now)) {
      this.interruptionsTotal.inc({ service: 'uncordon', recommendation: e.rebalanceId ? 'followed' : 'none' });
      // The evidence of one that followed a rebalance was counted with its ledger row.
      if (!e.rebalanceId) for (const x of e.evidence) if (x.source) this.countSignal(x.source, x.kind, x.at);
      this.logger.info('Spot interruption recorded', { node: e.node, instanceType: e.instanceType, zone: e.zone, interruptedAt: e.interruptedAt.toISOString(), reason: e.source, rebalance: e.rebalanceId ?? 'none seen' });
    }
  }

  private countSignal(source: LedgerSource, kind: string, at: string): void {
    this.signalsTotal.inc({ service: 'uncordon', source, kind });
    const src = this.sources.get(source)!;
    src.signals += 1;
    if (!src.lastAt || at > src.lastAt) src.lastAt = at;
  }

  /**
   * observe — the ledger's rows for one node, on a fresh read of it, before auto-uncordon reverses its cordon: the
   * rebalance the product acts on is recorded whatever pass first saw it (a cordon older than the grace when the
   * service starts, or when a new leader takes over, is uncordoned in that leader's first pass — after it, the node
   * carries no trace of the cordon to open a row from). The same pure rules as a pass, on this node alone; a row
   * already open for this cordon is left as it is. Throws when the row cannot be written: the uncordon waits.
   */
  async observe(node: V1Node): Promise<void> {
    const one = ledgerNodeOf(node);
    const events = (await this.currentEvents([one])).filter((e) => e.node === one.name);
    // This node's rows only: the others are not in this view, and must not read as gone.
    const entries = (await this.repo.forStep([one.uid])).filter((e) => e.nodeUid === one.uid);
    const now = this.clock.now();
    const step = advanceLedger({ entries, nodes: [one], events, ec2: new Map(), now, config: this.ledgerConfig, newId: randomUUID });
    if (step.opened.length === 0) return;
    await this.record({ ...step, updated: [], resolved: step.resolved.filter((e) => step.opened.includes(e)) }, now);
  }

  /** record — new rows, changed rows and their events in one transaction. */
  private async record(step: LedgerStep, now: Date): Promise<void> {
    const resolvedIds = new Set(step.resolved.map((e) => e.id));
    let observed: LedgerEntry[] = [];
    const before = new Map((await this.repo.byIds(step.updated.map((e) => e.id))).map((e) => [e.id, e]));
    await this.repo.record(step.opened, step.updated, now, (inserted) => {
      observed = step.opened.filter((e) => inserted.has(e.id));
      const resolved = step.resolved.filter((e) => !step.opened.includes(e) || inserted.has(e.id));
      return [
        ...observed.map((e) => makeEvent('uncordon', EventTypes.rebalanceObserved, observedData(e), now, { actor: LEDGER_ACTOR, subject: e.node })),
        ...resolved.map((e) => makeEvent('uncordon', EventTypes.rebalanceResolved, viewOf(e), now, { actor: LEDGER_ACTOR, subject: e.node })),
      ];
    });
    this.figuresCache = undefined;
    // Each piece of evidence a source added, counted once: new rows' evidence, and what changed rows gained.
    for (const e of [...observed, ...step.updated]) {
      const had = before.get(e.id)?.evidence ?? [];
      for (const x of e.evidence) {
        if (!x.source || had.some((h) => h.kind === x.kind && h.at === x.at)) continue;
        this.countSignal(x.source, x.kind, x.at);
      }
    }
    for (const e of observed) {
      this.observedTotal.inc({ service: 'uncordon' });
      this.logger.info('rebalance recommendation entered in the ledger', { node: e.node, instanceType: e.instanceType, zone: e.zone, seenAt: e.seenAt.toISOString(), signal: e.seenSignal });
    }
    for (const e of [...step.opened, ...step.updated].filter((x) => resolvedIds.has(x.id))) {
      this.resolvedTotal.inc({ service: 'uncordon', outcome: e.outcome });
      this.logger.info('rebalance resolved', { node: e.node, outcome: e.outcome, reason: e.interruptionSource ?? e.outcome, leadTimeMs: e.leadTimeMs });
    }
  }

  /**
   * currentEvents — the Events the ledger reads about these nodes: NTH's and Karpenter's on the Nodes, and Karpenter's
   * on the NodeClaims attributed to their nodes (a NodeClaim remembered for a day after it went). Re-read from the
   * informers at most once per scan interval (the last good view meanwhile).
   */
  private async currentEvents(nodes: readonly LedgerNode[]): Promise<NodeEvent[]> {
    if (!this.config.REBALANCE_EVENTS_ENABLED) return [];
    const now = this.clock.now().getTime();
    if (now - this.events.at >= this.config.SCAN_INTERVAL_SECONDS * 1000) {
      try {
        this.events = { at: now, view: await this.nodeEvents.view() };
      } catch (err) {
        this.events = { ...this.events, at: now };
        this.logger.warn('could not read Node and NodeClaim Events; using the last view', { err: (err as Error).message });
      }
      for (const c of this.events.view.claims) this.claimMemory.set(c.name, { ref: c, seenAt: now });
      for (const [name, c] of this.claimMemory) if (now - c.seenAt > CLAIM_MEMORY_MS) this.claimMemory.delete(name);
    }
    const claims = [...this.claimMemory.values()].map((c) => c.ref);
    const attributed = attributeClaimEvents(this.events.view.claimEvents, claims, nodes);
    this.unattributed = attributed.unattributed;
    return [...this.events.view.nodeEvents, ...attributed.events];
  }

  /**
   * sourcesStatus — which sources are live, in words, for `/readyz` (never failing it: every source is optional): the
   * Event informers, Karpenter's presence, EC2 through spot-advisor, and per source the signals recorded since start.
   */
  sourcesStatus(): { ok: true; detail: string } {
    const informers = this.config.REBALANCE_EVENTS_ENABLED ? this.nodeEvents.status() : { nodeEvents: 'disabled (REBALANCE_EVENTS_ENABLED=false)', karpenter: 'disabled (REBALANCE_EVENTS_ENABLED=false)' };
    const ec2 = this.clock.now().getTime() < this.ec2NotConfiguredUntil ? 'not configured in spot-advisor' : 'asked through spot-advisor for nodes that went';
    const counts = [...this.sources].map(([s, v]) => `${s} ${v.signals}${v.lastAt ? ` (last ${v.lastAt})` : ''}`).join(', ');
    return {
      ok: true,
      detail: `Node Events (NTH, Karpenter): ${informers.nodeEvents}; Karpenter NodeClaims: ${informers.karpenter}; nodes' taints and cordons: from the node cache; EC2: ${ec2}; signals recorded since start: ${counts}${this.unattributed > 0 ? `; ${this.unattributed} NodeClaim Events with no node known` : ''}`,
    };
  }

  /** sourceCounts — signals recorded per source since start (the counter's values), for the API. */
  sourceCounts(): Record<LedgerSource, SourceState> {
    return Object.fromEntries([...this.sources].map(([s, v]) => [s, { ...v }])) as Record<LedgerSource, SourceState>;
  }

  /** ec2View — EC2's word on gone nodes' instances, through spot-advisor; `not-configured` is remembered for a minute. */
  private async ec2View(instanceIds: readonly string[]): Promise<Ec2View> {
    const now = this.clock.now().getTime();
    if (now < this.ec2NotConfiguredUntil) return 'not-configured';
    if (instanceIds.length === 0) return new Map();
    const answer = await this.instances.states([...new Set(instanceIds)]);
    if (answer.kind === 'not-configured') {
      this.ec2NotConfiguredUntil = now + 60_000;
      return 'not-configured';
    }
    if (answer.kind === 'unavailable') {
      this.logger.debug('EC2 instance states unavailable; gone nodes wait', { reason: answer.detail });
      return new Map();
    }
    // An instance EC2 no longer lists at all is not an answer about why it went.
    return new Map(answer.states.filter((s) => s.state !== 'unknown').map((s): [string, InstanceState] => [s.instanceId, s]));
  }

  /** list — the ledger, newest first, each row with its evidence (open rows' time given back up to now). */
  async list(q: RebalancesListQuery): Promise<{ items: RebalanceView[]; nextCursor?: string }> {
    const page = await this.repo.list(q);
    const now = this.clock.now();
    return { items: page.items.map((e) => viewOf(e, e.resolvedAt ? e.givenBackMs : givenBackMs(e, now, this.ledgerConfig.horizonMs))), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /** summary — the figures per pool and rolled up (default: the last REBALANCE_FIGURES_DAYS). */
  async summary(q: RebalancesSummaryQuery): Promise<RebalancesSummary> {
    const now = this.clock.now();
    const from = q.from ? new Date(q.from) : new Date(now.getTime() - this.config.REBALANCE_FIGURES_DAYS * DAY_MS);
    const rows = await this.repo.since(from, q.to ? new Date(q.to) : undefined);
    return summarise(rows, now, this.ledgerConfig.horizonMs, from);
  }

  /** window — `from`/`to` of a query, the default window being the last REBALANCE_FIGURES_DAYS up to now. */
  private window(q: { from?: string; to?: string }): { from: Date; to: Date } {
    const now = this.clock.now();
    return { from: q.from ? new Date(q.from) : new Date(now.getTime() - this.config.REBALANCE_FIGURES_DAYS * DAY_MS), to: q.to ? new Date(q.to) : now };
  }

  /** interruptionsList — every Spot interruption in the window, oldest first (what steering's pool health reads). */
  async interruptionsList(q: InterruptionsListQuery): Promise<InterruptionsListReply> {
    const { from, to } = this.window(q);
    const page = await this.interruptions.between(from, to, { ...(q.instanceType ? { instanceType: q.instanceType } : {}), ...(q.zone ? { zone: q.zone } : {}) });
    return { from: from.toISOString(), to: to.toISOString(), ...page };
  }

  /**
   * interruptionRates — per Spot pool, interruptions per 1,000 node-hours with the exact Poisson interval: the
   * interruptions here, the node-hours from node-sync (`nodehours.list`). Without node-sync the counts stand, with
   * no rate, and `nodeHours.available` is false with why.
   */
  async interruptionRates(q: InterruptionRatesQuery): Promise<InterruptionRates> {
    const { from, to } = this.window(q);
    const [list, hours] = await Promise.all([this.interruptions.between(from, to), this.nodeHours.spot(from, to)]);
    const figures = interruptionRates(list.items, hours.kind === 'hours' ? hours.pools : null);
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      nodeHours: hours.kind === 'hours' ? { available: true } : { available: false, detail: hours.detail },
      ...figures,
    };
  }

  /** poolFigures — the figures of each pool over the window, cached for one scan interval. */
  async poolFigures(): Promise<Map<string, RebalanceFigures>> {
    const now = this.clock.now().getTime();
    if (this.figuresCache && now - this.figuresCache.at < this.config.SCAN_INTERVAL_SECONDS * 1000) return this.figuresCache.pools;
    const summary = await this.summary({});
    const pools = new Map(summary.byPool.map((p) => [poolKey({ instanceType: p.instanceType ?? '?', zone: p.zone ?? '?' }), p as RebalanceFigures]));
    this.figuresCache = { at: now, pools };
    return pools;
  }

  /** measureOf — the pool of this node as its cordon verdict shows it, with the grace it gets. */
  measureOf(node: V1Node, pools: Map<string, RebalanceFigures>): PoolMeasure {
    const facts = nodeFactsOf(node.metadata?.labels ?? {}, node.spec?.providerID);
    const f = pools.get(poolKey({ instanceType: facts.instanceType ?? '?', zone: facts.zone ?? '?' }));
    return {
      instanceType: facts.instanceType,
      zone: facts.zone,
      samples: f?.samples ?? 0,
      interruptedShare: f?.interruptedShare ?? null,
      interval95: f?.interval95 ?? null,
      p90LeadMinutes: f?.leadTimeMinutes?.p90 ?? null,
      grace: graceFor(this.config.AUTO_UNCORDON_GRACE_MODE as GraceMode, this.config.AUTO_UNCORDON_GRACE_PERIOD_MINUTES, f, this.config.AUTO_UNCORDON_LEARNED_MIN_SAMPLES),
    };
  }
}

const observedData = (e: LedgerEntry): RebalanceObservedData => {
  const v = viewOf(e);
  return {
    id: v.id, node: v.node, nodeUid: v.nodeUid, instanceId: v.instanceId, instanceType: v.instanceType, zone: v.zone, capacityType: v.capacityType,
    nodePool: v.nodePool, seenAt: v.seenAt, seenSignal: v.seenSignal, seenTimeSource: v.seenTimeSource, evidence: v.evidence,
  };
};
