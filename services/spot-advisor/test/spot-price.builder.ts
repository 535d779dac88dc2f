import type { SpotPriceSample } from '../src/domain/spot-price.js';

export const NOW = new Date('2026-03-10T12:00:00Z');
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** aSample — one Spot price sample; defaults: m5.large in us-east-1a, Linux/UNIX, $0.04, an hour before NOW. */
export function aSample(over: Partial<SpotPriceSample> & { hoursAgo?: number } = {}): SpotPriceSample {
  const { hoursAgo = 1, ...rest } = over;
  return {
    instanceType: 'm5.large',
    availabilityZone: 'us-east-1a',
    productDescription: 'Linux/UNIX',
    usdPerHour: 0.04,
    timestamp: new Date(NOW.getTime() - hoursAgo * HOUR),
    ...rest,
  };
}

/** priceSteps — samples at the given hours before NOW with the given prices: `priceSteps([[240, 0.04], [3, 0.05]])`. */
export function priceSteps(steps: readonly (readonly [hoursAgo: number, usd: number])[], over: Partial<SpotPriceSample> = {}): SpotPriceSample[] {
  return steps.map(([hoursAgo, usdPerHour]) => aSample({ ...over, hoursAgo, usdPerHour }));
}

/**
 * alternating — a price flipping between `last` and `other` every `everyHours`, from `days` before NOW up to NOW,
 * ending on `last` at NOW: each price holds for exactly half the window.
 */
export function alternating(opts: { everyHours: number; days: number; last: number; other: number }, over: Partial<SpotPriceSample> = {}): SpotPriceSample[] {
  const n = (opts.days * 24) / opts.everyHours;
  return Array.from({ length: n + 1 }, (_, k) => aSample({ ...over, hoursAgo: k * opts.everyHours, usdPerHour: k % 2 === 0 ? opts.last : opts.other }));
}
