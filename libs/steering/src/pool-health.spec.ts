import { describe, expect, it } from '@jest/globals';
import { DEFAULT_POOL_HEALTH_CONFIG, poolHealthConfigFrom, validatePoolHealthConfig, type PoolHealthConfig } from './pool-health-config.js';
import { decidePoolHealth, findBursts, type PoolHealthInput, type PoolHealthPrevious, type PoolSample } from './pool-health.js';
import type { PoolExposure, RateBaseline } from './pool-rate.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = new Date('2026-06-10T12:00:00Z');
const at = (msAgo: number) => new Date(NOW.getTime() - msAgo);
const config: PoolHealthConfig = { ...DEFAULT_POOL_HEALTH_CONFIG };

/** aSample — a rebalance seen `hoursAgo`, survived unless told; an interruption 30 min later by default. */
function aSample(o: { hoursAgo: number; interrupted?: boolean; leadMin?: number; unknown?: boolean }): PoolSample {
  const seenAt = at(o.hoursAgo * HOUR);
  if (o.unknown) return { seenAt, outcome: 'unknown', interruptedAt: null, leadTimeMs: null };
  if (!o.interrupted) return { seenAt, outcome: 'survived', interruptedAt: null, leadTimeMs: null };
  const lead = (o.leadMin ?? 30) * MIN;
  return { seenAt, outcome: 'interrupted', interruptedAt: new Date(seenAt.getTime() + lead), leadTimeMs: lead };
}

/** samples — `k` interrupted and `n − k` survived, spread one a day hours apart (no two interruptions close). */
function samples(k: number, n: number, fromHoursAgo = 150): PoolSample[] {
  return Array.from({ length: n }, (_, i) => aSample({ hoursAgo: fromHoursAgo - i * 3, interrupted: i < k }));
}

/** recentSamples — like {@link samples}, within the last 8 hours (half an hour apart). */
function recentSamples(k: number, n: number): PoolSample[] {
  return Array.from({ length: n }, (_, i) => aSample({ hoursAgo: 7.5 - i * 0.5, interrupted: i < k, leadMin: 1 }));
}

/** burst — `size` interruptions `spacingMin` apart, the last `lastMinAgo` minutes ago. */
function burst(size: number, lastMinAgo: number, spacingMin = 1): PoolSample[] {
  return Array.from({ length: size }, (_, i) => {
    const interruptedAt = at((lastMinAgo + (size - 1 - i) * spacingMin) * MIN);
    return { seenAt: new Date(interruptedAt.getTime() - 20 * MIN), outcome: 'interrupted' as const, interruptedAt, leadTimeMs: 20 * MIN };
  });
}

const prev = (state: PoolHealthPrevious['state'], hoursAgo: number, basisHoursAgo?: number): PoolHealthPrevious => ({
  state,
  since: at(hoursAgo * HOUR),
  basisFrom: basisHoursAgo !== undefined ? at(basisHoursAgo * HOUR) : null,
});

function decide(o: Partial<PoolHealthInput> & { cfg?: Partial<PoolHealthConfig> }) {
  return decidePoolHealth(
    { pool: { instanceType: 'm5.large', zone: 'us-east-1a' }, samples: o.samples ?? [], price: o.price ?? null, previous: o.previous ?? null, now: o.now ?? NOW, exposure: o.exposure ?? null, fleet: o.fleet ?? null },
    { ...config, ...o.cfg },
  );
}

