/** SpotPriceSample — one Spot price change as EC2 reports it: the price in effect from `timestamp` on. */
export interface SpotPriceSample {
  readonly instanceType: string;
  readonly availabilityZone: string;
  /** EC2's product description, `Linux/UNIX` for the prices this service uses. */
  readonly productDescription?: string;
  readonly usdPerHour: number;
  readonly timestamp: Date;
}

/** InterruptionBucket — the Spot Instance Advisor's "frequency of interruption" ranges. */
export type InterruptionBucket = '<5%' | '5-10%' | '10-15%' | '15-20%' | '>20%';

export const INTERRUPTION_BUCKETS: readonly InterruptionBucket[] = ['<5%', '5-10%', '10-15%', '15-20%', '>20%'];

/** BUCKET_RANGE_PCT — each bucket's frequency range in percent, as [low, high]. */
export const BUCKET_RANGE_PCT: Readonly<Record<InterruptionBucket, readonly [number, number]>> = {
  '<5%': [0, 5],
  '5-10%': [5, 10],
  '10-15%': [10, 15],
  '15-20%': [15, 20],
  '>20%': [20, 100],
};

/** PriceWindowStats — the piecewise-constant price of one series over a trailing window. */
export interface PriceWindowStats {
  /** The price in effect at `now`. */
  readonly currentUsdPerHour: number;
  readonly currentSince: Date;
  /** The price in effect at the start of what the samples cover (the window start, or the first sample after it). */
  readonly startUsdPerHour: number;
  /** How much of the window the samples cover, in ms (the whole window when a sample precedes its start). */
  readonly coveredMs: number;
  /** Price changes inside the window (a sample whose price differs from the one in effect before it). */
  readonly changes: number;
  /** Time-weighted mean and coefficient of variation (standard deviation / mean) over the covered time. */
  readonly meanUsdPerHour: number;
  readonly coefficientOfVariation: number;
  readonly minUsdPerHour: number;
  readonly maxUsdPerHour: number;
}

/**
 * windowStats — the price series of `samples` (one instance type, zone and product; any order, duplicates
 * allowed) over [now − windowMs, now]. Samples after `now` are ignored. Undefined when no sample is at or before
 * `now`. The price between samples is the earlier sample's (EC2 reports changes, not ticks), and the last sample
 * before the window gives the price at its start.
 */
export function windowStats(samples: readonly SpotPriceSample[], now: Date, windowMs: number): PriceWindowStats | undefined {
  const nowMs = now.getTime();
  const startMs = nowMs - windowMs;
  const byTime = new Map<number, number>();
  for (const s of samples) {
    const t = s.timestamp.getTime();
    if (t <= nowMs) byTime.set(t, s.usdPerHour);
  }
  const points = [...byTime].sort((a, b) => a[0] - b[0]);
  if (points.length === 0) return undefined;

  let firstIdx = 0;
  for (let i = 0; i < points.length; i++) if (points[i]![0] <= startMs) firstIdx = i;
  const inWindow = points.slice(firstIdx);
  const coverStart = Math.max(startMs, inWindow[0]![0]);

  let weighted = 0;
  let total = 0;
  let changes = 0;
  let min = Infinity;
  let max = -Infinity;
  const steps: [price: number, ms: number][] = [];
  for (let i = 0; i < inWindow.length; i++) {
    const [t, price] = inWindow[i]!;
    const from = Math.max(t, coverStart);
    const to = i + 1 < inWindow.length ? inWindow[i + 1]![0] : nowMs;
    if (i > 0 && price !== inWindow[i - 1]![1]) changes++;
    min = Math.min(min, price);
    max = Math.max(max, price);
    const d = Math.max(0, to - from);
    steps.push([price, d]);
    weighted += price * d;
    total += d;
  }
  const last = inWindow[inWindow.length - 1]!;
  const mean = total > 0 ? weighted / total : last[1];
  const variance = total > 0 ? steps.reduce((acc, [p, d]) => acc + d * (p - mean) ** 2, 0) / total : 0;
  return {
    currentUsdPerHour: last[1],
    currentSince: new Date(last[0]),
    startUsdPerHour: inWindow[0]![1],
    coveredMs: nowMs - coverStart,
    changes,
    meanUsdPerHour: mean,
    coefficientOfVariation: mean > 0 ? Math.sqrt(variance) / mean : 0,
    minUsdPerHour: min,
    maxUsdPerHour: max,
  };
}
