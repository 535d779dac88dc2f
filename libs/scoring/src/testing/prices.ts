import type { InstanceTypeSpec } from '@nodes-manager/contracts';
import { type InterruptionBucket, type PriceInfo } from '../types.js';
import { poolKey } from '@nodes-manager/contracts';

/** mulberry32 — a small seeded PRNG for generated test inputs (same seed, same fleet). */
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

const BUCKETS: InterruptionBucket[] = ['<5%', '5-10%', '10-15%', '15-20%', '>20%'];

/** priceTable — On-Demand from the catalog, Spot at 28–48% of it, a bucket per (type, zone); seeded. */
export function priceTable(catalog: readonly InstanceTypeSpec[], zones: readonly string[], seed = 1): Map<string, PriceInfo> {
  const rnd = mulberry32(seed);
  const m = new Map<string, PriceInfo>();
  for (const spec of catalog) {
    for (const zone of zones) {
      m.set(poolKey({ instanceType: spec.name, zone }), {
        onDemandUsdPerHour: spec.onDemandUsdPerHour,
        spotUsdPerHour: Math.round(spec.onDemandUsdPerHour * (0.28 + 0.2 * rnd()) * 1e4) / 1e4,
        interruptionBucket: BUCKETS[Math.floor(rnd() * BUCKETS.length)]!,
      });
    }
  }
  return m;
}
