/**
 * Longer than 500 lines: one simulation loop whose steps share its state (nodes, ledger, exposure, NodePools); split,
 * each piece would take a dozen of its variables.
 *
 * The steering playout: a simulated Spot fleet over weeks, in 10-minute ticks, driven by the real pure functions —
 * `steerFleet` (the pool-health rule, its rails and the NodePool edit planner of @nodes-manager/steering) and `admits`
 * (what a NodePool's requirements let Karpenter launch). Everything else is the model (docs/steering.md#figures):
 *
 * - pools (instance type × zone) each with an interruption rate per node-hour (from a follow-up share p:
 *   p / (1 − p) × 1/96 h, so that with one unfollowed recommendation per node every 4 days the share of
 *   recommendations followed is p); interruptions come in **clustered reclaim events** per pool (each hits each of the
 *   pool's nodes with probability `hitShare`, all within 3 minutes); optional **zone-wide events** hit every pool of a
 *   zone at once; a recommendation comes 5–30 minutes before an interruption with probability `recommendShare`
 *   (the rest come with none), and unfollowed recommendations at `falseAlarmPerNodeHour`;
 * - Karpenter launches into the admitted Spot offerings, picking among the three cheapest, skipping an offering
 *   interrupted within the last 3 minutes (its unavailable-offerings cache); with no Spot offering admitted, the
 *   cheapest on-demand; an interrupted node is replaced at once;
 * - **drift**, as Karpenter v1 does it: a node whose labels the NodePool's requirements no longer admit is drifted
 *   and replaced (launch first, then drain), at most as many per tick as the most restrictive budget that applies to
 *   `Drifted` allows — the default `nodes: 10%`, and steering's own `reasons: [Drifted]` entry while it stands.
 *   Widening drifts nothing. Steering's replacements (drift, and the on-demand nodes it has replaced on the way back
 *   from a fallback) are counted as disruptions of their own kind;
 * - Spot prices step by a few percent now and then (the same steps in both runs);
 * - with steering, every `passEveryTicks`: `steerFleet` on what the ledger and the exposure show, with the NodePools'
 *   running nodes, budgets and recent writes; every planned write applied (approvals automatic).
 *
 * The event streams (reclaim events, which nodes they hit, false alarms, price steps) come from per-pool and per-node
 * generators seeded alike in both runs, so "with" and "without" steering face the same weather.
 */
import {
  admits,
  planAvoidedReplacements,
  catalogueKeys,
  nameLabels,
  steerFleet,
  type DisruptionBudget,
  type FleetRails,
  type Offering,
  type PoolExposure,
  type PoolHealthConfig,
  type PoolHealthPrevious,
  type PoolPrice,
  type PoolSample,
  type Requirement,
  type SteeringRecord,
} from '@nodes-manager/steering';
import { poolKey } from '@nodes-manager/contracts';
import { allowedDrift, driftedOfferings, UNAVAILABLE_OFFERINGS_TTL_MS } from './karpenter-model.js';

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

/** ZoneEvent — a zone-wide reclaim spell: from `day` for `hours`, every pool of the zone has an event every `everyMinutes`. */
export interface ZoneEvent {
  zone: string;
  day: number;
  hours: number;
  everyMinutes: number;
}

export interface PlayoutOptions {
  seed: number;
  days: number;
  tickMs: number;
  passEveryTicks: number;
  pools: PoolSpec[];
  nodePools: NodePoolSpec[];
  falseAlarmPerNodeHour: number;
  /** The share of interruptions a rebalance recommendation comes before (the rest come with none). */
  recommendShare: number;
  hitShare: number;
  zoneEvents: ZoneEvent[];
  /** Chance per pool per day of a Spot price step of ±(2–6)%. */
  priceStepsPerDay: number;
  horizonMs: number;
  config: PoolHealthConfig;
  rails: FleetRails;
  returnPerTick: number;
  /** Nodes of avoided pools steering moves itself per pass, at most (planAvoidedReplacements); 0: none. */
  replaceAvoidedPerPass: number;
  steering: boolean;
  /** The pool that turns bad and recovers (its hours until kept out and until back are measured), if any. */
  turning?: { pool: string; fromDay: number; toDay: number };
}

