import { planNodePoolEdit, type NodePoolEditInput, type NodePoolEditPlan, type PoolHealthView, type SteeringRecord } from './nodepool-edit.js';
import type { PoolHealthConfig } from './pool-health-config.js';
import { rateRuleOf } from './pool-health-config.js';
import { decidePoolHealth, type PoolHealth, type PoolHealthPrevious, type PoolPrice, type PoolSample } from './pool-health.js';
import { nodeHoursFrom, type PoolExposure, type RateBaseline } from './pool-rate.js';
import { limitAvoidEntries } from './rails.js';
import { type Offering, type Requirement } from './requirements.js';
import { poolKey, poolOfKey } from '@nodes-manager/contracts';

/** FleetRails — the rails of a steering pass (docs/steering.md#the-rails). */
export interface FleetRails {
  maxAvoidPerHour: number;
  maxExcludedShare: number;
  /** The cheapest Spot offerings of a NodePool that are not avoided, kept whatever is avoided (SteeringRails.keepCheapest). */
  keepCheapest: number;
  /** SteeringRails.maxWritesPerDay, .priceHysteresis, .maxDriftPerNodePool, .maxFallbackExtraPerHour (optional). */
  maxWritesPerDay?: number;
  priceHysteresis?: number;
  maxDriftPerNodePool?: number;
  maxDriftPerHour?: number;
  maxFallbackExtraPerHour?: number;
  driftBudgetNodes?: string | null;
}

export interface FleetSteeringInput {
  now: Date;
  /** Ledger samples by pool (`instanceType/zone`). */
  samples: ReadonlyMap<string, readonly PoolSample[]>;
  prices: ReadonlyMap<string, PoolPrice>;
  previous: ReadonlyMap<string, PoolHealthPrevious>;
  /** When pools entered `avoid` lately (the hourly rail counts those of the last hour). */
  recentAvoidEntries: readonly Date[];
  nodePools: ReadonlyArray<{
    name: string;
    requirements: readonly Requirement[];
    record: SteeringRecord | null;
    /** NodePoolEditInput's optional fields: running nodes, budgets, recent writes, launches, fallback approval. */
    nodes?: NodePoolEditInput['nodes'];
    budgets?: NodePoolEditInput['budgets'];
    recentWrites?: NodePoolEditInput['recentWrites'];
    launchesPerDay?: number;
    fallbackApproved?: boolean;
  }>;
  /** Per pool (`instanceType/zone`): node-hours and every interruption — with it pools are judged by their rate (docs/steering.md#the-rate). */
  exposure?: ReadonlyMap<string, PoolExposure>;
  /** Nodes steering's writes drifted in the last hour, fleet-wide (the hourly drift rail counts them). */
  recentDrift?: number;
  offerings: readonly Offering[];
  config: PoolHealthConfig;
  rails: FleetRails;
}

export interface FleetSteering {
  health: PoolHealth[];
  plans: NodePoolEditPlan[];
}

/**
 * steerFleet — one steering pass, pure: every pool's health (each pool the ledger, the prices or a previous
 * decision knows), the hourly rail on `avoid`, then every NodePool's edit on that health. What the service then
 * does with it — nothing (`off`), record it (`plan`), or write it through approvals (`execute`) — is not decided here.
 */
export function steerFleet(input: FleetSteeringInput): FleetSteering {
  const keys = new Set([...input.samples.keys(), ...input.prices.keys(), ...input.previous.keys(), ...(input.exposure?.keys() ?? [])]);
  const baselines = input.exposure ? fleetBaselines(input.exposure, input.now, input.config) : null;
  const decided = [...keys].sort().map((key) => {
    const { instanceType, zone } = poolOfKey(key);
    const exposure = input.exposure ? (input.exposure.get(key) ?? { nodeHours: [], interruptions: [] }) : null;
    return decidePoolHealth(
      { pool: { instanceType, zone }, samples: input.samples.get(key) ?? [], price: input.prices.get(key) ?? null, previous: input.previous.get(key) ?? null, now: input.now, exposure, fleet: baselines ? baselines(key) : null },
      input.config,
    );
  });
  const health = limitAvoidEntries(decided, input.previous, input.recentAvoidEntries, input.now, input.rails.maxAvoidPerHour);
  const view = healthViewOf(health, input.prices);
  const { maxAvoidPerHour: _, maxDriftPerHour, ...rails } = input.rails;
  let driftLeft = maxDriftPerHour !== undefined ? Math.max(0, maxDriftPerHour - (input.recentDrift ?? 0)) : undefined;
  const plans = input.nodePools.map((np) => {
    const plan = planNodePoolEdit({
      nodePool: np.name,
      requirements: np.requirements,
      record: np.record,
      offerings: input.offerings,
      health: view,
      rails: { ...rails, ...(driftLeft !== undefined ? { driftLeft } : {}) },
      now: input.now,
      ...(np.nodes ? { nodes: np.nodes } : {}),
      ...(np.budgets !== undefined ? { budgets: np.budgets } : {}),
      ...(np.recentWrites ? { recentWrites: np.recentWrites } : {}),
      ...(np.launchesPerDay !== undefined ? { launchesPerDay: np.launchesPerDay } : {}),
      ...(np.fallbackApproved !== undefined ? { fallbackApproved: np.fallbackApproved } : {}),
    });
    if (driftLeft !== undefined && plan.write && plan.drift) driftLeft = Math.max(0, driftLeft - plan.drift.total);
    return plan;
  });
  return { health, plans };
}

