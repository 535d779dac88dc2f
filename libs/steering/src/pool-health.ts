import { rateRuleOf, type PoolHealthConfig } from './pool-health-config.js';
import { nodeHoursFrom, rateFigures, reclaimEvents, type PoolExposure, type RateBaseline, type RateFigures } from './pool-rate.js';
import { duration, pct, quantile, round, wilsonInterval } from './stats.js';

/** PoolHealthState — what steering makes of a Spot pool: launch freely, keep an eye on it, stop launching into it. */
export type PoolHealthState = 'healthy' | 'watch' | 'avoid';
export const POOL_HEALTH_STATES: readonly PoolHealthState[] = ['healthy', 'watch', 'avoid'];

/** PoolRef — a Spot pool: one instance type in one availability zone. */
export interface PoolRef {
  instanceType: string;
  zone: string;
}

/**
 * PoolSample — one rebalance recommendation of the pool, from the rebalance ledger. `outcome` is `interrupted` or
 * `survived` once the follow-up is known; `unknown` for a row still open or `removed` (censored: counted in no share).
 * `interruptedAt` is the interruption's time (bursts and cool-off count from it); `leadTimeMs` interruption − rebalance.
 */
export interface PoolSample {
  seenAt: Date;
  outcome: 'interrupted' | 'survived' | 'unknown';
  interruptedAt: Date | null;
  leadTimeMs: number | null;
}

/** PoolPrice — the pool's current prices in USD per hour; null when unknown. */
export interface PoolPrice {
  spotPerHour: number | null;
  onDemandPerHour: number | null;
}

/**
 * PoolHealthPrevious — what the last decision left: its state, since when, and `basisFrom`, the time from which
 * samples count for the share (set when a pool leaves `avoid`, so the evidence that put it there cannot put it back).
 */
export interface PoolHealthPrevious {
  state: PoolHealthState;
  since: Date;
  basisFrom: Date | null;
}

export interface PoolHealthInput {
  pool: PoolRef;
  samples: readonly PoolSample[];
  price: PoolPrice | null;
  previous: PoolHealthPrevious | null;
  now: Date;
  /**
   * The pool's node-hours and every interruption (with a recommendation or not): with it the pool is judged by its
   * rate against the fleet (docs/steering.md#the-rate); without it, by the share and the burst rule alone.
   */
  exposure?: PoolExposure | null;
  /** The fleet's other pools over the same windows (steerFleet fills it in). */
  fleet?: RateBaseline | null;
}

/** PoolHealthReason — why the state is what it is; stored, published, and turned into the sentence. */
export type PoolHealthReason =
  | 'no-samples'
  | 'too-few-samples'
  | 'share-below-watch'
  | 'share-above-watch'
  | 'share-unclear'
  | 'price-near-on-demand'
  | 'recovering'
  | 'share-above-avoid'
  | 'burst'
  | 'cooling-off'
  | 'recovery-share-high'
  | 'cool-off-ended'
  /** Set by {@link limitAvoidEntries}: the pool would enter `avoid`, but the hourly rail is spent. */
  | 'avoid-rate-rail'
  /** The rate rule: the interval's lower bound is above the fleet's rate times the ratio (and the floor). */
  | 'rate-above-avoid'
  /** The rate's point estimate is above that line, its interval not yet. */
  | 'rate-above-watch'
  /** Restored after its cool-off, on probation: readmitted, its first reclaim event sends it back. */
  | 'probation'
  /** A reclaim event while on probation: back to `avoid` at once. */
  | 'relapse';

/** ShareFigures — interrupted over interrupted + survived, with the 95% Wilson interval. */
export interface ShareFigures {
  samples: number;
  interrupted: number;
  share: number | null;
  interval95: [number, number] | null;
}

/** PoolEvidence — every figure the decision read, kept with each transition. */
export interface PoolEvidence extends ShareFigures {
  /** Samples are read from here (now − window)… */
  windowFrom: Date;
  /** …and count for the share from here (later than windowFrom after a pool left `avoid`). */
  basisFrom: Date;
  leadTimeMinutes: { samples: number; median: number; p90: number } | null;
  /** Interruptions in the window, and how many bursts they made. */
  interruptions: number;
  bursts: number;
  lastBurst: { at: Date; size: number; spanMs: number } | null;
  lastInterruptionAt: Date | null;
  price: (PoolPrice & { ratio: number | null }) | null;
  /** In `avoid`: the samples seen since the pool entered it — what its return is judged on. */
  recovery: ShareFigures | null;
  /** The rate rule's figures, when the pool's exposure is known. */
  rate: RateEvidence | null;
}