export interface PlayoutResult {
  steering: boolean;
  spotNodeHours: number;
  onDemandNodeHours: number;
  interruptions: number;
  /** Nodes replaced because of steering: drifted by its writes, or replaced on its way back from on-demand. */
  steeringReplacements: number;
  /** Of the drift replacements, nodes in pools avoided then (moved on purpose). */
  driftOnPurpose: number;
  perThousand: { interruptions: number; steeringReplacements: number; all: number };
  fleetUsdPerHour: number;
  rebalances: number;
  avoidEntries: number;
  /** Entries into `avoid` of pools whose true share was under 25% then. */
  avoidEntriesHealthy: number;
  nodePoolWrites: number;
  writesPerDay: number;
  heldWrites: number;
  launchesIntoAvoided: number;
  fallbacks: number;
  turning: { hoursUntilKeptOut: number | null; hoursUntilBack: number | null } | null;
  byPool: Record<string, { spotNodeHours: number; interruptions: number }>;
  millis: number;
}

interface SimNode {
  id: number;
  nodePool: number;
  pool: string;
  capacityType: 'spot' | 'on-demand';
  launchedAt: number;
  doomedAt: number | null;
  openRow: LedgerRow | null;
  rng: () => number;
}

interface LedgerRow {
  seenAt: number;
  interruptedAt: number | null;
  resolvedAt: number | null;
  outcome: 'open' | 'interrupted' | 'survived' | 'removed';
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-10-01T00:00:00Z');
/** The unfollowed recommendations per node-hour that a pool's share is defined against (one every 4 days). */
const BASE_FALSE_ALARM = 1 / 96;

function stepAt(steps: Array<[number, number]>, day: number): number {
  let s = steps[0]![1];
  for (const [from, v] of steps) if (day >= from) s = v;
  return s;
}

/** playout — one run of the model; deterministic for a seed. */
export function playout(o: PlayoutOptions): PlayoutResult {
  const started = performance.now();
  const pools = new Map<string, PoolSpec>(o.pools.map((p) => [poolKey(p), p]));
  const poolKeys = [...pools.keys()];
  const offerings: Offering[] = o.pools.flatMap((p) => [
    { instanceType: p.instanceType, zone: p.zone, capacityType: 'spot' as const, labels: nameLabels(p.instanceType) },
    { instanceType: p.instanceType, zone: p.zone, capacityType: 'on-demand' as const, labels: nameLabels(p.instanceType) },
  ]);
  const offeringOf = new Map(offerings.map((x) => [`${poolKey(x)}/${x.capacityType}`, x]));
  const keys = catalogueKeys(offerings);
  // Spot prices with steps: the same per-pool stream in both runs.
  const spot = new Map<string, number>(o.pools.map((p) => [poolKey(p), p.spotPerHour]));
  const priceRng = new Map<string, () => number>(o.pools.map((p, i) => [poolKey(p), mulberry32(o.seed * 31 + i + 7)]));
  const odPrice = (k: string) => pools.get(k)!.onDemandPerHour;
  const priceOf = (n: SimNode) => (n.capacityType === 'spot' ? spot.get(n.pool)! : odPrice(n.pool));

  const nodePools = o.nodePools.map((np) => ({
    ...np,
    requirements: np.requirements.map((r): Requirement => ({ ...r, ...(r.values ? { values: [...r.values] } : {}) })),
    record: null as SteeringRecord | null,
    budgets: [] as DisruptionBudget[],
    writes: [] as number[],
    launches: [] as number[],
    fallbackSince: null as number | null,
    returning: null as number | null,
    admitted: [] as Offering[],
    admittedKeys: new Set<string>(),
    driftPending: false,
  }));
  const readmit = (np: (typeof nodePools)[number]) => {
    np.admitted = offerings.filter((x) => admits(np.requirements, x, keys));
    const drifted = driftedOfferings(np.requirements, offerings);
    np.admittedKeys = new Set(offerings.filter((x) => !drifted.has(x)).map((x) => `${poolKey(x)}/${x.capacityType}`));
    np.driftPending = true;
  };
  nodePools.forEach(readmit);
  const poolRng = new Map<string, () => number>(o.pools.map((p, i) => [poolKey(p), mulberry32(o.seed * 1000 + i + 1)]));
  const zoneRng = mulberry32(o.seed * 4243 + 5);
  const launchRng = mulberry32(o.seed * 7919 + 1);
  const unavailableUntil = new Map<string, number>();
  const rowsByPool = new Map<string, LedgerRow[]>();
  const interruptionsByPool = new Map<string, number[]>(poolKeys.map((k) => [k, []]));
  const hours = Math.ceil((o.days * DAY) / HOUR);
  const nodeHoursByPool = new Map(poolKeys.map((k) => [k, new Float64Array(hours + 1)]));
  let nextId = 0;
  let rebalances = 0;
  const nodes = new Map<number, SimNode>();
  const health = new Map<string, PoolHealthPrevious>();
  let launchesIntoAvoided = 0;

  const launch = (npIndex: number, now: number): SimNode => {
    const np = nodePools[npIndex]!;
    const choices = np.admitted;
    const spotChoices = choices.filter((c) => c.capacityType === 'spot' && (unavailableUntil.get(poolKey(c)) ?? 0) <= now);
    let pick: Offering;
    if (spotChoices.length > 0) {
      spotChoices.sort((a, b) => spot.get(poolKey(a))! - spot.get(poolKey(b))!);
      pick = spotChoices[Math.floor(launchRng() * Math.min(3, spotChoices.length))]!;
    } else {
      const od = choices.filter((c) => c.capacityType === 'on-demand').sort((a, b) => odPrice(poolKey(a)) - odPrice(poolKey(b)));
      pick = od[0] ?? choices[0]!;
    }
    const id = nextId++;
    const n: SimNode = { id, nodePool: npIndex, pool: poolKey(pick), capacityType: pick.capacityType, launchedAt: now, doomedAt: null, openRow: null, rng: mulberry32(o.seed * 104729 + id) };
    if (pick.capacityType === 'spot' && health.get(n.pool)?.state === 'avoid') launchesIntoAvoided += 1;
    np.launches.push(now);
    nodes.set(id, n);
    return n;
  };
  const record = (n: SimNode, now: number) => {
    const row: LedgerRow = { seenAt: now, interruptedAt: null, resolvedAt: null, outcome: 'open' };
    rebalances += 1;
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

  const avoidEntries: number[] = [];
  let avoidEntriesHealthy = 0;
  let spotMs = 0;
  let odMs = 0;
  let usd = 0;
  let interruptions = 0;
  let steeringReplacements = 0;
  let driftOnPurpose = 0;
  let writes = 0;
  let heldWrites = 0;
  let fallbacks = 0;
  let driftLastHour: Array<[number, number]> = [];
  const poolMs = new Map<string, number>();
  const poolInterruptions = new Map<string, number>();
  const end = T0 + o.days * DAY;
  const dtH = o.tickMs / HOUR;
  const turning = o.turning ? { keptOutAt: null as number | null, backAt: null as number | null } : null;
  let tick = 0;

  for (let now = T0; now < end; now += o.tickMs, tick++) {
    const day = (now - T0) / DAY;
    const hourIndex = Math.floor((now - T0) / HOUR);
    // Price steps.
    for (const [key, rng] of priceRng) {
      if (rng() < o.priceStepsPerDay * (o.tickMs / DAY)) {
        const step = (0.02 + rng() * 0.04) * (rng() < 0.5 ? -1 : 1);
        const base = pools.get(key)!.spotPerHour;
        spot.set(key, Math.min(base * 1.15, Math.max(base * 0.85, spot.get(key)! * (1 + step))));
      } else rng();
    }
    // Cost and exposure of the tick; rows whose horizon passed survived.
    const byPool = new Map<string, SimNode[]>();
    for (const n of nodes.values()) {
      usd += priceOf(n) * dtH;
      if (n.capacityType === 'spot') {
        spotMs += o.tickMs;
        poolMs.set(n.pool, (poolMs.get(n.pool) ?? 0) + o.tickMs);
        nodeHoursByPool.get(n.pool)![hourIndex]! += dtH;
        const list = byPool.get(n.pool);
        if (list) list.push(n);
        else byPool.set(n.pool, [n]);
      } else odMs += o.tickMs;
      const r = n.openRow;
      if (r && r.outcome === 'open' && now - r.seenAt >= o.horizonMs) Object.assign(r, { outcome: 'survived', resolvedAt: r.seenAt + o.horizonMs });
    }
    // Reclaim events: per pool at its rate, and zone-wide spells.
    const zoneNow = new Set<string>();
    for (const z of o.zoneEvents) {
      if (day >= z.day && day < z.day + z.hours / 24 && zoneRng() < o.tickMs / (z.everyMinutes * 60_000)) zoneNow.add(z.zone);
    }
    for (const [key, p] of pools) {
      const rng = poolRng.get(key)!;
      const share = stepAt(p.share, day);
      const perNode = (share / (1 - share)) * BASE_FALSE_ALARM;
      const fires = rng() < (perNode / o.hitShare) * dtH || zoneNow.has(p.zone);
      const lead = (5 + rng() * 25) * 60_000;
      if (!fires) continue;
      for (const n of byPool.get(key) ?? []) {
        if (n.doomedAt !== null || n.rng() >= o.hitShare) continue;
        n.doomedAt = now + lead + n.rng() * 3 * 60_000;
        if (n.rng() < o.recommendShare && (!n.openRow || n.openRow.outcome !== 'open')) record(n, now);
      }
    }
    const due: SimNode[] = [];
    for (const n of nodes.values()) {
      if (n.doomedAt !== null) {
        if (n.doomedAt <= now + o.tickMs) due.push(n);
        continue;
      }
      if (n.capacityType !== 'spot') continue;
      if (n.rng() < o.falseAlarmPerNodeHour * dtH && (!n.openRow || n.openRow.outcome !== 'open')) record(n, now);
    }
    for (const n of due) {
      interruptions += 1;
      poolInterruptions.set(n.pool, (poolInterruptions.get(n.pool) ?? 0) + 1);
      const at = n.doomedAt!;
      interruptionsByPool.get(n.pool)!.push(at);
      if (n.openRow && n.openRow.outcome === 'open') Object.assign(n.openRow, { outcome: 'interrupted', interruptedAt: at, resolvedAt: at });
      unavailableUntil.set(n.pool, at + UNAVAILABLE_OFFERINGS_TTL_MS);
      nodes.delete(n.id);
      launch(n.nodePool, at);
    }
    if (!o.steering) continue;

    // Karpenter's drift: nodes the requirements no longer admit are replaced within the budgets for Drifted.
    nodePools.forEach((np, i) => {
      if (!np.driftPending) return;
      const mine = [...nodes.values()].filter((n) => n.nodePool === i);
      const drifted = mine.filter((n) => !np.admittedKeys.has(`${n.pool}/${n.capacityType}`));
      if (drifted.length === 0) {
        np.driftPending = false;
        return;
      }
      const allowed = allowedDrift(np.budgets, mine.length, new Date(now));
      for (const n of drifted.slice(0, allowed)) {
        launch(i, now);
        remove(n, now);
        steeringReplacements += 1;
        if (health.get(n.pool)?.state === 'avoid') driftOnPurpose += 1;
        driftLastHour.push([now, 1]);
      }
    });
    // The way back from on-demand: the optimizer replaces the on-demand nodes launched during a fallback, a few a tick.
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
        steeringReplacements += 1;
      }
    });
    if (turning) {
      const [t, z] = o.turning!.pool.split('/') as [string, string];
      const spotOffer = offeringOf.get(`${t}/${z}/spot`)!;
      const admittedSomewhere = nodePools.some((np) => np.admittedKeys.has(`${poolKey(spotOffer)}/spot`));
      if (turning.keptOutAt === null && day >= o.turning!.fromDay && !admittedSomewhere) turning.keptOutAt = now;
      if (turning.keptOutAt !== null && turning.backAt === null && day >= o.turning!.toDay && admittedSomewhere) turning.backAt = now;
    }
    if (tick % o.passEveryTicks !== 0) continue;

