import { INSTANCE_TYPES, ON_DEMAND_PRICE_TABLE_REGION } from '@nodes-manager/contracts';
import { estimateInterruption, type InterruptionEstimate } from './estimate-interruption.js';
import { windowStats, type InterruptionBucket, type SpotPriceSample } from './spot-price.js';

/** OnDemandTable — On-Demand USD/hour by instance type, for one region. A missing type is unknown, not zero. */
export type OnDemandTable = ReadonlyMap<string, number>;

/**
 * onDemandTableFor — the bundled catalog's On-Demand prices when `region` is the region the catalog was priced
 * in, else an empty table: prices elsewhere differ and we do not invent them.
 */
export function onDemandTableFor(region: string): OnDemandTable {
  if (region !== ON_DEMAND_PRICE_TABLE_REGION) return new Map();
  return new Map(INSTANCE_TYPES.map((t) => [t.name, t.onDemandUsdPerHour]));
}

export type TrendDirection = 'rising' | 'falling' | 'flat';

export interface MarketWindow {
  readonly windowMs: number;
  /** A change smaller than this, in percent either way, is `flat`. Default 2. */
  readonly flatThresholdPct?: number;
  /** Only samples of this product count; samples without a product description always do. Default `Linux/UNIX`. */
  readonly productDescription?: string;
  /** Spot Advisor snapshot bucket per type (see spot-advisor-snapshot.ts); omit to estimate from prices alone. */
  readonly advisorBucket?: (instanceType: string) => InterruptionBucket | undefined;
}

/** MarketEntry — one Spot pool (instance type × zone) as the market endpoint shows it. */
export interface MarketEntry {
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly spotUsdPerHour: number;
  readonly spotPriceSince: Date;
  readonly onDemandUsdPerHour: number | null;
  readonly onDemandKnown: boolean;
  /** (1 − spot / On-Demand) × 100, one decimal; null when On-Demand is unknown. */
  readonly savingsPct: number | null;
  readonly trend: { readonly direction: TrendDirection; readonly changePct: number; readonly fromUsdPerHour: number };
  readonly interruption: InterruptionEstimate;
}

export const DEFAULT_FLAT_THRESHOLD_PCT = 2;

/**
 * summariseMarket — per (instance type, zone), the current Spot price, On-Demand (null and `onDemandKnown: false`
 * when the table lacks the type), saving, the trend from the price in effect at the window's start to now
 * (`flat` within ±flatThresholdPct), and the interruption estimate. Pools with no price at or before `now` are
 * left out. Sorted by type, then zone.
 */
export function summariseMarket(
  samples: readonly SpotPriceSample[],
  onDemandTable: OnDemandTable,
  now: Date,
  window: MarketWindow,
): MarketEntry[] {
  const product = window.productDescription ?? 'Linux/UNIX';
  const flat = window.flatThresholdPct ?? DEFAULT_FLAT_THRESHOLD_PCT;
  const pools = new Map<string, SpotPriceSample[]>();
  for (const s of samples) {
    if (s.productDescription !== undefined && s.productDescription !== product) continue;
    const key = `${s.instanceType}\u0000${s.availabilityZone}`;
    let list = pools.get(key);
    if (!list) pools.set(key, (list = []));
    list.push(s);
  }
  const out: MarketEntry[] = [];
  for (const list of pools.values()) {
    const { instanceType, availabilityZone } = list[0]!;
    const stats = windowStats(list, now, window.windowMs);
    if (!stats) continue;
    const onDemand = onDemandTable.get(instanceType);
    const changePct = stats.startUsdPerHour > 0 ? round1(((stats.currentUsdPerHour - stats.startUsdPerHour) / stats.startUsdPerHour) * 100) : 0;
    const advisorBucket = window.advisorBucket?.(instanceType);
    out.push({
      instanceType,
      availabilityZone,
      spotUsdPerHour: stats.currentUsdPerHour,
      spotPriceSince: stats.currentSince,
      onDemandUsdPerHour: onDemand ?? null,
      onDemandKnown: onDemand !== undefined,
      savingsPct: onDemand !== undefined && onDemand > 0 ? round1((1 - stats.currentUsdPerHour / onDemand) * 100) : null,
      trend: {
        direction: Math.abs(changePct) < flat ? 'flat' : changePct > 0 ? 'rising' : 'falling',
        changePct,
        fromUsdPerHour: stats.startUsdPerHour,
      },
      interruption: estimateInterruption(list, onDemand, now, {
        windowMs: window.windowMs,
        ...(advisorBucket !== undefined ? { advisorBucket } : {}),
      }),
    });
  }
  return out.sort((a, b) => a.instanceType.localeCompare(b.instanceType) || a.availabilityZone.localeCompare(b.availabilityZone));
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
