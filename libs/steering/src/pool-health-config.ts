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
  /**
   * The rate rule (docs/steering.md#the-rate), read when a pool's exposure (node-hours, every interruption) is known.
   * Optional so that a config built before it keeps its meaning; a field left out takes its default.
   */
  /** Interruptions within this of the previous one are one reclaim event. */
  eventGapMs?: number;
  /** A pool enters `avoid` when its rate's lower bound is at least this times the rate of the fleet's other pools… */
  avoidRateRatio?: number;
  /** …and at least this many interruptions per 1,000 node-hours (a calm fleet makes any pool look worse than it). */
  rateFloorPer1000?: number;
  /** Reclaim events below which the rate alone moves nothing. */
  minEvents?: number;
  /** The short window, read beside the long one so that a pool that turns bad is seen within hours. */
  recentWindowMs?: number;
  /** The one-sided confidence of each bound of the rate's interval. */
  rateConfidence?: number;
  /** Node-hours a pool restored on probation must carry without a reclaim event before it is healthy again. */
  probeNodeHours?: number;
}

/** RateRuleConfig — the rate rule's fields, each filled in. */
export type RateRuleConfig = Required<Pick<PoolHealthConfig, 'eventGapMs' | 'avoidRateRatio' | 'rateFloorPer1000' | 'minEvents' | 'recentWindowMs' | 'rateConfidence' | 'probeNodeHours'>>;

/** DEFAULT_RATE_RULE — the rate rule's defaults (docs/steering.md#configuration). */
export const DEFAULT_RATE_RULE: Readonly<RateRuleConfig> = Object.freeze({
  eventGapMs: 10 * 60_000,
  avoidRateRatio: 3,
  rateFloorPer1000: 2,
  minEvents: 2,
  recentWindowMs: 24 * 3_600_000,
  rateConfidence: 0.9,
  probeNodeHours: 100,
});

/** rateRuleOf — a config's rate-rule fields with the defaults for those left out. */
export function rateRuleOf(c: PoolHealthConfig): RateRuleConfig {
  const d = DEFAULT_RATE_RULE;
  return {
    eventGapMs: c.eventGapMs ?? d.eventGapMs,
    avoidRateRatio: c.avoidRateRatio ?? d.avoidRateRatio,
    rateFloorPer1000: c.rateFloorPer1000 ?? d.rateFloorPer1000,
    minEvents: c.minEvents ?? d.minEvents,
    recentWindowMs: c.recentWindowMs ?? d.recentWindowMs,
    rateConfidence: c.rateConfidence ?? d.rateConfidence,
    probeNodeHours: c.probeNodeHours ?? d.probeNodeHours,
  };
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
  ...DEFAULT_RATE_RULE,
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
  eventGapMs: 'STEERING_EVENT_GAP_MINUTES',
  avoidRateRatio: 'STEERING_AVOID_RATE_RATIO',
  rateFloorPer1000: 'STEERING_RATE_FLOOR_PER_1000_NODE_HOURS',
  minEvents: 'STEERING_MIN_EVENTS',
  recentWindowMs: 'STEERING_RECENT_WINDOW_HOURS',
  rateConfidence: 'STEERING_RATE_CONFIDENCE',
  probeNodeHours: 'STEERING_PROBE_NODE_HOURS',
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
  const r = rateRuleOf(c);
  if (!Number.isFinite(r.eventGapMs) || r.eventGapMs < 0) problems.push(`${e.eventGapMs} must be 0 or more (got ${r.eventGapMs} ms)`);
  if (!Number.isFinite(r.avoidRateRatio) || r.avoidRateRatio < 1) problems.push(`${e.avoidRateRatio} must be a number of at least 1 (got ${r.avoidRateRatio})`);
  if (!Number.isFinite(r.rateFloorPer1000) || r.rateFloorPer1000 < 0) problems.push(`${e.rateFloorPer1000} must be 0 or more (got ${r.rateFloorPer1000})`);
  if (!Number.isInteger(r.minEvents) || r.minEvents < 1) problems.push(`${e.minEvents} must be a whole number of at least 1 (got ${r.minEvents})`);
  if (!Number.isFinite(r.recentWindowMs) || r.recentWindowMs <= 0 || r.recentWindowMs > c.windowMs) problems.push(`${e.recentWindowMs} must be above 0 and at most ${e.windowMs} (got ${r.recentWindowMs} ms)`);
  if (!Number.isFinite(r.rateConfidence) || r.rateConfidence <= 0.5 || r.rateConfidence >= 1) problems.push(`${e.rateConfidence} must be above 0.5 and below 1 (got ${r.rateConfidence})`);
  if (!Number.isFinite(r.probeNodeHours) || r.probeNodeHours < 0) problems.push(`${e.probeNodeHours} must be 0 or more (got ${r.probeNodeHours})`);
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
    if (raw === undefined || raw.trim() === '') return DEFAULT_POOL_HEALTH_CONFIG[k]!;
    const n = Number(raw);
    if (!Number.isFinite(n)) {
      problems.push(`${POOL_HEALTH_ENV[k]} must be a number (got "${raw}")`);
      return DEFAULT_POOL_HEALTH_CONFIG[k]!;
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
    eventGapMs: read('eventGapMs', 60_000),
    avoidRateRatio: read('avoidRateRatio', 1),
    rateFloorPer1000: read('rateFloorPer1000', 1),
    minEvents: read('minEvents', 1),
    recentWindowMs: read('recentWindowMs', 3_600_000),
    rateConfidence: read('rateConfidence', 1),
    probeNodeHours: read('probeNodeHours', 1),
  };
  return { config, problems: [...problems, ...validatePoolHealthConfig(config)] };
}
