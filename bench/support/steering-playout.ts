/**
 * The steering playout: a simulated Spot fleet over weeks, in 5-minute ticks, driven by the real pure functions —
 * `steerFleet` (the pool-health rule, its hourly rail and the NodePool edit planner of @nodes-manager/steering) and
 * `admitted` (what a NodePool's requirements let Karpenter launch). Everything else is the model below
 * (docs/steering.md#figures):
 *
 * - pools (instance type × zone) each with a follow-up share p: a node gets a rebalance recommendation that nothing
 *   follows at `falseAlarmPerNodeHour`; interruptions come in **clustered reclaim events** per pool (each hits each
 *   of the pool's nodes with probability `hitShare`, all within minutes), at the rate that makes the share of
 *   rebalances followed by an interruption p: per node, interruptions / (interruptions + false alarms) = p;
 * - interrupted nodes get their rebalance recommendation 5–30 minutes before, then are replaced at once;
 * - Karpenter launches into the admitted Spot offerings, picking among the three cheapest (price-capacity-optimized
 *   spreads over a few), skipping a pool interrupted within the last 3 minutes (its unavailable-offerings cache);
 *   with no Spot offering admitted, the cheapest on-demand;
 * - the ledger records each rebalance: `interrupted` when the node is reclaimed within the horizon, `survived` once the
 *   horizon passes, censored when the node goes for another reason;
 * - with steering, every tick: `steerFleet` on what the ledger shows, every planned NodePool edit applied (approvals
 *   automatic), and after a return to Spot the on-demand nodes launched during the fallback replaced by Spot ones,
 *   `returnPerTick` at a time (the optimizer's drains within budgets).
 *
 * The event streams (reclaim events, which nodes they hit, false alarms) come from per-pool and per-node generators
 * seeded alike in both runs, so "with" and "without" steering face the same weather.
 */
import {
  admitted,
  catalogueKeys,
  DEFAULT_POOL_HEALTH_CONFIG,
  nameLabels,
  steerFleet,
  type FleetRails,
  type Offering,
  type PoolHealthConfig,
  type PoolHealthPrevious,
  type PoolPrice,
  type PoolSample,
  type Requirement,
  type SteeringRecord,
} from '@nodes-manager/steering';
import { poolKey } from '@nodes-manager/contracts';

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PoolSpec {
  instanceType: string;
  zone: string;
  spotPerHour: number;
  onDemandPerHour: number;
  /** The follow-up share over time: [fromDay, share] steps, the first from day 0. */
  share: Array<[number, number]>;
}

export interface NodePoolSpec {
  name: string;
  nodes: number;
  requirements: Requirement[];
}

export interface PlayoutOptions {
  seed: number;
  days: number;
  tickMs: number;
  pools: PoolSpec[];
  nodePools: NodePoolSpec[];
  falseAlarmPerNodeHour: number;
  hitShare: number;
  horizonMs: number;
  config: PoolHealthConfig;
  rails: FleetRails;
  returnPerTick: number;
  steering: boolean;
}

export interface PlayoutResult {
  steering: boolean;
  spotNodeHours: number;
  onDemandNodeHours: number;
  interruptions: number;
  interruptionsPer1000SpotNodeHours: number;
  fleetUsdPerHour: number;
  rebalances: number;
  avoidEntries: number;
  nodePoolWrites: number;
  fallbacks: number;
  returnsToSpot: number;
  replacedAfterReturn: number;
  /** The share of rebalances followed by an interruption, as measured over the whole run, per pool. */
  measuredShare: Record<string, number>;
  /** Entries into `avoid` per pool, by burst or by share. */
  avoidEntriesByPool: Record<string, { burst: number; share: number }>;
  /** Per pool: Spot node-hours and interruptions suffered there (where the exposure and the cost went). */
  byPool: Record<string, { spotNodeHours: number; interruptions: number }>;
  /** Per NodePool: hours spent under each set of steering's entries (`NotIn` values joined), the owner's own as `-`. */
  entriesHours: Record<string, Record<string, number>>;
  millis: number;
}

interface SimNode {
  id: number;
  nodePool: number;
  pool: string;
  capacityType: 'spot' | 'on-demand';
  launchedAt: number;
  /** When a reclaim event will take it (with its rebalance already seen), else null. */
  doomedAt: number | null;
  openRow: LedgerRow | null;
  rng: () => number;
}