/** RateEvidence — a pool's interruptions per 1,000 node-hours over the window and the recent window, against the fleet's. */
export interface RateEvidence {
  window: RateFigures;
  recent: RateFigures;
  /** The fleet's other pools, interruptions per 1,000 node-hours (null without node-hours). */
  fleetPer1000: number | null;
  recentFleetPer1000: number | null;
  /** The line a lower bound must reach for `avoid`: max(ratio × the fleet's rate, the floor), per window. */
  threshold: number;
  recentThreshold: number;
  /** Reclaim events in the window, and the last one's time. */
  events: number;
  lastEventAt: Date | null;
  /** On probation: node-hours carried since the return, and reclaim events since. */
  probation: { nodeHours: number; events: number; needed: number } | null;
}

/** PoolHealth — the decision: the state, since when, why (a code and a sentence), the evidence, and when it may end. */
export interface PoolHealth {
  pool: PoolRef;
  state: PoolHealthState;
  since: Date;
  /** The state before this decision (null on a first decision); `changed` is a transition to record and publish. */
  from: PoolHealthState | null;
  changed: boolean;
  reason: PoolHealthReason;
  sentence: string;
  evidence: PoolEvidence;
  basisFrom: Date | null;
  /** In `avoid`: the earliest time it may be restored (cool-off after the last interruption); null otherwise. */
  restoreAt: Date | null;
}

const ms = (d: Date) => d.getTime();

function shareOf(samples: readonly PoolSample[]): ShareFigures {
  let n = 0;
  let k = 0;
  for (const s of samples) {
    if (s.outcome === 'unknown') continue;
    n += 1;
    if (s.outcome === 'interrupted') k += 1;
  }
  const iv = wilsonInterval(k, n);
  return { samples: n, interrupted: k, share: n > 0 ? round(k / n) : null, interval95: iv ? [round(iv[0]), round(iv[1])] : null };
}

/** interruptionTime — when an interrupted sample's interruption happened (its own time, else seen + lead time). */
function interruptionTime(s: PoolSample): number | null {
  if (s.outcome !== 'interrupted') return null;
  if (s.interruptedAt) return ms(s.interruptedAt);
  return s.leadTimeMs !== null ? ms(s.seenAt) + s.leadTimeMs : ms(s.seenAt);
}

/**
 * findBursts — runs of at least `size` interruptions whose first and last are at most `windowMs` apart, taken greedily
 * from the earliest so that no interruption counts in two bursts.
 */
export function findBursts(times: readonly number[], size: number, windowMs: number): Array<{ at: number; size: number; spanMs: number }> {
  const t = [...times].sort((a, b) => a - b);
  const bursts: Array<{ at: number; size: number; spanMs: number }> = [];
  let i = 0;
  while (i < t.length) {
    let j = i;
    while (j + 1 < t.length && t[j + 1]! - t[i]! <= windowMs) j += 1;
    if (j - i + 1 >= size) {
      bursts.push({ at: t[j]!, size: j - i + 1, spanMs: t[j]! - t[i]! });
      i = j + 1;
    } else {
      i += 1;
    }
  }
  return bursts;
}

function money(x: number): string {
  return `$${x.toFixed(x < 1 ? 3 : 2)}/h`;
}

function shareText(f: ShareFigures): string {
  if (f.samples === 0 || f.share === null) return 'no rebalance with a known follow-up';
  const iv = f.interval95 ? `, 95% interval ${pct(f.interval95[0])}–${pct(f.interval95[1])}` : '';
  return `${f.interrupted} of ${f.samples} rebalances (${pct(f.share)}${iv}) were followed by an interruption`;
}

