import { INSTANCE_TYPES, type InstanceTypeSpec } from '@nodes-manager/contracts';

/**
 * Deterministic Spot price series for the EC2 simulator.
 *
 * Every (instance type, zone, product) series is a pure function of the seed and of time, anchored at the Unix
 * epoch, so the same instant always has the same price whatever the simulator's clock did before, and pages of
 * one query stay consistent. Time is cut into one-hour slots; in each slot the price changes with a probability
 * set by the type's volatility class (about 2, 4 or 8 changes a day), at a seeded minute, plus one forced change
 * a day so that "the last price before StartTime" is never more than a day back. The price at a change is
 * On-Demand × (base ratio + slow drift + jitter), with the base ratio per series in 0.30–0.62, a drift of a few
 * days' period and a jitter whose size depends on volatility: mostly 30–70% of On-Demand, rarely near it.
 */
export const SLOT_MS = 3_600_000;

export const SPOT_PRODUCT_DESCRIPTIONS = ['Linux/UNIX', 'Windows'] as const;

/** Windows licence surcharge per vCPU-hour, added to the Linux Spot price (an approximation for the simulator). */
const WINDOWS_USD_PER_VCPU_HOUR = 0.046;

export type SpotVolatility = 'low' | 'medium' | 'high';

const VOLATILITY: Record<SpotVolatility, { changeProbability: number; jitter: number; drift: number }> = {
  low: { changeProbability: 2 / 24, jitter: 0.02, drift: 0.03 },
  medium: { changeProbability: 4 / 24, jitter: 0.06, drift: 0.07 },
  high: { changeProbability: 8 / 24, jitter: 0.14, drift: 0.12 },
};

export interface SpotPricePoint {
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly productDescription: string;
  readonly spotPrice: number;
  readonly timestamp: Date;
}

/** hash32 — FNV-1a over the parts, then a murmur3 finaliser: a stable 32-bit seed for a series. */
export function hash32(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const s = `${part}\u0000`;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  }
  return fmix(h);
}

function fmix(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** unit — a uniform number in [0, 1) from a series seed, a slot and a salt. */
function unit(seriesSeed: number, slot: number, salt: number): number {
  const lo = slot >>> 0;
  const hi = Math.floor(slot / 2 ** 32) >>> 0;
  return fmix(seriesSeed ^ Math.imul(lo, 0x9e3779b1) ^ Math.imul(hi + salt, 0x85ebca77) ^ salt) / 2 ** 32;
}

/** volatilityOf — the volatility class of a type: seeded per type; accelerated types are never 'low'. */
export function volatilityOf(spec: InstanceTypeSpec, seed: number): SpotVolatility {
  const u = hash32(seed, 'volatility', spec.name) / 2 ** 32;
  if (spec.gpu > 0) return u < 0.5 ? 'medium' : 'high';
  return u < 0.5 ? 'low' : u < 0.85 ? 'medium' : 'high';
}

interface Series {
  readonly spec: InstanceTypeSpec;
  readonly zone: string;
  readonly seed: number;
  readonly base: number;
  readonly phase: number;
  readonly periodSlots: number;
  readonly forcedSlot: number;
  readonly v: (typeof VOLATILITY)[SpotVolatility];
}

function series(spec: InstanceTypeSpec, zone: string, seed: number): Series {
  const s = hash32(seed, spec.name, zone);
  return {
    spec,
    zone,
    seed: s,
    base: 0.3 + 0.32 * unit(s, 0, 1),
    phase: unit(s, 0, 2) * 2 * Math.PI,
    periodSlots: 72 + Math.floor(unit(s, 0, 3) * 168),
    forcedSlot: Math.floor(unit(s, 0, 4) * 24),
    v: VOLATILITY[volatilityOf(spec, seed)],
  };
}

/** changeAt — when the series changes price within `slot`, or undefined when it keeps its price. */
function changeAt(s: Series, slot: number): number | undefined {
  const forced = ((slot % 24) + 24) % 24 === s.forcedSlot;
  if (!forced && unit(s.seed, slot, 11) >= s.v.changeProbability) return undefined;
  return slot * SLOT_MS + Math.floor(unit(s.seed, slot, 12) * (SLOT_MS - 1000));
}

function linuxPriceAt(s: Series, slot: number): number {
  const drift = s.v.drift * Math.sin(s.phase + (2 * Math.PI * slot) / s.periodSlots);
  const jitter = s.v.jitter * (2 * unit(s.seed, slot, 13) - 1);
  const ratio = Math.min(0.97, Math.max(0.18, s.base + drift + jitter));
  return Math.max(0.0001, Math.round(s.spec.onDemandUsdPerHour * ratio * 1e4) / 1e4);
}

function priceFor(s: Series, slot: number, product: string): number {
  const linux = linuxPriceAt(s, slot);
  return product === 'Windows' ? Math.round((linux + WINDOWS_USD_PER_VCPU_HOUR * s.spec.vcpu) * 1e4) / 1e4 : linux;
}

export interface SpotSeriesQuery {
  readonly instanceTypes?: (name: string) => boolean;
  readonly zones?: (zone: string) => boolean;
  readonly products?: (product: string) => boolean;
  readonly start: Date;
  readonly end: Date;
}

/**
 * spotPriceHistory — every price change in [start, end] of every matching series, plus, like EC2, the last change
 * before `start` (the price in effect at `start`). Newest first; ties by type, zone, product.
 */
export function spotPriceHistory(zones: readonly string[], seed: number, q: SpotSeriesQuery): SpotPricePoint[] {
  const out: SpotPricePoint[] = [];
  const startMs = q.start.getTime();
  const endMs = q.end.getTime();
  if (endMs < startMs) return out;
  const firstSlot = Math.floor(startMs / SLOT_MS);
  const lastSlot = Math.floor(endMs / SLOT_MS);
  const products = SPOT_PRODUCT_DESCRIPTIONS.filter((p) => !q.products || q.products(p));
  for (const spec of INSTANCE_TYPES) {
    if (q.instanceTypes && !q.instanceTypes(spec.name)) continue;
    for (const zone of zones) {
      if (q.zones && !q.zones(zone)) continue;
      const s = series(spec, zone, seed);
      const changes: { slot: number; at: number }[] = [];
      for (let slot = firstSlot; slot <= lastSlot; slot++) {
        const at = changeAt(s, slot);
        if (at !== undefined && at >= startMs && at <= endMs) changes.push({ slot, at });
      }
      // The price in effect at `start`: the latest change strictly before it (at most a day back, see above).
      for (let slot = firstSlot; slot >= firstSlot - 25; slot--) {
        const at = changeAt(s, slot);
        if (at !== undefined && at < startMs) {
          changes.push({ slot, at });
          break;
        }
      }
      for (const c of changes) {
        for (const product of products) {
          out.push({
            instanceType: spec.name,
            availabilityZone: zone,
            productDescription: product,
            spotPrice: priceFor(s, c.slot, product),
            timestamp: new Date(c.at),
          });
        }
      }
    }
  }
  out.sort(
    (a, b) =>
      b.timestamp.getTime() - a.timestamp.getTime() ||
      a.instanceType.localeCompare(b.instanceType) ||
      a.availabilityZone.localeCompare(b.availabilityZone) ||
      a.productDescription.localeCompare(b.productDescription),
  );
  return out;
}

/** zonesOf — the simulator's Availability Zones of a region: `<region>a`, `b`, `c`. */
export function zonesOf(region: string): string[] {
  return ['a', 'b', 'c'].map((s) => `${region}${s}`);
}