describe('decidePoolHealth', () => {
  it.each([
    ['no samples is healthy', { samples: [] }, 'healthy', 'no-samples'],
    ['1 of 20 interrupted is healthy', { samples: samples(1, 20) }, 'healthy', 'share-below-watch'],
    ['10 of 20 interrupted (lower bound 30% ≥ 25%) enters watch', { samples: samples(10, 20) }, 'watch', 'share-above-watch'],
    ['16 of 20 interrupted (lower bound ≥ 50%) enters avoid straight from healthy', { samples: samples(16, 20) }, 'avoid', 'share-above-avoid'],
    ['16 of 20 interrupted enters avoid from watch', { samples: samples(16, 20), previous: prev('watch', 10) }, 'avoid', 'share-above-avoid'],
    ['12 of 20 (60%, lower bound 39%) is watch, not avoid', { samples: samples(12, 20) }, 'watch', 'share-above-watch'],
  ] as const)('entry: %s', (_, input, state, reason) => {
    const h = decide(input as Partial<PoolHealthInput>);
    expect([h.state, h.reason]).toEqual([state, reason]);
    expect(h.sentence).not.toMatch(/\d\.\d{3,}/);
  });

  it.each([
    ['3 of 3 interrupted, days apart', samples(3, 3)],
    ['9 of 9 interrupted, days apart (one fewer than the 10 needed)', samples(9, 9)],
  ])('too few samples never avoid on the share alone: %s', (_, s) => {
    const h = decide({ samples: s });
    expect(h.state).toBe('healthy');
    expect(h.reason).toBe('too-few-samples');
    expect(h.sentence).toContain('fewer than the 10 needed');
  });

  it.each([
    ['3 interruptions within 2 min, 10 min ago', burst(3, 10), 'avoid'],
    ['3 interruptions within 10 min (wider than the 5 min burst window)', burst(3, 10, 5), 'healthy'],
    ['2 interruptions within 1 min (smaller than a burst of 3)', burst(2, 10), 'healthy'],
    ['a burst 7 h ago, longer than the 6 h cool-off', burst(3, 7 * 60), 'healthy'],
  ] as const)('burst: %s', (_, s, state) => {
    const h = decide({ samples: s });
    expect(h.state).toBe(state);
    if (state === 'avoid') {
      expect(h.reason).toBe('burst');
      expect(h.evidence.lastBurst?.size).toBe(3);
      expect(h.restoreAt).toEqual(new Date(NOW.getTime() + 6 * HOUR)); // the later of entry and last interruption
      expect(h.sentence).toMatch(/3 interruptions came within 2 min \(a burst\), the last 10 min ago/);
    }
  });

  it('a burst of interruptions at the same moment reads "at once", not "within 0 s"', () => {
    const h = decide({ samples: burst(3, 10, 0) });
    expect(h.state).toBe('avoid');
    expect(h.sentence).toMatch(/3 interruptions came at once \(a burst\), the last 10 min ago/);
  });

  it('a burst enters avoid with too few samples for the share', () => {
    const h = decide({ samples: [...burst(3, 5)] });
    expect(h.evidence.samples).toBe(3);
    expect(h.state).toBe('avoid');
  });

  it.each([
    ['the last interruption 2 h ago: still cooling off', [...samples(16, 20, 160), ...burst(1, 120)], 'avoid', 'cooling-off'],
    ['entered 3 h ago on old evidence: the cool-off counts from the entry', samples(16, 20, 160), 'avoid', 'cooling-off'],
  ] as const)('cool-off: %s', (_, s, state, reason) => {
    const h = decide({ samples: s, previous: prev('avoid', 3) });
    expect([h.state, h.reason]).toEqual([state, reason]);
    expect(h.changed).toBe(false);
    expect(h.since).toEqual(at(3 * HOUR));
    expect(h.restoreAt!.getTime()).toBeGreaterThan(NOW.getTime());
    expect(h.sentence).toMatch(/in about \d+ h/);
  });

  it('cool-off over with no new samples: restored to watch, never straight to healthy', () => {
    const h = decide({ samples: samples(16, 20, 160), previous: prev('avoid', 7) });
    expect([h.state, h.reason, h.changed, h.from]).toEqual(['watch', 'cool-off-ended', true, 'avoid']);
    expect(h.basisFrom).toEqual(at(7 * HOUR));
    expect(h.since).toEqual(NOW);
  });

  it('cool-off over but 6 of 12 rebalances since the entry interrupted: still avoided', () => {
    const since = 60;
    const recent = Array.from({ length: 12 }, (_, i) => aSample({ hoursAgo: since - 1 - i * 4, interrupted: i < 6, leadMin: 10 }));
    const h = decide({ samples: [...samples(16, 20, 160), ...recent], previous: prev('avoid', since) });
    expect([h.state, h.reason]).toEqual(['avoid', 'recovery-share-high']);
    expect(h.evidence.recovery).toMatchObject({ samples: 12, interrupted: 6 });
  });

  it("cool-off over and A's later recommendations all survived: restored", () => {
    const recent = Array.from({ length: 12 }, (_, i) => aSample({ hoursAgo: 30 - i * 2 }));
    const h = decide({ samples: [...samples(16, 20, 160), ...recent], previous: prev('avoid', 40) });
    expect([h.state, h.reason]).toEqual(['watch', 'cool-off-ended']);
    expect(h.sentence).toContain('0 of 12 rebalances');
  });

  /** bursts — one burst of 3 (1 min apart) ending at each of `hoursAgo`. */
  const bursts = (...hoursAgo: number[]) => hoursAgo.flatMap((h) => burst(3, h * 60));

  it.each([
    ['first burst: 6 h, restored after 7 h calm', bursts(7), 6, 'watch'],
    ['one earlier burst in the window: 12 h, still avoided after 7 h', bursts(30, 7), 12, 'avoid'],
    ['two earlier bursts: 24 h', bursts(60, 30, 7), 24, 'avoid'],
    ['five earlier bursts: 6 h × 32 capped at 48 h', bursts(130, 110, 90, 60, 30, 7), 48, 'avoid'],
    ['earlier bursts older than the 7-day window (a long calm) no longer count: 6 h', bursts(24 * 7 + 10, 24 * 7 + 5, 7), 6, 'watch'],
  ] as const)('back-off: %s', (_, s, coolOffHours, state) => {
    const h = decide({ samples: s, previous: prev('avoid', 7) });
    expect(h.state).toBe(state);
    if (state === 'avoid') {
      expect(h.reason).toBe('cooling-off');
      expect(h.restoreAt).toEqual(new Date(at(7 * HOUR).getTime() + coolOffHours * HOUR));
      expect(h.sentence).toContain(`may be restored after ${coolOffHours === 48 ? '2 days' : `${coolOffHours} h`} without an interruption (6 h doubled for each of`);
    } else {
      expect(h.reason).toBe('cool-off-ended');
    }
  });

  it('back-off: re-entering avoid on a burst sets the grown cool-off from the entry', () => {
    const h = decide({ samples: bursts(30, 0.2), previous: prev('watch', 10, 20) });
    expect([h.state, h.reason]).toEqual(['avoid', 'burst']);
    expect(h.restoreAt).toEqual(new Date(NOW.getTime() + 12 * HOUR)); // the later of entry (now) and last interruption
    expect(h.sentence).toMatch(/restored after 12 h without an interruption \(6 h doubled for each of 1 earlier burst in the last 7 d(ays)?\)/);
  });

  it('back-off: a longest cool-off equal to the cool-off turns the growth off', () => {
    const h = decide({ samples: bursts(60, 30, 7), previous: prev('avoid', 7), cfg: { coolOffMaxMs: 6 * HOUR } });
    expect([h.state, h.reason]).toEqual(['watch', 'cool-off-ended']);
  });

  it('hysteresis: restored pool does not go back to avoid on the evidence that put it there', () => {
    const old = samples(16, 20, 160);
    const h = decide({ samples: old, previous: prev('watch', 1, 8) });
    expect(h.state).toBe('watch');
    expect(h.reason).toBe('recovering');
    expect(h.evidence.samples).toBe(0);
  });

  it.each([
    ['upper bound still ≥ 25% (3 of 15)', recentSamples(3, 15), 'watch', 'share-unclear'],
    ['upper bound under 25% (0 of 15)', recentSamples(0, 15), 'healthy', 'share-below-watch'],
  ] as const)('hysteresis: leaving watch needs the %s', (_, s, state, reason) => {
    const h = decide({ samples: s, previous: prev('watch', 1, 8) });
    expect([h.state, h.reason]).toEqual([state, reason]);
  });

  it('hysteresis: a share between the thresholds enters nothing from healthy but keeps watch', () => {
    const s = samples(6, 20); // 30%, interval 15–52%: lower < 25%, upper ≥ 25%
    expect(decide({ samples: s }).state).toBe('healthy');
    expect(decide({ samples: s, previous: prev('watch', 5) }).state).toBe('watch');
  });

  it.each([
    ['Spot at 95% of on-demand, no samples: watch', { spotPerHour: 0.0912, onDemandPerHour: 0.096 }, 'watch', 'price-near-on-demand'],
    ['Spot at 40% of on-demand: healthy', { spotPerHour: 0.0384, onDemandPerHour: 0.096 }, 'healthy', 'no-samples'],
    ['Spot above on-demand: watch, never avoid', { spotPerHour: 0.2, onDemandPerHour: 0.096 }, 'watch', 'price-near-on-demand'],
    ['on-demand price unknown: healthy', { spotPerHour: 0.2, onDemandPerHour: null }, 'healthy', 'no-samples'],
  ] as const)('price only: %s', (_, price, state, reason) => {
    const h = decide({ price });
    expect([h.state, h.reason]).toEqual([state, reason]);
    if (reason === 'price-near-on-demand') expect(h.sentence).toMatch(/\$0\.\d{3}\/h, is \d+% of on-demand \(\$0\.096\/h\)/);
  });

  it('price alone never holds or enters avoid', () => {
    const h = decide({ price: { spotPerHour: 1, onDemandPerHour: 0.1 }, previous: prev('avoid', 7) });
    expect(h.state).toBe('watch');
  });

  it('samples outside the window, after now, and with unknown outcomes are not counted', () => {
    const s = [...samples(16, 20, 24 * 8 + 60), aSample({ hoursAgo: 1, unknown: true }), aSample({ hoursAgo: -1, interrupted: true })];
    const h = decide({ samples: s });
    expect(h.evidence.samples).toBe(0);
    expect(h.state).toBe('healthy');
  });

  it('the evidence carries share, interval, samples, bursts and lead times', () => {
    const h = decide({ samples: [...samples(16, 20), ...burst(3, 30)] });
    expect(h.evidence).toMatchObject({ samples: 23, interrupted: 19, bursts: 1, interruptions: 19 });
    expect(h.evidence.interval95![0]).toBeGreaterThan(0.5);
    expect(h.evidence.leadTimeMinutes).toMatchObject({ samples: 19 });
  });

  it('a first decision of healthy is no transition; of watch or avoid it is', () => {
    expect(decide({}).changed).toBe(false);
    expect(decide({ samples: samples(16, 20) }).changed).toBe(true);
  });
});