/**
 * fleetBaselines — for each pool, the fleet's other pools over the window and the recent window: node-hours and
 * interruptions, totals minus the pool's own (what decidePoolHealth compares a pool's rate with).
 */
export function fleetBaselines(exposure: ReadonlyMap<string, PoolExposure>, now: Date, config: PoolHealthConfig): (key: string) => RateBaseline {
  const t = now.getTime();
  const from = t - config.windowMs;
  const recentFrom = t - rateRuleOf(config).recentWindowMs;
  const per = new Map<string, RateBaseline>();
  const total: RateBaseline = { nodeHours: 0, interruptions: 0, recentNodeHours: 0, recentInterruptions: 0 };
  for (const [key, ex] of exposure) {
    const times = ex.interruptions.map((d) => d.getTime());
    const own: RateBaseline = {
      nodeHours: nodeHoursFrom(ex, from, t),
      interruptions: times.filter((x) => x >= from && x <= t).length,
      recentNodeHours: nodeHoursFrom(ex, recentFrom, t),
      recentInterruptions: times.filter((x) => x >= recentFrom && x <= t).length,
    };
    per.set(key, own);
    total.nodeHours += own.nodeHours;
    total.interruptions += own.interruptions;
    total.recentNodeHours += own.recentNodeHours;
    total.recentInterruptions += own.recentInterruptions;
  }
  return (key) => {
    const own = per.get(key) ?? { nodeHours: 0, interruptions: 0, recentNodeHours: 0, recentInterruptions: 0 };
    return {
      nodeHours: total.nodeHours - own.nodeHours,
      interruptions: total.interruptions - own.interruptions,
      recentNodeHours: total.recentNodeHours - own.recentNodeHours,
      recentInterruptions: total.recentInterruptions - own.recentInterruptions,
    };
  };
}

/** RISKY_REASONS — a pool not avoided but whose own figures say it may be bad: the cheapest-prices rail does not keep it. */
const RISKY_REASONS = new Set(['rate-above-watch', 'share-above-watch', 'share-unclear', 'avoid-rate-rail', 'probation']);

/**
 * healthViewOf — what the NodePool planner reads of each pool: its state, share and Spot price (the price the decision
 * read, else the one in `prices`). Every caller of planNodePoolEdit builds its view here, so that a plan made again
 * before a write (or an approval carried out) sees the same prices as the pass that made it.
 */
export function healthViewOf(health: readonly PoolHealth[], prices: ReadonlyMap<string, PoolPrice> = new Map()): Map<string, PoolHealthView> {
  return new Map(
    health.map((h) => {
      const key = poolKey(h.pool);
      const view: PoolHealthView = { state: h.state, share: h.evidence.share, spotPerHour: h.evidence.price?.spotPerHour ?? prices.get(key)?.spotPerHour ?? null, onDemandPerHour: h.evidence.price?.onDemandPerHour ?? prices.get(key)?.onDemandPerHour ?? null };
      if (h.state === 'watch' && RISKY_REASONS.has(h.reason)) view.risky = true;
      if (h.evidence.rate?.window.per1000 != null) view.ratePer1000 = h.evidence.rate.window.per1000;
      return [key, view];
    }),
  );
}

/** LedgerRowLike — the fields of a rebalance ledger row (`rebalances.list`) a sample is made of. */
export interface LedgerRowLike {
  instanceType: string | null;
  zone: string | null;
  capacityType?: string | null;
  seenAt: string | Date;
  outcome: string;
  interruptedAt: string | Date | null;
  leadTimeMs: number | null;
}

/**
 * samplesFromLedger — ledger rows grouped into samples by pool: `interrupted` and `survived` as they are, every
 * other outcome (still open, `removed`) `unknown`. Rows without a type or zone, or of on-demand nodes, are left out.
 */
export function samplesFromLedger(rows: readonly LedgerRowLike[]): Map<string, PoolSample[]> {
  const out = new Map<string, PoolSample[]>();
  for (const r of rows) {
    if (!r.instanceType || !r.zone || (r.capacityType && r.capacityType !== 'spot')) continue;
    const key = poolKey({ instanceType: r.instanceType, zone: r.zone });
    const sample: PoolSample = {
      seenAt: new Date(r.seenAt),
      outcome: r.outcome === 'interrupted' ? 'interrupted' : r.outcome === 'survived' ? 'survived' : 'unknown',
      interruptedAt: r.interruptedAt ? new Date(r.interruptedAt) : null,
      leadTimeMs: r.leadTimeMs,
    };
    const list = out.get(key);
    if (list) list.push(sample);
    else out.set(key, [sample]);
  }
  return out;
}