interface LedgerRow {
  pool: string;
  seenAt: number;
  interruptedAt: number | null;
  /** When the outcome was known (interrupted, survived or censored). */
  resolvedAt: number | null;
  outcome: 'open' | 'interrupted' | 'survived' | 'removed';
}

const HOUR = 3_600_000;
const T0 = Date.parse('2026-10-01T00:00:00Z');

/** shareAt — a pool's follow-up share on a given day. */
function shareAt(p: PoolSpec, day: number): number {
  let s = p.share[0]![1];
  for (const [from, v] of p.share) if (day >= from) s = v;
  return s;
}

/** playout — one run of the model; deterministic for a seed. */
export function playout(o: PlayoutOptions): PlayoutResult {
  const started = performance.now();
  const pools = new Map<string, (typeof o.pools)[number]>(o.pools.map((p) => [poolKey(p), p]));
  const offerings: Offering[] = o.pools.flatMap((p) => [
    { instanceType: p.instanceType, zone: p.zone, capacityType: 'spot' as const, labels: nameLabels(p.instanceType) },
    { instanceType: p.instanceType, zone: p.zone, capacityType: 'on-demand' as const, labels: nameLabels(p.instanceType) },
  ]);
  const keys = catalogueKeys(offerings);
  const prices = new Map<string, PoolPrice>(o.pools.map((p) => [poolKey(p), { spotPerHour: p.spotPerHour, onDemandPerHour: p.onDemandPerHour }]));
  const priceOf = (n: SimNode) => (n.capacityType === 'spot' ? pools.get(n.pool)!.spotPerHour : pools.get(n.pool)!.onDemandPerHour);

  const nodePools = o.nodePools.map((np) => ({ ...np, requirements: np.requirements.map((r): Requirement => ({ ...r, ...(r.values ? { values: [...r.values] } : {}) })), record: null as SteeringRecord | null, fallbackSince: null as number | null, returning: null as number | null }));
  const poolRng = new Map<string, () => number>(o.pools.map((p, i) => [poolKey(p), mulberry32(o.seed * 1000 + i + 1)]));
  const launchRng = mulberry32(o.seed * 7919 + (o.steering ? 1 : 1));
  const unavailableUntil = new Map<string, number>();
  const rows: LedgerRow[] = [];
  const rowsByPool = new Map<string, LedgerRow[]>();
  let nextId = 0;
  const nodes = new Map<number, SimNode>();

  const launch = (np: number, now: number): SimNode => {
    const choices = admitted(nodePools[np]!.requirements, offerings, keys);
    const spot = choices.filter((c) => c.capacityType === 'spot' && (unavailableUntil.get(poolKey(c)) ?? 0) <= now);
    let pick: Offering;
    if (spot.length > 0) {
      spot.sort((a, b) => pools.get(poolKey(a))!.spotPerHour - pools.get(poolKey(b))!.spotPerHour);
      pick = spot[Math.floor(launchRng() * Math.min(3, spot.length))]!;
    } else {
      const od = choices.filter((c) => c.capacityType === 'on-demand');
      od.sort((a, b) => pools.get(poolKey(a))!.onDemandPerHour - pools.get(poolKey(b))!.onDemandPerHour);
      pick = od[0] ?? choices[0]!;
    }
    const id = nextId++;
    const n: SimNode = { id, nodePool: np, pool: poolKey(pick), capacityType: pick.capacityType, launchedAt: now, doomedAt: null, openRow: null, rng: mulberry32(o.seed * 104729 + id) };
    nodes.set(id, n);
    return n;
  };
  const record = (n: SimNode, now: number) => {
    const row: LedgerRow = { pool: n.pool, seenAt: now, interruptedAt: null, resolvedAt: null, outcome: 'open' };
    rows.push(row);
    let list = rowsByPool.get(n.pool);
    if (!list) rowsByPool.set(n.pool, (list = []));
    list.push(row);
    n.openRow = row;
  };
  const remove = (n: SimNode, now: number) => {
    if (n.openRow && n.openRow.outcome === 'open') Object.assign(n.openRow, { outcome: 'removed', resolvedAt: now });
    nodes.delete(n.id);
  };

  for (let np = 0; np < o.nodePools.length; np++) for (let i = 0; i < o.nodePools[np]!.nodes; i++) launch(np, T0);

  const previous = new Map<string, PoolHealthPrevious>();
  const entriesByPool: Record<string, { burst: number; share: number }> = {};
  const avoidEntries: Date[] = [];
  let spotMs = 0;
  let odMs = 0;
  let usd = 0;
  let interruptions = 0;
  let writes = 0;
  let fallbacks = 0;
  let returns = 0;
  let replaced = 0;
  const poolMs = new Map<string, number>();
  const poolInterruptions = new Map<string, number>();
  const entriesHours: Record<string, Record<string, number>> = {};
  const end = T0 + o.days * 24 * HOUR;
  const dtH = o.tickMs / HOUR;

  for (let now = T0; now < end; now += o.tickMs) {
    const day = (now - T0) / (24 * HOUR);
    // Cost and exposure of the tick.
    for (const n of nodes.values()) {
      usd += priceOf(n) * dtH;
      if (n.capacityType === 'spot') {
        spotMs += o.tickMs;
        poolMs.set(n.pool, (poolMs.get(n.pool) ?? 0) + o.tickMs);
      } else odMs += o.tickMs;
    }
    // Rows whose horizon passed survived.
    for (const n of nodes.values()) {
      const r = n.openRow;
      if (r && r.outcome === 'open' && now - r.seenAt >= o.horizonMs) Object.assign(r, { outcome: 'survived', resolvedAt: r.seenAt + o.horizonMs });
    }
    // Reclaim events per pool: the same stream in both runs, whatever the pool holds.
    const byPool = new Map<string, SimNode[]>();
    for (const n of nodes.values()) if (n.capacityType === 'spot') (byPool.get(n.pool) ?? byPool.set(n.pool, []).get(n.pool)!).push(n);
    for (const [key, p] of pools) {
      const rng = poolRng.get(key)!;
      const share = shareAt(p, day);
      const perNode = (share / (1 - share)) * o.falseAlarmPerNodeHour;
      const eventRate = perNode / o.hitShare;
      const fires = rng() < eventRate * dtH;
      const lead = (5 + rng() * 25) * 60_000;
      if (!fires) continue;
      for (const n of byPool.get(key) ?? []) {
        if (n.doomedAt !== null || n.rng() >= o.hitShare) continue;
        n.doomedAt = now + lead + n.rng() * 3 * 60_000;
        if (!n.openRow || n.openRow.outcome !== 'open') record(n, now);
      }
    }
    // False alarms.
    for (const n of nodes.values()) {
      if (n.capacityType !== 'spot' || n.doomedAt !== null) continue;
      if (n.rng() < o.falseAlarmPerNodeHour * dtH && (!n.openRow || n.openRow.outcome !== 'open')) record(n, now);
    }
    // Interruptions due: the node goes, its replacement is launched at once.
    for (const n of [...nodes.values()]) {
      if (n.doomedAt === null || n.doomedAt > now + o.tickMs) continue;
      interruptions += 1;
      poolInterruptions.set(n.pool, (poolInterruptions.get(n.pool) ?? 0) + 1);
      if (n.openRow && n.openRow.outcome === 'open') Object.assign(n.openRow, { outcome: 'interrupted', interruptedAt: n.doomedAt, resolvedAt: n.doomedAt });
      unavailableUntil.set(n.pool, n.doomedAt + 3 * 60_000);
      nodes.delete(n.id);
      launch(n.nodePool, n.doomedAt);
    }
    if (!o.steering) continue;
    for (const np of nodePools) {
      const label = (np.record?.added ?? []).map((r) => `${r.key.split('/')[1]} ${r.operator} ${(r.values ?? []).join(',')}`).join('; ') || '-';
      const h = (entriesHours[np.name] ??= {});
      h[label] = (h[label] ?? 0) + dtH;
    }

    // Steering: the pass on what the ledger shows now.
    const samples = new Map<string, PoolSample[]>();
    for (const [key, list] of rowsByPool) {
      const out: PoolSample[] = [];
      for (const r of list) {
        if (r.seenAt < now - o.config.windowMs) continue;
        const known = r.resolvedAt !== null && r.resolvedAt <= now;
        const outcome = known && r.outcome === 'interrupted' ? 'interrupted' : known && r.outcome === 'survived' ? 'survived' : 'unknown';
        out.push({ seenAt: new Date(r.seenAt), outcome, interruptedAt: outcome === 'interrupted' ? new Date(r.interruptedAt!) : null, leadTimeMs: outcome === 'interrupted' ? r.interruptedAt! - r.seenAt : null });
      }
      samples.set(key, out);
    }
    const pass = steerFleet({
      now: new Date(now),
      samples,
      prices,
      previous,
      recentAvoidEntries: avoidEntries.filter((d) => now - d.getTime() < HOUR),
      nodePools: nodePools.map((np) => ({ name: np.name, requirements: np.requirements, record: np.record })),
      offerings,
      config: o.config,
      rails: o.rails,
    });
    for (const h of pass.health) {
      const key = poolKey(h.pool);
      if (h.state === 'avoid' && previous.get(key)?.state !== 'avoid') {
        avoidEntries.push(new Date(now));
        const why = h.reason === 'burst' ? 'burst' : 'share';
        entriesByPool[key] = { ...(entriesByPool[key] ?? { burst: 0, share: 0 }), [why]: (entriesByPool[key]?.[why] ?? 0) + 1 };
      }
      previous.set(key, { state: h.state, since: h.since, basisFrom: h.basisFrom });
    }
    pass.plans.forEach((plan, i) => {
      const np = nodePools[i]!;
      if (plan.write) {
        writes += 1;
        if (plan.fallback && np.fallbackSince === null) fallbacks += 1;
        np.requirements = plan.after;
        np.record = { original: plan.original, added: plan.added, applied: plan.after, fallbackSince: plan.fallbackSince };
        np.fallbackSince = plan.fallback ? (plan.fallbackSince?.getTime() ?? now) : null;
      }
      if (plan.returnToSpot) {
        returns += 1;
        np.returning = plan.returnToSpot.fallbackSince?.getTime() ?? 0;
      }
    });
    // The way back: on-demand nodes launched during a fallback replaced by Spot, a few per tick.
    nodePools.forEach((np, i) => {
      if (np.returning === null) return;
      const odNodes = [...nodes.values()].filter((n) => n.nodePool === i && n.capacityType === 'on-demand' && n.launchedAt >= np.returning!);
      if (odNodes.length === 0) {
        np.returning = null;
        return;
      }
      for (const n of odNodes.slice(0, o.returnPerTick)) {
        const fresh = launch(i, now);
        if (fresh.capacityType !== 'spot') {
          nodes.delete(fresh.id);
          np.returning = null;
          break;
        }
        remove(n, now);
        replaced += 1;
      }
    });
  }

  const measuredShare: Record<string, number> = {};
  for (const [key, list] of rowsByPool) {
    const k = list.filter((r) => r.outcome === 'interrupted').length;
    const n = k + list.filter((r) => r.outcome === 'survived').length;
    if (n > 0) measuredShare[key] = Math.round((k / n) * 1000) / 1000;
  }
  const hours = (end - T0) / HOUR;
  return {
    steering: o.steering,
    spotNodeHours: Math.round(spotMs / HOUR),
    onDemandNodeHours: Math.round(odMs / HOUR),
    interruptions,
    interruptionsPer1000SpotNodeHours: Math.round((interruptions / (spotMs / HOUR)) * 1000 * 100) / 100,
    fleetUsdPerHour: Math.round((usd / hours) * 100) / 100,
    rebalances: rows.length,
    avoidEntries: avoidEntries.length,
    nodePoolWrites: writes,
    fallbacks,
    returnsToSpot: returns,
    replacedAfterReturn: replaced,
    measuredShare,
    avoidEntriesByPool: entriesByPool,
    entriesHours: Object.fromEntries(Object.entries(entriesHours).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).sort((a, b) => b[1] - a[1]).map(([l, h]) => [l, Math.round(h)]))])),
    byPool: Object.fromEntries([...pools.keys()].sort().map((k) => [k, { spotNodeHours: Math.round((poolMs.get(k) ?? 0) / HOUR), interruptions: poolInterruptions.get(k) ?? 0 }])),
    millis: Math.round(performance.now() - started),
  };
}

export const DEFAULTS = { config: DEFAULT_POOL_HEALTH_CONFIG };