describe('findBursts', () => {
  it.each([
    ['four interruptions within the window count once', [0, 1, 2, 3].map((m) => m * MIN), [{ size: 4 }]],
    ['two separate bursts', [0, 1, 2, 60, 61, 62].map((m) => m * MIN), [{ size: 3 }, { size: 3 }]],
    ['spread out: none', [0, 10, 20].map((m) => m * MIN), []],
  ] as const)('%s', (_, times, want) => {
    expect(findBursts(times, 3, 5 * MIN)).toMatchObject(want);
  });
});

describe('pool-health configuration', () => {
  it('the defaults are sound', () => expect(validatePoolHealthConfig(DEFAULT_POOL_HEALTH_CONFIG)).toEqual([]));

  it.each([
    ['STEERING_WATCH_SHARE above the avoid share', { STEERING_WATCH_SHARE: '0.6' }, /STEERING_WATCH_SHARE \(0\.6\) must be below STEERING_AVOID_SHARE/],
    ['a share above 1', { STEERING_AVOID_SHARE: '1.5' }, /STEERING_AVOID_SHARE must be a number above 0 and at most 1/],
    ['a burst of one', { STEERING_BURST_SIZE: '1' }, /STEERING_BURST_SIZE must be a whole number of at least 2/],
    ['text for a number', { STEERING_COOL_OFF_HOURS: 'six' }, /STEERING_COOL_OFF_HOURS must be a number \(got "six"\)/],
    ['a window no longer than the cool-off', { STEERING_WINDOW_HOURS: '6' }, /STEERING_WINDOW_HOURS must be longer than STEERING_COOL_OFF_HOURS/],
    ['a longest cool-off below the cool-off', { STEERING_COOL_OFF_MAX_HOURS: '4' }, /STEERING_COOL_OFF_MAX_HOURS must be at least STEERING_COOL_OFF_HOURS/],
    ['a window no longer than the longest cool-off', { STEERING_COOL_OFF_MAX_HOURS: '200' }, /STEERING_WINDOW_HOURS must be longer than STEERING_COOL_OFF_MAX_HOURS/],
    ['zero samples', { STEERING_MIN_SAMPLES: '0' }, /STEERING_MIN_SAMPLES must be a whole number of at least 1/],
  ])('refuses %s', (_, env, problem) => {
    const { problems } = poolHealthConfigFrom(env);
    expect(problems.join('\n')).toMatch(problem);
  });

  it('reads minutes and hours', () => {
    const { config: c, problems } = poolHealthConfigFrom({ STEERING_COOL_OFF_HOURS: '2', STEERING_COOL_OFF_MAX_HOURS: '24', STEERING_BURST_WINDOW_MINUTES: '3' });
    expect(problems).toEqual([]);
    expect([c.coolOffMs, c.coolOffMaxMs, c.burstWindowMs]).toEqual([2 * HOUR, 24 * HOUR, 3 * MIN]);
  });
});

