import type { InstanceTypeFacts } from '@nodes-manager/contracts';
import { ON_DEMAND_PRICE_TABLE_DATE, ON_DEMAND_PRICE_TABLE_REGION } from '@nodes-manager/contracts';
import type { MarketEntry, OnDemandTable } from './spot-market.js';
import type { InterruptionBucket } from './spot-price.js';

/** RegionMarket — one region's market as fetched once and cached: the summary of every Spot pool. */
export interface RegionMarket {
  readonly region: string;
  readonly windowStart: Date;
  readonly windowEnd: Date;
  readonly samples: number;
  readonly entries: readonly MarketEntry[];
}

/** Freshness — how old the data behind an answer is; `stale` means the last refresh failed and this is older data. */
export interface Freshness {
  readonly fetchedAt: string;
  readonly stale: boolean;
  readonly ageSeconds: number;
  readonly refreshError?: { readonly code?: string; readonly message: string };
}

/** freshnessOf — the cache's view of an entry as the API reports it (whole seconds, rounded down). */
export function freshnessOf(v: {
  fetchedAt: Date;
  ageMs: number;
  stale: boolean;
  refreshError?: { readonly code?: string; readonly message: string };
}): Freshness {
  return {
    fetchedAt: v.fetchedAt.toISOString(),
    stale: v.stale,
    ageSeconds: Math.max(0, Math.floor(v.ageMs / 1000)),
    ...(v.refreshError ? { refreshError: v.refreshError } : {}),
  };
}

export interface PoolFilter {
  readonly instanceTypes?: readonly string[];
  readonly zones?: readonly string[];
}

/** selectPools — the entries of the requested types and zones (all when a list is absent or empty). */
export function selectPools(entries: readonly MarketEntry[], filter: PoolFilter): MarketEntry[] {
  const types = filter.instanceTypes?.length ? new Set(filter.instanceTypes) : undefined;
  const zones = filter.zones?.length ? new Set(filter.zones) : undefined;
  return entries.filter((e) => (!types || types.has(e.instanceType)) && (!zones || zones.has(e.availabilityZone)));
}

/** unmatched — requested types and zones for which the market has no Spot price at all (a typo, or not offered). */
export function unmatched(entries: readonly MarketEntry[], filter: PoolFilter): { instanceTypes: string[]; zones: string[] } {
  const types = new Set(entries.map((e) => e.instanceType));
  const zones = new Set(entries.map((e) => e.availabilityZone));
  return {
    instanceTypes: [...new Set(filter.instanceTypes ?? [])].filter((t) => !types.has(t)),
    zones: [...new Set(filter.zones ?? [])].filter((z) => !zones.has(z)),
  };
}

/** onDemandSource — where On-Demand prices come from, so that `onDemandKnown: false` explains itself. */
export function onDemandSource(region: string): { table: 'bundled-catalog'; pricedRegion: string; date: string; appliesToRegion: boolean } {
  return { table: 'bundled-catalog', pricedRegion: ON_DEMAND_PRICE_TABLE_REGION, date: ON_DEMAND_PRICE_TABLE_DATE, appliesToRegion: region === ON_DEMAND_PRICE_TABLE_REGION };
}

/**
 * PoolPrice — scheduler-scoring's `PriceInfo` (libs/scoring/src/types.ts) for one (type, zone), keyed so that the
 * caller can build its `PriceTable` with libs/contracts `poolKey`. Absent fields are unknown, never zero.
 */
export interface PoolPrice {
  readonly instanceType: string;
  readonly zone: string;
  readonly spotUsdPerHour?: number;
  readonly onDemandUsdPerHour?: number;
  readonly interruptionBucket?: InterruptionBucket;
  /** This cluster's measurement of the pool (rebalances with a known follow-up, how many interrupted, the share). */
  readonly measured?: { readonly samples: number; readonly interrupted: number; readonly share: number };
}

/** poolPrices — the market entries reduced to {@link PoolPrice}s. */
export function poolPrices(entries: readonly MarketEntry[]): PoolPrice[] {
  return entries.map((e) => ({
    instanceType: e.instanceType,
    zone: e.availabilityZone,
    spotUsdPerHour: e.spotUsdPerHour,
    ...(e.onDemandUsdPerHour !== null ? { onDemandUsdPerHour: e.onDemandUsdPerHour } : {}),
    ...(e.interruption.bucket !== null ? { interruptionBucket: e.interruption.bucket } : {}),
    ...measuredOf(e),
  }));
}

/**
 * measuredOf — the pool's measurement in this cluster for scheduler-scoring's expected cost (docs/scoring.md#expected-cost),
 * when the ledger has any follow-up for it; its own minimum of samples decides whether it is used.
 */
function measuredOf(e: MarketEntry): { measured?: { samples: number; interrupted: number; share: number } } {
  const m = (e.interruption as { measured?: { samples: number; interrupted: number; interruptedShare: number | null } | null }).measured;
  if (!m || m.samples <= 0 || m.interruptedShare === null) return {};
  return { measured: { samples: m.samples, interrupted: m.interrupted, share: m.interruptedShare } };
}

export type { InstanceTypeFacts } from '@nodes-manager/contracts';

export interface CatalogEntry extends InstanceTypeFacts {
  readonly onDemandUsdPerHour: number | null;
  readonly onDemandKnown: boolean;
}

/** catalogOf — the requested types (all when none are named), each with its bundled On-Demand price when known; sorted by name. */
export function catalogOf(types: readonly InstanceTypeFacts[], onDemand: OnDemandTable, names?: readonly string[]): CatalogEntry[] {
  const wanted = names?.length ? new Set(names) : undefined;
  return types
    .filter((t) => !wanted || wanted.has(t.name))
    .map((t) => {
      const price = onDemand.get(t.name);
      return { ...t, onDemandUsdPerHour: price ?? null, onDemandKnown: price !== undefined };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}
