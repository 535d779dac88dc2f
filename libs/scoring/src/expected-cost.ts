import { HOURS_PER_MONTH } from './consolidation.js';
import type { InterruptionBucket } from './types.js';


/**
 * BUCKET_MONTHLY_FREQUENCY — the middle of each Spot Instance Advisor bucket (the share of a pool's instances
 * interrupted in a month); `>20%` is taken as 25%.
 */
export const BUCKET_MONTHLY_FREQUENCY: Readonly<Record<InterruptionBucket, number>> = {
  '<5%': 0.025,
  '5-10%': 0.075,
  '10-15%': 0.125,
  '15-20%': 0.175,
  '>20%': 0.25,
};

/**
 * MeasuredInterruptions — what the cluster measured for one Spot pool (the rebalance ledger through spot-advisor):
 * rebalances with a known follow-up, how many were followed by an interruption, and the share.
 */
export interface MeasuredInterruptions {
  readonly samples: number;
  readonly interrupted: number;
  /** interrupted / samples. */
  readonly share: number;
  /** Interruptions per node-hour, when the pool's node-hours over the same window are known (the bench, replays). */
  readonly perNodeHour?: number;
}

/** ExpectedCostConfig — the cost of one disruption (a replacement node's start, the work redone) and the samples a measurement needs. */
export interface ExpectedCostConfig {
  readonly disruptionCostUsd: number;
  readonly minSamples: number;
}

/** InterruptionRateBasis — where the interruption rate came from. */
export type InterruptionRateBasis = 'measured-in-this-cluster' | 'estimate' | 'unknown';

/** ExpectedCost — a Spot pool's price plus the expected cost of its interruptions, per node-hour, with its basis. */
export interface ExpectedCost {
  readonly priceUsdPerHour: number;
  /** Expected interruptions per node-hour. */
  readonly interruptionsPerNodeHour: number;
  /** interruptionsPerNodeHour × disruptionCostUsd. */
  readonly interruptionUsdPerHour: number;
  /** priceUsdPerHour + interruptionUsdPerHour. */
  readonly usdPerHour: number;
  readonly basis: InterruptionRateBasis;
}

/**
 * interruptionRate — expected interruptions per node-hour of a Spot pool and where the figure comes from:
 *
 * - `measured-in-this-cluster` with at least `minSamples` known follow-ups: the measured rate per node-hour when the
 *   node-hours are known; otherwise the measured share taken as the pool's monthly interruption frequency
 *   (share / 730 h) — the stand-in the Spot market already makes when it puts the measured share in the bucket's
 *   place (docs/scoring.md#expected-cost);
 * - `estimate` otherwise: the middle of the Spot Advisor bucket / 730 h;
 * - `unknown` with neither: 0, and the cost stays the price.
 */
export function interruptionRate(bucket: InterruptionBucket | undefined, measured: MeasuredInterruptions | undefined, minSamples: number): { perNodeHour: number; basis: InterruptionRateBasis } {
  if (measured && measured.samples >= minSamples && measured.samples > 0) {
    return { perNodeHour: measured.perNodeHour ?? measured.share / HOURS_PER_MONTH, basis: 'measured-in-this-cluster' };
  }
  if (bucket !== undefined) return { perNodeHour: BUCKET_MONTHLY_FREQUENCY[bucket] / HOURS_PER_MONTH, basis: 'estimate' };
  return { perNodeHour: 0, basis: 'unknown' };
}

/**
 * expectedCost — `price + rate × disruptionCostUsd` per node-hour of a Spot pool (docs/scoring.md#expected-cost);
 * undefined without a price (never guessed).
 */
export function expectedCost(
  priceUsdPerHour: number | undefined,
  bucket: InterruptionBucket | undefined,
  measured: MeasuredInterruptions | undefined,
  config: ExpectedCostConfig,
): ExpectedCost | undefined {
  if (priceUsdPerHour === undefined) return undefined;
  const rate = interruptionRate(bucket, measured, config.minSamples);
  const extra = rate.perNodeHour * config.disruptionCostUsd;
  return { priceUsdPerHour, interruptionsPerNodeHour: rate.perNodeHour, interruptionUsdPerHour: extra, usdPerHour: priceUsdPerHour + extra, basis: rate.basis };
}

/**
 * bucketOfMonthlyFrequency — the Spot Advisor bucket a monthly interruption frequency falls in (<5%, 5-10%, …), so
 * a measured rate scores on the same scale as the published one.
 */
export function bucketOfMonthlyFrequency(f: number): InterruptionBucket {
  const p = f * 100;
  return p < 5 ? '<5%' : p < 10 ? '5-10%' : p < 15 ? '10-15%' : p < 20 ? '15-20%' : '>20%';
}

/** measuredWords — "measured in this cluster: 8 of 10 rebalances followed by an interruption" for a rationale. */
export function measuredWords(m: MeasuredInterruptions): string {
  return `measured in this cluster: ${m.interrupted} of ${m.samples} rebalances followed by an interruption`;
}

/** PricedPool — the part of a price-table entry the expected cost reads and writes. */
interface PricedPool {
  readonly spotUsdPerHour?: number;
  readonly interruptionBucket?: InterruptionBucket;
  readonly measured?: MeasuredInterruptions;
  readonly expected?: ExpectedCost;
}

/**
 * withExpectedCosts — every entry with a Spot price gains its {@link expectedCost}; where the pool is measured with
 * enough samples its interruption bucket becomes the measured rate's (so the risk dimension reads the measurement
 * too). Entries without a Spot price are returned as they are.
 */
export function withExpectedCosts<T extends PricedPool>(table: ReadonlyMap<string, T>, config: ExpectedCostConfig): Map<string, T> {
  const out = new Map<string, T>();
  for (const [k, p] of table) {
    const e = expectedCost(p.spotUsdPerHour, p.interruptionBucket, p.measured, config);
    if (!e) {
      out.set(k, p);
      continue;
    }
    const bucket = e.basis === 'measured-in-this-cluster' ? bucketOfMonthlyFrequency(e.interruptionsPerNodeHour * HOURS_PER_MONTH) : p.interruptionBucket;
    out.set(k, { ...p, expected: e, ...(bucket !== undefined ? { interruptionBucket: bucket } : {}) });
  }
  return out;
}

/**
 * costBasisPrice — the hourly figure a Spot node's cost is judged on: its expected cost where the pool is measured in
 * this cluster, else its price (the estimate stays as it was: price only).
 */
export function costBasisPrice(usdPerHour: number | undefined, expected: ExpectedCost | undefined): number | undefined {
  return expected && expected.basis === 'measured-in-this-cluster' ? expected.usdPerHour : usdPerHour;
}