/** exposure — `nodes` Spot nodes for the last `hours` (from `untilHoursAgo`), and interruptions at `minutesAgo`. */
function exposure(o: { nodes: number; hours?: number; untilHoursAgo?: number; at?: number[] }): PoolExposure {
  const hours = o.hours ?? 24 * 7;
  const until = o.untilHoursAgo ?? 0;
  return {
    nodeHours: Array.from({ length: hours }, (_, i) => ({ from: at((until + hours - i) * HOUR), nodeHours: o.nodes })),
    interruptions: (o.at ?? []).map((m) => at(m * MIN)),
  };
}
/** events — reclaim events of `size` interruptions a minute apart, each ending at one of `hoursAgo`. */
const events = (size: number, ...hoursAgo: number[]) => hoursAgo.flatMap((h) => Array.from({ length: size }, (_, i) => h * 60 + i));
/** fleet — the other pools: `per1000` interruptions per 1,000 node-hours over 3,000 node-hours a day. */
const fleet = (per1000: number): RateBaseline => ({ nodeHours: 21_000, interruptions: (21_000 * per1000) / 1000, recentNodeHours: 3_000, recentInterruptions: (3_000 * per1000) / 1000 });

describe('decidePoolHealth: the rate rule (exposure known)', () => {
  it.each([
    ['one burst of 9 in 10 nodes is one reclaim event: watched, not avoided on it alone', { exposure: exposure({ nodes: 10, at: events(9, 2) }), fleet: fleet(1) }, 'watch', 'rate-above-watch'],
    ['three events of 3 within a day in 30 nodes, the fleet at 1 per 1,000 node-hours: avoid within hours', { exposure: exposure({ nodes: 30, at: events(3, 20, 12, 2) }), fleet: fleet(1) }, 'avoid', 'rate-above-avoid'],
    ['the same events when the whole fleet is reclaimed as often: not singled out', { exposure: exposure({ nodes: 30, at: events(3, 20, 12, 2) }), fleet: fleet(12) }, 'healthy', 'no-samples'],
    ['interruptions with no recommendation count: no ledger sample, five events of 2 over the week', { exposure: exposure({ nodes: 10, at: events(2, 150, 120, 90, 60, 30) }), fleet: fleet(0.5) }, 'avoid', 'rate-above-avoid'],
    ['calm: 1 interruption in 5,000 node-hours', { exposure: exposure({ nodes: 30, at: [600] }), fleet: fleet(1) }, 'healthy', 'no-samples'],
    ['a burst alone with the share too thin: healthy or watch, never avoid', { samples: burst(3, 10), exposure: exposure({ nodes: 100, at: [10, 11, 12] }), fleet: fleet(1) }, 'healthy', 'too-few-samples'],
  ] as const)('%s', (_, input, state, reason) => {
    const h = decide(input as Partial<PoolHealthInput>);
    expect([h.state, h.reason]).toEqual([state, reason]);
    expect(h.evidence.rate).not.toBeNull();
    expect(h.sentence).not.toMatch(/\d\.\d{3,}/);
  });

  it('the entry sentence gives the rate, its bounds and the line', () => {
    const h = decide({ exposure: exposure({ nodes: 30, at: events(3, 20, 12, 2) }), fleet: fleet(1) });
    expect(h.sentence).toMatch(/^Avoid: 3 reclaim events \(9 interruptions\) in 720 node-hours over the last 24 h: 12\.5 interruptions per 1,000 node-hours \(90% bounds \d+\.\d–\d+\.\d\), against a line of 3\.0 \(3 × the fleet's other pools \(1\.0\), at least 2\)\. It goes on probation after 12 h without a reclaim event/);
  });

  it.each([
    ['the last event 2 h ago: still avoided', events(3, 40, 30, 2), 'avoid', 'cooling-off'],
    ['a day calm after 3 events (cool-off 12 h): on probation, offered again', events(3, 60, 40, 24), 'watch', 'probation'],
    ['a day calm after 6 events: the cool-off backed off to 48 h, still avoided', events(3, 120, 100, 80, 60, 40, 24), 'avoid', 'cooling-off'],
  ] as const)('leaving avoid: %s', (_, times, state, reason) => {
    const h = decide({ exposure: exposure({ nodes: 30, untilHoursAgo: 30, hours: 100, at: times }), fleet: fleet(1), previous: prev('avoid', 30) });
    expect([h.state, h.reason]).toEqual([state, reason]);
    if (reason === 'probation') expect(h.basisFrom).toEqual(NOW);
  });

  it.each([
    ['no node-hours since the return (the pool emptied under drift): stays on probation — no restore on missing evidence', exposure({ nodes: 30, untilHoursAgo: 12, hours: 100, at: events(3, 60, 40) }), 'watch', 'probation'],
    ['60 node-hours calm since the return: still on probation', exposure({ nodes: 10, hours: 6, at: events(3, 60, 40) }), 'watch', 'probation'],
    ['120 node-hours calm since the return: healthy', exposure({ nodes: 20, hours: 6, at: events(3, 60, 40) }), 'healthy', 'no-samples'],
    ['a reclaim event on probation: back to avoid at once', exposure({ nodes: 20, hours: 6, at: [...events(3, 60, 40), 120] }), 'avoid', 'relapse'],
  ] as const)('probation: %s', (_, ex, state, reason) => {
    const h = decide({ exposure: ex, fleet: fleet(1), previous: prev('watch', 10, 10) });
    expect([h.state, h.reason]).toEqual([state, reason]);
  });
});

describe('rate-rule configuration', () => {
  it.each([
    ['a ratio under 1', { STEERING_AVOID_RATE_RATIO: '0.5' }, /STEERING_AVOID_RATE_RATIO must be a number of at least 1/],
    ['a confidence of 1', { STEERING_RATE_CONFIDENCE: '1' }, /STEERING_RATE_CONFIDENCE must be above 0.5 and below 1/],
    ['a recent window longer than the window', { STEERING_RECENT_WINDOW_HOURS: '500' }, /STEERING_RECENT_WINDOW_HOURS must be above 0 and at most STEERING_WINDOW_HOURS/],
    ['zero events', { STEERING_MIN_EVENTS: '0' }, /STEERING_MIN_EVENTS must be a whole number of at least 1/],
  ])('refuses %s', (_, env, problem) => {
    expect(poolHealthConfigFrom(env).problems.join('\n')).toMatch(problem);
  });

  it('reads the event gap in minutes and the windows in hours', () => {
    const { config: c, problems } = poolHealthConfigFrom({ STEERING_EVENT_GAP_MINUTES: '5', STEERING_RECENT_WINDOW_HOURS: '12', STEERING_PROBE_NODE_HOURS: '40' });
    expect(problems).toEqual([]);
    expect([c.eventGapMs, c.recentWindowMs, c.probeNodeHours]).toEqual([5 * MIN, 12 * HOUR, 40]);
  });
});