/**
 * decidePoolHealth — a pool's health from its ledger samples, its price, the previous decision and `now`
 * (docs/steering.md#the-rule). Pure: no clock, no I/O.
 *
 * - `avoid` is entered (from either other state) on a burst — `burstSize` interruptions within `burstWindowMs`, the
 *   last less than `coolOffMs` ago — or when, with at least `minSamples` samples, the share's 95% interval has its
 *   lower bound at or above `avoidShare`.
 * - `avoid` is left, for `watch` (never straight to `healthy`), once `coolOffMs` passed since the later of its entry
 *   and its last interruption, and the samples seen since its entry do not still say avoid (with at least
 *   `minSamples` of them, their upper bound must be under `avoidShare`). From then on the share counts only samples
 *   seen since that entry (`basisFrom`), so the evidence that led to `avoid` cannot lead straight back to it.
 * - The cool-off backs off: it doubles for each earlier burst of the pool still in the window (`windowMs`), up to
 *   `coolOffMaxMs` — a pool that bursts again soon after each return stays out longer each time; one calm for a whole
 *   window starts again at `coolOffMs`.
 * - `watch` is entered when the lower bound reaches `watchShare` (n ≥ `minSamples`) or the Spot price reaches
 *   `priceWatchRatio` × on-demand. It is left for `healthy` when neither holds any more with a margin: the price
 *   under the ratio and, with at least `minSamples` samples, the upper bound under `watchShare` — or, with fewer, no
 *   `avoid` behind it to recover from.
 * - Too few samples never lead to `watch` or `avoid` on the share alone; price alone never leads to `avoid`.
 */
