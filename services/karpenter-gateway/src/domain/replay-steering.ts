import {
  steerFleet,
  type LedgerRowLike,
  type PoolHealth,
  type PoolHealthConfig,
  type PoolHealthPrevious,
  type PoolPrice,
  type PoolRef,
  type PoolSample,
} from '@nodes-manager/steering';
import { poolKey } from '@nodes-manager/contracts';

/** ReplayRow — a rebalance ledger row as the replay reads it: the sample, the node, and when its outcome was known. */
export interface ReplayRow extends LedgerRowLike {
  node: string;
  resolvedAt: string | Date | null;
}

export interface ReplayInput {
  /** Ledger rows seen from `from − config.windowMs` (the rule's look-back at the window's start) to `to`. */
  rows: readonly ReplayRow[];
  from: Date;
  to: Date;
  /** Prices by pool now (the ledger keeps none): the extra cost is priced at these. */
  prices: ReadonlyMap<string, PoolPrice>;
  config: PoolHealthConfig;
  maxAvoidPerHour: number;
  /** Between two looks at the fleet when nothing happens (cool-offs end between events). */
  stepMs: number;
}

/** AvoidPeriod — one stretch of time a pool would have been avoided, what it would have spared and cost. */
export interface AvoidPeriod {
  pool: PoolRef;
  from: Date;
  /** null: still avoided at the window's end. */
  to: Date | null;
  /** The sentence of the decision that put it in `avoid`. */
  why: string;
  /** Interruptions of the pool while it was avoided. */
  interruptionsAvoided: number;
  /** The pool's nodes seen in the ledger before the entry (its size as far as the ledger shows) × hours avoided. */
  nodeHours: number;
  /** What a node-hour costs more elsewhere: the cheapest Spot pool of the type not avoided, else on-demand; null when unknown. */
  extraUsdPerNodeHour: number | null;
  extraUsd: number | null;
}

export interface SteeringReplay {
  from: Date;
  to: Date;
  pools: number;
  avoided: AvoidPeriod[];
  interruptions: { total: number; avoided: number };
  extraCostUsd: number;
  /** Periods whose extra cost is unknown (no price for the pool or any replacement). */
  unpriced: number;
  sentence: string;
}

const t = (d: Date | string) => new Date(d).getTime();

/**
 * visibleSamples — the samples of a pool as the ledger showed them at `now`: rows seen by then, their outcome only once
 * it was known (`resolvedAt`), an interruption only once it happened. The replay never decides on hindsight.
 */
export function visibleSamples(rows: readonly ReplayRow[], now: number): Map<string, PoolSample[]> {
  const out = new Map<string, PoolSample[]>();
  for (const r of rows) {
    if (!r.instanceType || !r.zone || (r.capacityType && r.capacityType !== 'spot') || t(r.seenAt) > now) continue;
    const interruptedAt = r.interruptedAt && t(r.interruptedAt) <= now ? new Date(r.interruptedAt) : null;
    const known = r.resolvedAt !== null && t(r.resolvedAt) <= now;
    const outcome: PoolSample['outcome'] = r.outcome === 'interrupted' && interruptedAt ? 'interrupted' : known && r.outcome === 'survived' ? 'survived' : 'unknown';
    const key = poolKey({ instanceType: r.instanceType, zone: r.zone });
    const list = out.get(key) ?? [];
    list.push({ seenAt: new Date(r.seenAt), outcome, interruptedAt, leadTimeMs: outcome === 'interrupted' ? r.leadTimeMs : null });
    out.set(key, list);
  }
  return out;
}

/** replacementPrice — per node-hour, the cheapest Spot pool of the same type not avoided, else the pool's on-demand price. */
function replacementPrice(pool: PoolRef, prices: ReadonlyMap<string, PoolPrice>, avoided: ReadonlySet<string>): number | null {
  let best: number | null = null;
  for (const [key, p] of prices) {
    if (!key.startsWith(`${pool.instanceType}/`) || avoided.has(key) || p.spotPerHour === null) continue;
    if (best === null || p.spotPerHour < best) best = p.spotPerHour;
  }
  return best ?? prices.get(poolKey(pool))?.onDemandPerHour ?? null;
}

/**
 * replaySteering — the window replayed through the pool-health rule (and its hourly rail), as if steering had run:
 * at every ledger event and every `stepMs` between, each pool's health from what the ledger showed then. Which pools
 * would have been avoided and when; the interruptions of those pools while avoided (an upper bound of those spared:
 * nodes launched before the entry stay where they are); and the extra cost of the node-hours moved elsewhere
 * (docs/steering.md#the-report). Pure.
 */
