import type { PoolFigures } from '@nodes-manager/contracts';
import type { MarketEntry } from './spot-market.js';
import { INTERRUPTION_BUCKETS, type InterruptionBucket } from './spot-price.js';
import type { InterruptionEstimate } from './estimate-interruption.js';

/** MeasuredBasis — "measured in this cluster": the rebalance ledger's figures for one Spot pool. */
export interface MeasuredBasis {
  /** Rebalances whose follow-up within the horizon is known (interrupted + survived). */
  readonly samples: number;
  readonly interrupted: number;
  /** The share of rebalance recommendations followed by an interruption within the horizon. */
  readonly interruptedShare: number | null;
  readonly interval95: readonly [number, number] | null;
  readonly medianLeadMinutes: number | null;
  readonly p90LeadMinutes: number | null;
  readonly horizonHours: number;
}

/** The estimate with its second basis and which one it used. */
export interface InterruptionWithMeasured extends InterruptionEstimate {
  readonly measured: MeasuredBasis | null;
  /** `measured-in-this-cluster` when the pool has at least the minimum samples, else `estimate` (price and Spot Advisor). */
  readonly used: 'measured-in-this-cluster' | 'estimate';
}

/** bucketOfShare — the Spot Advisor bucket a share falls in (<5%, 5-10%, 10-15%, 15-20%, >20%). */
export function bucketOfShare(share: number): InterruptionBucket {
  const pct = share * 100;
  return INTERRUPTION_BUCKETS[pct < 5 ? 0 : pct < 10 ? 1 : pct < 15 ? 2 : pct < 20 ? 3 : 4]!;
}

const pct1 = (x: number): number => Math.round(x * 1000) / 10;

/** horizonWords — the follow-up horizon as a person says it: `24 h`, `2.5 h`, `1 min`, `45 s` (never `0.0166… h`). */
export function horizonWords(hours: number): string {
  const s = Math.round(hours * 3600);
  if (s >= 3600) return `${Math.round((s / 3600) * 10) / 10} h`;
  if (s >= 60) return `${Math.round((s / 60) * 10) / 10} min`;
  return `${s} s`;
}

/**
 * withMeasuredBasis — a market entry's interruption estimate with the cluster's own measurement beside it. With at
 * least `minSamples` known follow-ups the estimate uses it: `bucket` is the bucket the measured share falls in and
 * `frequencyPct` its 95% interval; otherwise the price/Spot Advisor estimate stays, the measurement shown next to it.
 * The two are different quantities — the Spot Advisor bucket is EC2's monthly interruption frequency of the pool, the
 * measurement the share of rebalance recommendations in this cluster followed by an interruption within the
 * horizon — and the explanation says so.
 */
export function withMeasuredBasis(entry: MarketEntry, pool: PoolFigures | undefined, minSamples: number, horizonHours: number): MarketEntry & { interruption: InterruptionWithMeasured } {
  const measured: MeasuredBasis | null = pool
    ? {
        samples: pool.samples,
        interrupted: pool.interrupted,
        interruptedShare: pool.interruptedShare,
        interval95: pool.interval95,
        medianLeadMinutes: pool.leadTimeMinutes?.median ?? null,
        p90LeadMinutes: pool.leadTimeMinutes?.p90 ?? null,
        horizonHours,
      }
    : null;
  const base = entry.interruption;
  if (!measured || measured.samples < minSamples || measured.interruptedShare === null || !measured.interval95) {
    const note = measured
      ? ` Measured in this cluster: ${measured.interrupted} of ${measured.samples} rebalance recommendations followed by an interruption within ${horizonWords(horizonHours)} — fewer than the ${minSamples} samples needed to use it.`
      : '';
    return { ...entry, interruption: { ...base, measured, used: 'estimate', explanation: base.explanation + note } };
  }
  const [lo, hi] = measured.interval95;
  const bucket = bucketOfShare(measured.interruptedShare);
  return {
    ...entry,
    interruption: {
      ...base,
      bucket,
      frequencyPct: [pct1(lo), pct1(hi)],
      measured,
      used: 'measured-in-this-cluster',
      explanation:
        `Measured in this cluster: ${measured.interrupted} of ${measured.samples} rebalance recommendations (${pct1(measured.interruptedShare)}%, 95% interval ${pct1(lo)}–${pct1(hi)}%) ` +
        `were followed by an interruption within ${horizonWords(horizonHours)} → ${bucket}. This is the share of rebalances followed by an interruption, not EC2's monthly interruption frequency; ` +
        `the estimate from price${base.basis === 'price-volatility+spot-advisor-snapshot' ? ' and the Spot Advisor snapshot' : ''} said ${base.bucket ?? 'nothing'}. ${base.explanation}`,
    },
  };
}