export function decidePoolHealth(input: PoolHealthInput, config: PoolHealthConfig): PoolHealth {
  const { pool, price, previous, now } = input;
  const t = ms(now);
  const windowFrom = t - config.windowMs;
  const basisFrom = Math.max(windowFrom, previous?.basisFrom ? ms(previous.basisFrom) : windowFrom);
  const inWindow = input.samples.filter((s) => ms(s.seenAt) >= windowFrom && ms(s.seenAt) <= t);
  const basis = inWindow.filter((s) => ms(s.seenAt) >= basisFrom);
  const figures = shareOf(basis);

  const leads = basis
    .filter((s) => s.outcome === 'interrupted' && s.leadTimeMs !== null)
    .map((s) => s.leadTimeMs! / 60_000)
    .sort((a, b) => a - b);
  const times = input.samples
    .map(interruptionTime)
    .filter((x): x is number => x !== null && x >= windowFrom && x <= t)
    .sort((a, b) => a - b);
  const bursts = findBursts(times, config.burstSize, config.burstWindowMs);
  const lastBurst = bursts.at(-1) ?? null;
  const lastInterruption = times.at(-1) ?? null;
  const ratio = price?.spotPerHour != null && price.onDemandPerHour != null && price.onDemandPerHour > 0 ? round(price.spotPerHour / price.onDemandPerHour) : null;

  const enough = figures.samples >= config.minSamples;
  const lower = figures.interval95?.[0] ?? 0;
  const upper = figures.interval95?.[1] ?? 1;
  const recentBurst = lastBurst !== null && t - lastBurst.at < config.coolOffMs;
  const priceWatch = ratio !== null && ratio >= config.priceWatchRatio;
  const prev = previous?.state ?? null;
  // The back-off: each earlier burst still in the window doubles the cool-off, up to coolOffMaxMs.
  const earlierBursts = Math.max(0, bursts.length - 1);
  const coolOffMs = Math.max(config.coolOffMs, Math.min(config.coolOffMaxMs, config.coolOffMs * 2 ** Math.min(earlierBursts, 30)));
  const backOff = coolOffMs > config.coolOffMs ? ` (${duration(config.coolOffMs)} doubled for each of ${earlierBursts} earlier burst${earlierBursts === 1 ? '' : 's'} in the last ${duration(config.windowMs)}${coolOffMs >= config.coolOffMaxMs ? `, at most ${duration(config.coolOffMaxMs)}` : ''})` : '';

  let recovery: ShareFigures | null = null;
  let next: { state: PoolHealthState; reason: PoolHealthReason; sentence: string; basisFrom: number | null; restoreAt: number | null };
  const avoidEntry = (reason: 'burst' | 'share-above-avoid'): typeof next => {
    const since = prev === 'avoid' ? ms(previous!.since) : t;
    const restoreAt = Math.max(since, lastInterruption ?? since) + coolOffMs;
    const why =
      reason === 'burst'
        ? `${lastBurst!.size} interruptions came ${lastBurst!.spanMs < 1000 ? 'at once' : `within ${duration(lastBurst!.spanMs)}`} (a burst), the last ${duration(t - lastBurst!.at)} ago`
        : `${shareText(figures)}; the interval's lower bound is at least ${pct(config.avoidShare)}`;
    return { state: 'avoid', reason, sentence: `Avoid: ${why}. It may be restored after ${duration(coolOffMs)} without an interruption${backOff}.`, basisFrom: null, restoreAt };
  };

  const rateMode = input.exposure != null;
  let rate: RateEvidence | null = null;
  if (rateMode) {
    const rr = rateRuleOf(config);
    const ex = input.exposure!;
    const fleet = input.fleet ?? null;
    const per1000 = (i: number, h: number) => (h > 0 ? (i / h) * 1000 : null);
    const fleetPer1000 = fleet ? per1000(fleet.interruptions, fleet.nodeHours) : null;
    const recentFleetPer1000 = fleet ? per1000(fleet.recentInterruptions, fleet.recentNodeHours) : null;
    const threshold = Math.max(rr.rateFloorPer1000, rr.avoidRateRatio * (fleetPer1000 ?? 0));
    const recentThreshold = Math.max(rr.rateFloorPer1000, rr.avoidRateRatio * (recentFleetPer1000 ?? 0));
    // After a return the rate is judged on what came since (basisFrom), as the share is: the evidence that put the
    // pool in `avoid` cannot put it straight back.
    const longFrom = basisFrom;
    const recentFrom = Math.max(basisFrom, t - rr.recentWindowMs);
    const window = rateFigures(ex, longFrom, t, rr.eventGapMs, rr.rateConfidence);
    const recent = rateFigures(ex, recentFrom, t, rr.eventGapMs, rr.rateConfidence);
    const allTimes = ex.interruptions.map(ms).filter((x) => x >= windowFrom && x <= t);
    const events = reclaimEvents(allTimes, rr.eventGapMs);
    const lastEvent = events.at(-1) ?? null;
    const onProbation = prev === 'watch' && previous?.basisFrom != null && ms(previous.basisFrom) > windowFrom;
    let probation: RateEvidence['probation'] = null;
    if (onProbation) {
      const from = ms(previous!.basisFrom!);
      probation = { nodeHours: round(nodeHoursFrom(ex, from, t), 1), events: events.filter((e) => e.at >= from).length, needed: rr.probeNodeHours };
    }
    rate = { window, recent, fleetPer1000, recentFleetPer1000, threshold, recentThreshold, events: events.length, lastEventAt: lastEvent ? new Date(lastEvent.at) : null, probation };
  }

  const rateText = (f: RateFigures, line: number, fleetRate: number | null): string => {
    const rr = rateRuleOf(config);
    const iv = f.interval ? ` (${Math.round(rr.rateConfidence * 100)}% bounds ${f.interval[0].toFixed(1)}–${f.interval[1].toFixed(1)})` : '';
    const fleetText = fleetRate !== null ? `${rr.avoidRateRatio} × the fleet's other pools (${fleetRate.toFixed(1)})` : 'no fleet rate';
    return `${f.events} reclaim event${f.events === 1 ? '' : 's'} (${f.interruptions} interruption${f.interruptions === 1 ? '' : 's'}) in ${Math.round(f.nodeHours).toLocaleString('en-US')} node-hours over the last ${duration(t - f.fromMs)}: ${(f.per1000 ?? 0).toFixed(1)} interruptions per 1,000 node-hours${iv}, against a line of ${line.toFixed(1)} (${fleetText}, at least ${rr.rateFloorPer1000})`;
  };

  if (rateMode) {
    const rr = rateRuleOf(config);
    const r = rate!;
    const lastEventEnd = r.lastEventAt ? r.lastEventAt.getTime() : null;
    // The back-off: each reclaim event in the window beyond the few that put the pool in `avoid` doubles the cool-off.
    const extra = Math.max(0, r.events - rr.minEvents);
    const rateCoolOff = Math.max(config.coolOffMs, Math.min(config.coolOffMaxMs, config.coolOffMs * 2 ** Math.min(extra, 30)));
    const coolText = `${duration(rateCoolOff)} without a reclaim event${rateCoolOff > config.coolOffMs ? ` (${duration(config.coolOffMs)} doubled for each of ${extra} further event${extra === 1 ? '' : 's'} in the last ${duration(config.windowMs)}${rateCoolOff >= config.coolOffMaxMs ? `, at most ${duration(config.coolOffMaxMs)}` : ''})` : ''}`;
    const bad = (f: RateFigures, line: number) => f.events >= rr.minEvents && f.interval !== null && f.interval[0] >= line;
    const enter = (reason: 'rate-above-avoid' | 'share-above-avoid' | 'relapse', why: string): typeof next => {
      const since = prev === 'avoid' ? ms(previous!.since) : t;
      return { state: 'avoid', reason, sentence: `Avoid: ${why}. It goes on probation after ${coolText}.`, basisFrom: null, restoreAt: Math.max(since, lastEventEnd ?? since) + rateCoolOff };
    };
    const keepBasis = basisFrom > windowFrom ? basisFrom : null;
    if (prev === 'avoid') {
      const since = ms(previous!.since);
      const restoreAt = Math.max(since, lastEventEnd ?? since) + rateCoolOff;
      if (t < restoreAt) {
        const last = lastEventEnd !== null && lastEventEnd >= since ? `the last reclaim event was ${duration(t - lastEventEnd)} ago` : `it was avoided ${duration(t - since)} ago`;
        next = { state: 'avoid', reason: 'cooling-off', sentence: `Still avoided: ${last}; it goes on probation after ${coolText}, in about ${duration(restoreAt - t)}.`, basisFrom: null, restoreAt };
      } else {
        next = {
          state: 'watch',
          reason: 'probation',
          sentence: `On probation: ${coolText}. It is offered again and judged on what its nodes live through from now: its first reclaim event sends it back; ${rr.probeNodeHours} node-hours without one make it healthy.`,
          basisFrom: t,
          restoreAt: null,
        };
      }
    } else if (r.probation && r.probation.events > 0) {
      next = enter('relapse', `a reclaim event on probation, ${Math.round(r.probation.nodeHours)} node-hours after its return`);
    } else if (bad(r.recent, r.recentThreshold)) {
      next = enter('rate-above-avoid', rateText(r.recent, r.recentThreshold, r.recentFleetPer1000));
    } else if (bad(r.window, r.threshold)) {
      next = enter('rate-above-avoid', rateText(r.window, r.threshold, r.fleetPer1000));
    } else if (enough && lower >= config.avoidShare) {
      next = enter('share-above-avoid', `${shareText(figures)}; the interval's lower bound is at least ${pct(config.avoidShare)}`);
    } else if (r.probation && r.probation.nodeHours < r.probation.needed) {
      next = {
        state: 'watch',
        reason: 'probation',
        sentence: `On probation: ${Math.round(r.probation.nodeHours)} of the ${r.probation.needed} node-hours without a reclaim event that make it healthy; its first reclaim event sends it back to avoid.`,
        basisFrom: keepBasis,
        restoreAt: null,
      };
    } else {
      const watch = (reason: PoolHealthReason, sentence: string): typeof next => ({ state: 'watch', reason, sentence: `Watch: ${sentence}.`, basisFrom: keepBasis, restoreAt: null });
      const suspect = r.window.events > 0 && (r.window.per1000 ?? 0) >= r.threshold;
      if (enough && lower >= config.watchShare) next = watch('share-above-watch', `${shareText(figures)}; the interval's lower bound is at least ${pct(config.watchShare)}`);
      else if (suspect) next = watch('rate-above-watch', `${rateText(r.window, r.threshold, r.fleetPer1000)}; the rate is above the line, its interval not yet`);
      else if (priceWatch) next = watch('price-near-on-demand', `the Spot price, ${money(price!.spotPerHour!)}, is ${pct(ratio!)} of on-demand (${money(price!.onDemandPerHour!)}), at least ${pct(config.priceWatchRatio)}`);
      else if (prev === 'watch' && enough && upper >= config.watchShare) next = watch('share-unclear', `${shareText(figures)}; the interval's upper bound is not yet under ${pct(config.watchShare)}`);
      else {
        const calm = r.probation ? `${Math.round(r.probation.nodeHours)} node-hours without a reclaim event since its return; ` : '';
        const rateNow = r.window.per1000 !== null ? `${r.window.per1000.toFixed(1)} interruptions per 1,000 node-hours over the last ${duration(t - r.window.fromMs)} (${r.window.events} reclaim event${r.window.events === 1 ? '' : 's'})` : 'no node-hours in the window';
        next = { state: 'healthy', reason: figures.samples === 0 ? 'no-samples' : enough ? 'share-below-watch' : 'too-few-samples', sentence: `Healthy: ${calm}${rateNow}.`, basisFrom: keepBasis, restoreAt: null };
      }
    }
  } else if (prev === 'avoid') {
    const since = ms(previous!.since);
    recovery = shareOf(inWindow.filter((s) => ms(s.seenAt) >= since));
    const restoreAt = Math.max(since, lastInterruption ?? since) + coolOffMs;
    const recoveryHigh = recovery.samples >= config.minSamples && (recovery.interval95?.[1] ?? 1) >= config.avoidShare;
    if (t < restoreAt) {
      const last = lastInterruption !== null && lastInterruption >= since ? `the last interruption was ${duration(t - lastInterruption)} ago` : `it was avoided ${duration(t - since)} ago`;
      next = { state: 'avoid', reason: 'cooling-off', sentence: `Still avoided: ${last}; it may be restored after ${duration(coolOffMs)} without an interruption${backOff}, in about ${duration(restoreAt - t)}.`, basisFrom: null, restoreAt };
    } else if (recoveryHigh) {
      next = {
        state: 'avoid',
        reason: 'recovery-share-high',
        sentence: `Still avoided: no interruption for ${duration(coolOffMs)}, but since it was avoided ${shareText(recovery)}; it is restored once the interval's upper bound is under ${pct(config.avoidShare)}.`,
        basisFrom: null,
        restoreAt,
      };
    } else {
      const since2 = recovery.samples > 0 ? `, and since it was avoided ${shareText(recovery)}` : '';
      next = { state: 'watch', reason: 'cool-off-ended', sentence: `Restored, watched: no interruption for ${duration(coolOffMs)}${since2}.`, basisFrom: since, restoreAt: null };
    }
  } else if (recentBurst) {
    next = avoidEntry('burst');
  } else if (enough && lower >= config.avoidShare) {
    next = avoidEntry('share-above-avoid');
  } else {
    const keepBasis = basisFrom > windowFrom ? basisFrom : null;
    const watch = (reason: PoolHealthReason, sentence: string): typeof next => ({ state: 'watch', reason, sentence: `Watch: ${sentence}.`, basisFrom: keepBasis, restoreAt: null });
    const priceText = priceWatch ? `the Spot price, ${money(price!.spotPerHour!)}, is ${pct(ratio!)} of on-demand (${money(price!.onDemandPerHour!)}), at least ${pct(config.priceWatchRatio)}` : '';
    if (enough && lower >= config.watchShare) {
      next = watch('share-above-watch', `${shareText(figures)}; the interval's lower bound is at least ${pct(config.watchShare)}`);
    } else if (priceWatch) {
      next = watch('price-near-on-demand', priceText);
    } else if (prev === 'watch' && enough && upper >= config.watchShare) {
      next = watch('share-unclear', `${shareText(figures)}; the interval's upper bound is not yet under ${pct(config.watchShare)}`);
    } else if (prev === 'watch' && !enough && keepBasis !== null) {
      next = watch('recovering', `recovering from avoid; ${figures.samples} rebalances with a known follow-up since then, fewer than the ${config.minSamples} needed to call it healthy`);
    } else if (figures.samples === 0) {
      next = { state: 'healthy', reason: 'no-samples', sentence: `Healthy: no rebalance with a known follow-up in the last ${duration(t - basisFrom)}.`, basisFrom: keepBasis, restoreAt: null };
    } else if (!enough) {
      next = {
        state: 'healthy',
        reason: 'too-few-samples',
        sentence: `Healthy: ${shareText(figures)}, but ${figures.samples} are fewer than the ${config.minSamples} needed to judge the share.`,
        basisFrom: keepBasis,
        restoreAt: null,
      };
    } else {
      next = { state: 'healthy', reason: 'share-below-watch', sentence: `Healthy: ${shareText(figures)}.`, basisFrom: keepBasis, restoreAt: null };
    }
  }

  const changed = (prev ?? 'healthy') !== next.state;
  return {
    pool,
    state: next.state,
    since: changed || !previous ? now : previous.since,
    from: prev,
    changed,
    reason: next.reason,
    sentence: next.sentence,
    basisFrom: next.basisFrom !== null ? new Date(next.basisFrom) : null,
    restoreAt: next.restoreAt !== null ? new Date(next.restoreAt) : null,
    evidence: {
      ...figures,
      windowFrom: new Date(windowFrom),
      basisFrom: new Date(basisFrom),
      leadTimeMinutes: leads.length > 0 ? { samples: leads.length, median: round(quantile(leads, 0.5), 2), p90: round(quantile(leads, 0.9), 2) } : null,
      interruptions: times.length,
      bursts: bursts.length,
      lastBurst: lastBurst ? { at: new Date(lastBurst.at), size: lastBurst.size, spanMs: lastBurst.spanMs } : null,
      lastInterruptionAt: lastInterruption !== null ? new Date(lastInterruption) : null,
      price: price ? { ...price, ratio } : null,
      recovery,
      rate,
    },
  };
}