export function replaySteering(input: ReplayInput): SteeringReplay {
  const from = t(input.from);
  const to = t(input.to);
  const events = new Set<number>();
  for (const r of input.rows) {
    for (const x of [r.seenAt, r.interruptedAt, r.resolvedAt]) if (x && t(x) > from && t(x) <= to) events.add(t(x));
  }
  for (let x = from; x <= to; x += Math.max(60_000, input.stepMs)) events.add(x);
  events.add(to);
  const times = [...events].sort((a, b) => a - b);

  const previous = new Map<string, PoolHealthPrevious>();
  const recentAvoid: Date[] = [];
  const open = new Map<string, { pool: PoolRef; from: number; why: string }>();
  const periods: Array<{ pool: PoolRef; from: number; to: number | null; why: string }> = [];
  const poolsSeen = new Set<string>();
  for (const now of times) {
    const samples = visibleSamples(input.rows, now);
    for (const k of samples.keys()) poolsSeen.add(k);
    const { health } = steerFleet({
      now: new Date(now),
      samples,
      prices: new Map(),
      previous,
      recentAvoidEntries: recentAvoid.filter((d) => now - d.getTime() < 3_600_000),
      nodePools: [],
      offerings: [],
      config: input.config,
      rails: { maxAvoidPerHour: input.maxAvoidPerHour, maxExcludedShare: 1, keepCheapest: 0 },
    });
    for (const h of health) track(h, now);
  }
  for (const o of open.values()) periods.push({ ...o, to: null });

  function track(h: PoolHealth, now: number) {
    const key = poolKey(h.pool);
    previous.set(key, { state: h.state, since: h.since, basisFrom: h.basisFrom });
    const was = open.get(key);
    if (h.state === 'avoid' && !was) {
      open.set(key, { pool: h.pool, from: now, why: h.sentence });
      recentAvoid.push(new Date(now));
    } else if (h.state !== 'avoid' && was) {
      periods.push({ ...was, to: now });
      open.delete(key);
    }
  }

  const avoidedKeys = new Set(periods.map((p) => poolKey(p.pool)));
  let total = 0;
  for (const r of input.rows) if (r.outcome === 'interrupted' && r.interruptedAt && t(r.interruptedAt) >= from && t(r.interruptedAt) <= to) total += 1;
  const avoided = periods
    .sort((a, b) => a.from - b.from || poolKey(a.pool).localeCompare(poolKey(b.pool)))
    .map((p): AvoidPeriod => {
      const key = poolKey(p.pool);
      const end = p.to ?? to;
      const mine = input.rows.filter((r) => r.instanceType === p.pool.instanceType && r.zone === p.pool.zone);
      const spared = mine.filter((r) => r.outcome === 'interrupted' && r.interruptedAt && t(r.interruptedAt) >= p.from && t(r.interruptedAt) < end).length;
      const nodes = new Set(mine.filter((r) => t(r.seenAt) <= p.from && t(r.seenAt) >= p.from - input.config.windowMs).map((r) => r.node)).size;
      const nodeHours = Math.round((nodes * (end - p.from)) / 36_000) / 100;
      const own = input.prices.get(key)?.spotPerHour ?? null;
      const others = new Set([...avoidedKeys].filter((k) => k !== key));
      others.add(key);
      const alt = replacementPrice(p.pool, input.prices, others);
      const perHour = own === null || alt === null ? null : Math.max(0, alt - own);
      return {
        pool: p.pool,
        from: new Date(p.from),
        to: p.to === null ? null : new Date(p.to),
        why: p.why,
        interruptionsAvoided: spared,
        nodeHours,
        extraUsdPerNodeHour: perHour === null ? null : Math.round(perHour * 10_000) / 10_000,
        extraUsd: perHour === null ? null : Math.round(perHour * nodeHours * 100) / 100,
      };
    });
  const spared = avoided.reduce((s, a) => s + a.interruptionsAvoided, 0);
  const extra = Math.round(avoided.reduce((s, a) => s + (a.extraUsd ?? 0), 0) * 100) / 100;
  const unpriced = avoided.filter((a) => a.extraUsd === null).length;
  const sentence =
    avoided.length === 0
      ? `Over this window no pool would have been avoided: ${total} interruption${total === 1 ? '' : 's'}, none spared, no extra cost.`
      : `${avoided.length} time${avoided.length === 1 ? '' : 's'} a pool would have been avoided (${new Set(avoided.map((a) => poolKey(a.pool))).size} of ${poolsSeen.size} pools): ` +
        `up to ${spared} of ${total} interruptions spared, for about $${extra.toFixed(2)} more` +
        (unpriced > 0 ? ` (${unpriced} period${unpriced === 1 ? '' : 's'} without a known price not counted)` : '') +
        '.';
  return { from: input.from, to: input.to, pools: poolsSeen.size, avoided, interruptions: { total, avoided: spared }, extraCostUsd: extra, unpriced, sentence };
}