    // Steering: the pass on what the ledger and the exposure show now.
    const windowFrom = now - o.config.windowMs;
    const samples = new Map<string, PoolSample[]>();
    for (const [key, list] of rowsByPool) {
      while (list.length > 0 && list[0]!.seenAt < windowFrom && list[0]!.outcome !== 'open') list.shift();
      const out: PoolSample[] = [];
      for (const r of list) {
        if (r.seenAt < windowFrom) continue;
        const known = r.resolvedAt !== null && r.resolvedAt <= now;
        const outcome = known && r.outcome === 'interrupted' ? 'interrupted' : known && r.outcome === 'survived' ? 'survived' : 'unknown';
        out.push({ seenAt: new Date(r.seenAt), outcome, interruptedAt: outcome === 'interrupted' ? new Date(r.interruptedAt!) : null, leadTimeMs: outcome === 'interrupted' ? r.interruptedAt! - r.seenAt : null });
      }
      samples.set(key, out);
    }
    const exposure = new Map<string, PoolExposure>();
    const firstHour = Math.max(0, Math.floor((windowFrom - T0) / HOUR));
    for (const key of poolKeys) {
      const nh = nodeHoursByPool.get(key)!;
      const buckets: PoolExposure['nodeHours'] extends ReadonlyArray<infer B> ? B[] : never = [];
      for (let h = firstHour; h <= hourIndex; h++) if (nh[h]! > 0) buckets.push({ from: new Date(T0 + h * HOUR), nodeHours: nh[h]! });
      exposure.set(key, { nodeHours: buckets, interruptions: interruptionsByPool.get(key)!.filter((x) => x >= windowFrom && x <= now).map((x) => new Date(x)) });
    }
    const prices = new Map<string, PoolPrice>(poolKeys.map((k) => [k, { spotPerHour: spot.get(k)!, onDemandPerHour: odPrice(k) }]));
    driftLastHour = driftLastHour.filter(([t]) => now - t < HOUR);
    const pass = steerFleet({
      now: new Date(now),
      samples,
      prices,
      previous: health,
      recentAvoidEntries: avoidEntries.filter((d) => now - d < HOUR).map((d) => new Date(d)),
      nodePools: nodePools.map((np, i) => {
        const counts = new Map<string, { instanceType: string; zone: string; capacityType: 'spot' | 'on-demand'; count: number }>();
        for (const n of nodes.values()) {
          if (n.nodePool !== i) continue;
          const k = `${n.pool}/${n.capacityType}`;
          const c = counts.get(k);
          if (c) c.count += 1;
          else {
            const [instanceType, zone] = n.pool.split('/') as [string, string];
            counts.set(k, { instanceType, zone, capacityType: n.capacityType, count: 1 });
          }
        }
        np.launches = np.launches.filter((t) => now - t < DAY);
        return {
          name: np.name,
          requirements: np.requirements,
          record: np.record,
          nodes: [...counts.values()],
          budgets: np.budgets,
          recentWrites: np.writes.filter((t) => now - t < DAY).map((t) => new Date(t)),
          launchesPerDay: np.launches.length,
        };
      }),
      offerings,
      config: o.config,
      rails: o.rails,
      exposure,
      recentDrift: driftLastHour.length,
    });
    for (const h of pass.health) {
      const key = poolKey(h.pool);
      if (h.state === 'avoid' && health.get(key)?.state !== 'avoid') {
        avoidEntries.push(now);
        if (stepAt(pools.get(key)!.share, day) < 0.25) avoidEntriesHealthy += 1;
      }
      health.set(key, { state: h.state, since: h.since, basisFrom: h.basisFrom });
    }
    // Steering's own moves off avoided pools, where the interruptions expected there outnumber the move.
    if (o.replaceAvoidedPerPass > 0) {
      const all = [...nodes.values()];
      const moves = planAvoidedReplacements({
        health: pass.health,
        nodes: [...new Set(all.map((n) => n.pool))].map((k) => ({ instanceType: k.split('/')[0]!, zone: k.split('/')[1]!, capacityType: 'spot' as const, count: all.filter((n) => n.pool === k && n.capacityType === 'spot').length })),
        now: new Date(now),
        maxPerPass: o.replaceAvoidedPerPass,
      });
      for (const m of moves) {
        const victims = all.filter((n) => n.pool === poolKey(m.pool) && n.capacityType === 'spot' && n.doomedAt === null).slice(0, m.replace);
        for (const n of victims) {
          const fresh = launch(n.nodePool, now);
          if (fresh.pool === n.pool) {
            nodes.delete(fresh.id);
            continue;
          }
          remove(n, now);
          steeringReplacements += 1;
          driftOnPurpose += 1;
        }
      }
    }
    pass.plans.forEach((plan, i) => {
      const np = nodePools[i]!;
      if (plan.held) heldWrites += 1;
      if (!plan.write) return;
      writes += 1;
      np.writes.push(now);
      if (plan.fallback && np.fallbackSince === null) fallbacks += 1;
      np.requirements = plan.after;
      if (plan.budgetsAfter) np.budgets = plan.budgetsAfter;
      np.record = { original: plan.original, added: plan.added, applied: plan.after, fallbackSince: plan.fallbackSince, addedBudgets: plan.addedBudgets };
      np.fallbackSince = plan.fallback ? (plan.fallbackSince?.getTime() ?? now) : null;
      if (plan.returnToSpot) np.returning = plan.returnToSpot.fallbackSince?.getTime() ?? 0;
      readmit(np);
    });
  }

  const totalHours = (end - T0) / HOUR;
  const spotH = spotMs / HOUR;
  const per = (x: number) => Math.round((x / spotH) * 1000 * 100) / 100;
  return {
    steering: o.steering,
    spotNodeHours: Math.round(spotH),
    onDemandNodeHours: Math.round(odMs / HOUR),
    interruptions,
    steeringReplacements,
    driftOnPurpose,
    perThousand: { interruptions: per(interruptions), steeringReplacements: per(steeringReplacements), all: per(interruptions + steeringReplacements) },
    fleetUsdPerHour: Math.round((usd / totalHours) * 100) / 100,
    rebalances,
    avoidEntries: avoidEntries.length,
    avoidEntriesHealthy,
    nodePoolWrites: writes,
    writesPerDay: Math.round((writes / o.days) * 10) / 10,
    heldWrites,
    launchesIntoAvoided,
    fallbacks,
    turning: turning
      ? {
          hoursUntilKeptOut: turning.keptOutAt !== null ? Math.round(((turning.keptOutAt - T0) / HOUR - o.turning!.fromDay * 24) * 10) / 10 : null,
          hoursUntilBack: turning.backAt !== null ? Math.round(((turning.backAt - T0) / HOUR - o.turning!.toDay * 24) * 10) / 10 : null,
        }
      : null,
    byPool: Object.fromEntries(poolKeys.sort().map((k) => [k, { spotNodeHours: Math.round((poolMs.get(k) ?? 0) / HOUR), interruptions: poolInterruptions.get(k) ?? 0 }])),
    millis: Math.round(performance.now() - started),
  };
}
