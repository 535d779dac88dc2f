/**
 * PoolHealthConfig — the thresholds of the pool-health rule (docs/steering.md#the-rule). Durations in
 * milliseconds, shares in [0, 1]. Every service that decides pool health loads its own copy from its environment and
 * refuses to start when {@link validatePoolHealthConfig} lists a problem.
 */
export interface PoolHealthConfig {
  /** A pool enters `avoid` when the lower bound of its interrupted share's 95% interval reaches this; it may leave when the upper bound of the samples since then is back under it. */
  avoidShare: number;
  /** A pool enters `watch` when the lower bound reaches this (n ≥ minSamples); leaves `watch` when the upper bound is under it. */
  watchShare: number;
  /** Samples (rebalances with a known follow-up) below which the share alone moves nothing. */
  minSamples: number;
  /** Interruptions within {@link burstWindowMs} of each other that make a burst. */
  burstSize: number;
  /** The span a burst's interruptions fall within. */
  burstWindowMs: number;
  /** Time with no interruption before an `avoid` pool may leave (and the time a burst keeps a pool in `avoid`). */
  coolOffMs: number;
  /**
   * The longest cool-off: each earlier burst the pool had within {@link windowMs} doubles the cool-off (a back-off),
   * up to this; a pool calm for a whole window is back to {@link coolOffMs}. Equal to coolOffMs turns the growth off.
   */
  coolOffMaxMs: number;
  /** The trailing window of ledger samples the rule reads. */
  windowMs: number;
  /** Spot price at or above this fraction of on-demand puts a pool in `watch` (never `avoid`: price is no interruption). */
  priceWatchRatio: number;
}

/** DEFAULT_POOL_HEALTH_CONFIG — the defaults (docs/steering.md#configuration says where the figures come from). */
export const DEFAULT_POOL_HEALTH_CONFIG: Readonly<PoolHealthConfig> = Object.freeze({
  avoidShare: 0.5,
  watchShare: 0.25,
  minSamples: 10,
  burstSize: 3,
  burstWindowMs: 5 * 60_000,
  coolOffMs: 6 * 3_600_000,
  coolOffMaxMs: 48 * 3_600_000,
  windowMs: 7 * 24 * 3_600_000,
  priceWatchRatio: 0.9,
});

/** POOL_HEALTH_ENV — the environment variable behind each field (README's configuration table). */
export const POOL_HEALTH_ENV: Readonly<Record<keyof PoolHealthConfig, string>> = Object.freeze({
  avoidShare: 'STEERING_AVOID_SHARE',
  watchShare: 'STEERING_WATCH_SHARE',
  minSamples: 'STEERING_MIN_SAMPLES',
  burstSize: 'STEERING_BURST_SIZE',
  burstWindowMs: 'STEERING_BURST_WINDOW_MINUTES',
  coolOffMs: 'STEERING_COOL_OFF_HOURS',
  coolOffMaxMs: 'STEERING_COOL_OFF_MAX_HOURS',
  windowMs: 'STEERING_WINDOW_HOURS',
  priceWatchRatio: 'STEERING_PRICE_WATCH_RATIO',
});

/**
 * validatePoolHealthConfig — every problem of a config, one sentence each naming the variable; empty when it is
 * sound. Beyond each field's range: `watchShare` < `avoidShare` (else `watch` could never come before `avoid`), a
 * burst of at least 2, and a window longer than the cool-off (else an `avoid` pool would forget its evidence first).
 */
export function validatePoolHealthConfig(c: PoolHealthConfig): string[] {
  const problems: string[] = [];
  const e = POOL_HEALTH_ENV;
  const share = (k: 'avoidShare' | 'watchShare' | 'priceWatchRatio', max = 1) => {
    if (!Number.isFinite(c[k]) || c[k] <= 0 || c[k] > max) problems.push(`${e[k]} must be a number above 0 and at most ${max} (got ${c[k]})`);
  };
  share('avoidShare');
  share('watchShare');
  share('priceWatchRatio', 2);
  if (Number.isFinite(c.avoidShare) && Number.isFinite(c.watchShare) && c.watchShare >= c.avoidShare) {
    problems.push(`${e.watchShare} (${c.watchShare}) must be below ${e.avoidShare} (${c.avoidShare})`);
  }
  if (!Number.isInteger(c.minSamples) || c.minSamples < 1) problems.push(`${e.minSamples} must be a whole number of at least 1 (got ${c.minSamples})`);
  if (!Number.isInteger(c.burstSize) || c.burstSize < 2) problems.push(`${e.burstSize} must be a whole number of at least 2 (got ${c.burstSize})`);
  const positive = (k: 'burstWindowMs' | 'coolOffMs' | 'windowMs') => {
    if (!Number.isFinite(c[k]) || c[k] <= 0) problems.push(`${e[k]} must be above 0 (got ${c[k]} ms)`);
  };
  positive('burstWindowMs');
  positive('coolOffMs');
  positive('windowMs');
  if (Number.isFinite(c.windowMs) && Number.isFinite(c.coolOffMs) && c.windowMs <= c.coolOffMs) {
    problems.push(`${e.windowMs} must be longer than ${e.coolOffMs}`);
  }
  if (!Number.isFinite(c.coolOffMaxMs) || c.coolOffMaxMs < c.coolOffMs) {
    problems.push(`${e.coolOffMaxMs} must be at least ${e.coolOffMs} (got ${c.coolOffMaxMs} ms)`);
  } else if (Number.isFinite(c.windowMs) && c.windowMs <= c.coolOffMaxMs) {
    problems.push(`${e.windowMs} must be longer than ${e.coolOffMaxMs}`);
  }
  return problems;
}

/**
 * poolHealthConfigFrom — a config from environment-style text (minutes, hours, shares as decimals), defaults for
 * what is unset, and the problems found; nothing is half-applied: with any problem the caller refuses to start.
 */
export function poolHealthConfigFrom(source: Readonly<Record<string, string | undefined>>): { config: PoolHealthConfig; problems: string[] } {
  const problems: string[] = [];
  const read = (k: keyof PoolHealthConfig, scale: number): number => {
    const raw = source[POOL_HEALTH_ENV[k]];
    if (raw === undefined || raw.trim() === '') return DEFAULT_POOL_HEALTH_CONFIG[k];
    const n = Number(raw);
    if (!Number.isFinite(n)) {
      problems.push(`${POOL_HEALTH_ENV[k]} must be a number (got "${raw}")`);
      return DEFAULT_POOL_HEALTH_CONFIG[k];
    }
    return n * scale;
  };
  const config: PoolHealthConfig = {
    avoidShare: read('avoidShare', 1),
    watchShare: read('watchShare', 1),
    minSamples: read('minSamples', 1),
    burstSize: read('burstSize', 1),
    burstWindowMs: read('burstWindowMs', 60_000),
    coolOffMs: read('coolOffMs', 3_600_000),
    coolOffMaxMs: read('coolOffMaxMs', 3_600_000),
    windowMs: read('windowMs', 3_600_000),
    priceWatchRatio: read('priceWatchRatio', 1),
  };
  return { config, problems: [...problems, ...validatePoolHealthConfig(config)] };
}
