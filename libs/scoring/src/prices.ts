import { instanceType, ON_DEMAND_PRICE_TABLE_REGION, type InstanceTypeSpec } from '@nodes-manager/contracts';
import type { ExpectedCost, MeasuredInterruptions } from './expected-cost.js';
import { type CapacityType, type InterruptionBucket, type PriceTable } from './types.js';
import { poolKey } from '@nodes-manager/contracts';

/** NodePricing — what is known about one node's price; undefined means unknown, never guessed. */
export interface NodePricing {
  /** What the node costs per hour at its capacity type. */
  readonly usdPerHour?: number;
  /** The On-Demand price of the same type in the same zone: the reference a Spot saving is measured against. */
  readonly onDemandUsdPerHour?: number;
  readonly interruptionBucket?: InterruptionBucket;
  /** Spot only: the pool's measurement and expected cost (docs/scoring.md#expected-cost). */
  readonly measured?: MeasuredInterruptions;
  readonly expected?: ExpectedCost;
}

/** regionOfZone — `us-east-1b` → `us-east-1`. */
export function regionOfZone(zone: string): string {
  return zone.replace(/[a-z]$/, '');
}

/**
 * catalogOnDemand — the bundled On-Demand price of a type, only for zones of the region the table covers
 * (the catalog must not be used to invent prices elsewhere).
 */
export function catalogOnDemand(type: string | InstanceTypeSpec | undefined, zone: string): number | undefined {
  const spec = typeof type === 'string' ? instanceType(type) : type;
  if (!spec || regionOfZone(zone) !== ON_DEMAND_PRICE_TABLE_REGION) return undefined;
  return spec.onDemandUsdPerHour;
}

/**
 * pricing — a (type, zone, capacity type)'s price: the table first, the bundled On-Demand catalog as the
 * On-Demand fallback, an explicit node price (`override`) above both.
 */
export function pricing(
  prices: PriceTable | undefined,
  type: string,
  zone: string,
  capacityType: CapacityType,
  override?: number,
): NodePricing {
  const info = prices?.get(poolKey({ instanceType: type, zone }));
  const onDemand = info?.onDemandUsdPerHour ?? catalogOnDemand(type, zone);
  const usd = override ?? (capacityType === 'spot' ? info?.spotUsdPerHour : onDemand);
  return {
    ...(usd !== undefined ? { usdPerHour: usd } : {}),
    ...(onDemand !== undefined ? { onDemandUsdPerHour: onDemand } : {}),
    ...(info?.interruptionBucket !== undefined ? { interruptionBucket: info.interruptionBucket } : {}),
    ...(capacityType === 'spot' && override === undefined && info?.measured ? { measured: info.measured } : {}),
    ...(capacityType === 'spot' && override === undefined && info?.expected ? { expected: info.expected } : {}),
  };
}
