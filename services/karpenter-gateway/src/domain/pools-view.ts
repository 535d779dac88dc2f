import { poolKey } from '@nodes-manager/contracts';
import { expectedCost, type InterruptionBucket } from '@nodes-manager/scoring';

/** StoredPoolHealth — a `nodes.pool_health` row as steering's status gives it (evidence: libs/steering PoolEvidence as JSON). */
export interface StoredPoolHealth {
  instanceType: string;
  zone: string;
  state: 'healthy' | 'watch' | 'avoid';
  since: string | Date;
  reason: string;
  sentence: string;
  evidence: {
    samples?: number;
    interrupted?: number;
    share?: number | null;
    interval95?: [number, number] | null;
    leadTimeMinutes?: { samples: number; median: number; p90: number } | null;
    price?: { spotPerHour: number | null; onDemandPerHour: number | null } | null;
  } | null;
  restoreAt: string | Date | null;
}

/** MarketPool — spot-advisor's price of a pool (`spot.prices`). */
export interface MarketPool {
  spotUsdPerHour?: number;
  onDemandUsdPerHour?: number;
  interruptionBucket?: InterruptionBucket;
}

const iso = (d: string | Date) => new Date(d).toISOString();
const STATE_ORDER = { avoid: 0, watch: 1, healthy: 2 } as const;

/**
 * poolsView — every pool steering knows, with its price and expected cost (price + interruption rate × the cost of
 * one: measured where the pool has `minSamples`, else the Spot Advisor estimate), the countdown to its restore, and
 * its running Spot nodes (`running`, by pool key; null when node-sync did not answer: unknown, not zero).
 * Avoided pools first, then watched, then by expected cost. Pure: `now` is the caller's.
 */
export function poolsView(pools: readonly StoredPoolHealth[], market: ReadonlyMap<string, MarketPool>, now: Date, cfg: { disruptionCostUsd: number; minSamples: number }, running: ReadonlyMap<string, number> | null = null) {
  return pools
    .map((p) => {
      const e = p.evidence ?? {};
      const m = market.get(poolKey(p));
      const spot = e.price?.spotPerHour ?? m?.spotUsdPerHour ?? null;
      const od = e.price?.onDemandPerHour ?? m?.onDemandUsdPerHour ?? null;
      const samples = e.samples ?? 0;
      const interrupted = e.interrupted ?? 0;
      const cost = expectedCost(spot ?? undefined, m?.interruptionBucket, samples > 0 ? { samples, interrupted, share: interrupted / samples } : undefined, cfg);
      const restoreAt = p.state === 'avoid' && p.restoreAt ? new Date(p.restoreAt) : null;
      return {
        instanceType: p.instanceType,
        zone: p.zone,
        state: p.state,
        since: iso(p.since),
        reason: p.reason,
        sentence: p.sentence,
        samples,
        interrupted,
        share: e.share ?? null,
        interval95: e.interval95 ?? null,
        leadTimeMinutes: e.leadTimeMinutes ?? null,
        spotUsdPerHour: spot,
        onDemandUsdPerHour: od,
        expectedUsdPerHour: cost ? Math.round(cost.usdPerHour * 10_000) / 10_000 : null,
        expectedBasis: cost?.basis ?? 'unknown',
        restoreAt: restoreAt?.toISOString() ?? null,
        restoreInSeconds: restoreAt ? Math.max(0, Math.round((restoreAt.getTime() - now.getTime()) / 1000)) : null,
        nodes: running ? (running.get(poolKey(p)) ?? 0) : null,
      };
    })
    .sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || (a.expectedUsdPerHour ?? Infinity) - (b.expectedUsdPerHour ?? Infinity) || poolKey(a).localeCompare(poolKey(b)));
}
