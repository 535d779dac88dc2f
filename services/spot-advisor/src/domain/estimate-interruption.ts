import {
  BUCKET_RANGE_PCT,
  INTERRUPTION_BUCKETS,
  windowStats,
  type InterruptionBucket,
  type SpotPriceSample,
} from './spot-price.js';

export type InterruptionBasis = 'price-volatility' | 'price-volatility+spot-advisor-snapshot' | 'insufficient-data';

export interface InterruptionEstimateOptions {
  /** The trailing window the estimate looks at, e.g. 7 days. */
  readonly windowMs: number;
  /** A bucket from the bundled Spot Instance Advisor snapshot, when it has one for this type and region. */
  readonly advisorBucket?: InterruptionBucket;
}

export interface PriceVolatility {
  readonly coefficientOfVariation: number;
  readonly changes: number;
  readonly changesPerDay: number;
  readonly minUsdPerHour: number;
  readonly maxUsdPerHour: number;
  /** Points scored (0–9) before they are mapped to a bucket; see {@link estimateInterruption}. */
  readonly points: number;
}

export interface InterruptionEstimate {
  /** null only when there is neither enough price history nor a snapshot bucket. */
  readonly bucket: InterruptionBucket | null;
  readonly frequencyPct: readonly [number, number] | null;
  readonly basis: InterruptionBasis;
  readonly volatility: PriceVolatility | null;
  /** Current Spot price / On-Demand price; null when On-Demand is unknown. */
  readonly priceToOnDemand: number | null;
  readonly explanation: string;
}

const DAY_MS = 86_400_000;

/** The share of the window the samples must cover before price volatility says anything. */
export const MIN_COVERAGE = 0.5;

/** cvPoints — 0–4 by coefficient of variation: below 2%, 5%, 10%, 20%, and above. */
export function cvPoints(cv: number): number {
  return cv < 0.02 ? 0 : cv < 0.05 ? 1 : cv < 0.1 ? 2 : cv < 0.2 ? 3 : 4;
}

/** changePoints — 0–2 by price changes per day: under 4, under 12, more. */
export function changePoints(perDay: number): number {
  return perDay < 4 ? 0 : perDay < 12 ? 1 : 2;
}

/** ratioPoints — 0–3 by Spot / On-Demand: under 0.5, 0.7, 0.85, more (a Spot price near On-Demand means tight capacity). */
export function ratioPoints(ratio: number | null): number {
  if (ratio === null) return 0;
  return ratio < 0.5 ? 0 : ratio < 0.7 ? 1 : ratio < 0.85 ? 2 : 3;
}

/**
 * estimateInterruption — our estimate of a Spot pool's interruption frequency. EC2 publishes no interruption data;
 * this is a heuristic from the price, stated as such in every result's `explanation`.
 *
 * points = cvPoints(time-weighted CV over the window) + changePoints(changes per day) + ratioPoints(Spot/On-Demand),
 * 0–9; bucket index = min(4, ⌊points / 2⌋) over `<5%, 5-10%, 10-15%, 15-20%, >20%`. A volatile price and a price
 * close to On-Demand both signal capacity pressure, which is what reclaims Spot capacity.
 * With a Spot Advisor snapshot bucket the index is the mean of both, rounded up (erring towards risk).
 * With less than {@link MIN_COVERAGE} of the window covered by samples the basis is `insufficient-data` and the
 * bucket is the snapshot's, if any, else null. Samples are one (type, zone, product) series.
 * See docs/spot-interruption-estimate.md.
 */
export function estimateInterruption(
  samples: readonly SpotPriceSample[],
  onDemandUsdPerHour: number | undefined,
  now: Date,
  opts: InterruptionEstimateOptions,
): InterruptionEstimate {
  const stats = windowStats(samples, now, opts.windowMs);
  const advisor = opts.advisorBucket;
  const windowText = formatWindow(opts.windowMs);
  const priceToOnDemand =
    stats && onDemandUsdPerHour !== undefined && onDemandUsdPerHour > 0 ? round(stats.currentUsdPerHour / onDemandUsdPerHour, 3) : null;

  if (!stats || stats.coveredMs < opts.windowMs * MIN_COVERAGE) {
    const covered = stats ? `${formatWindow(stats.coveredMs)} of the ${windowText} window` : `no price in the ${windowText} window`;
    return {
      bucket: advisor ?? null,
      frequencyPct: advisor ? BUCKET_RANGE_PCT[advisor] : null,
      basis: 'insufficient-data',
      volatility: null,
      priceToOnDemand,
      explanation: advisor
        ? `Too little Spot price history (${covered}) to estimate from; showing the bundled Spot Advisor snapshot bucket ${advisor} (hand-entered, approximate, dated).`
        : `Too little Spot price history (${covered}) to estimate interruptions.`,
    };
  }

  const changesPerDay = stats.changes / (stats.coveredMs / DAY_MS);
  const cv = cvPoints(stats.coefficientOfVariation);
  const ch = changePoints(changesPerDay);
  const ra = ratioPoints(priceToOnDemand);
  const points = cv + ch + ra;
  const ours = Math.min(4, Math.floor(points / 2));
  const index = advisor === undefined ? ours : Math.ceil((ours + INTERRUPTION_BUCKETS.indexOf(advisor)) / 2);
  const bucket = INTERRUPTION_BUCKETS[index]!;

  const parts = [
    `price varied ${pct(stats.coefficientOfVariation)} (coefficient of variation) with ${stats.changes} change${stats.changes === 1 ? '' : 's'} over ${windowText}`,
    priceToOnDemand === null ? 'On-Demand price unknown, so price level not considered' : `Spot is at ${pct(priceToOnDemand)} of On-Demand`,
  ];
  const fromPrice = `Estimated ${INTERRUPTION_BUCKETS[ours]} from Spot price behaviour: ${parts.join('; ')}.`;
  return {
    bucket,
    frequencyPct: BUCKET_RANGE_PCT[bucket],
    basis: advisor === undefined ? 'price-volatility' : 'price-volatility+spot-advisor-snapshot',
    volatility: {
      coefficientOfVariation: round(stats.coefficientOfVariation, 4),
      changes: stats.changes,
      changesPerDay: round(changesPerDay, 2),
      minUsdPerHour: stats.minUsdPerHour,
      maxUsdPerHour: stats.maxUsdPerHour,
      points,
    },
    priceToOnDemand,
    explanation:
      advisor === undefined
        ? `${fromPrice} EC2 publishes no interruption data; this is an estimate.`
        : `${fromPrice} Combined with the bundled Spot Advisor snapshot bucket ${advisor} (hand-entered, approximate, dated) → ${bucket}. EC2 publishes no interruption data; this is an estimate.`,
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function pct(x: number): string {
  return `${round(x * 100, 1)}%`;
}

function formatWindow(ms: number): string {
  if (ms >= DAY_MS && ms % DAY_MS === 0) return `${ms / DAY_MS} day${ms === DAY_MS ? '' : 's'}`;
  const hours = ms / 3_600_000;
  return hours >= 1 ? `${round(hours, 1)} h` : `${Math.round(ms / 60_000)} min`;
}
