import { describe, expect, it } from '@jest/globals';
import { poissonInterval, rateFigures, reclaimEvents, type PoolExposure } from './pool-rate.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T = Date.parse('2026-06-10T12:00:00Z');

/** exposure — `nodes` running for the last `hours` hours, and interruptions `minutesAgo`. */
const exposure = (nodes: number, hours: number, ...minutesAgo: number[]): PoolExposure => ({
  nodeHours: Array.from({ length: hours }, (_, i) => ({ from: new Date(T - (hours - i) * HOUR), nodeHours: nodes })),
  interruptions: minutesAgo.map((m) => new Date(T - m * MIN)),
});

describe('reclaimEvents', () => {
  it.each([
    ['interruptions within minutes of each other are one event', [0, 1, 2, 3], [4]],
    ['a chain each within the gap of the previous is one event', [0, 8, 16, 24], [4]],
    ['an hour apart: two events', [0, 60], [1, 1]],
    ['none: no event', [], []],
  ] as const)('%s', (_, minutes, sizes) => {
    expect(reclaimEvents(minutes.map((m) => m * MIN), 10 * MIN).map((e) => e.size)).toEqual(sizes);
  });
});

describe('poissonInterval', () => {
  it.each([
    [0, 0.975, 0, 3.689],
    [1, 0.975, 0.0253, 5.572],
    [2, 0.975, 0.2422, 7.225],
    [10, 0.975, 4.795, 18.39],
    [2, 0.9, 0.5318, 5.322],
  ])('%i events at %f: [%f, %f] (Garwood)', (k, conf, lo, hi) => {
    const [l, h] = poissonInterval(k, conf);
    expect(l).toBeCloseTo(lo, 2);
    expect(h).toBeCloseTo(hi, 1);
  });
});

describe('rateFigures', () => {
  it('a burst of 9 is one event: the rate is high, its lower bound is not', () => {
    const f = rateFigures(exposure(30, 24, 60, 61, 62, 62, 63, 63, 64, 65, 66), T - 24 * HOUR, T, 10 * MIN, 0.9);
    expect([f.events, f.interruptions, f.nodeHours]).toEqual([1, 9, 720]);
    expect(f.per1000).toBeCloseTo(12.5, 1);
    expect(f.interval![0]).toBeLessThan(1.5); // 0.105 events × 9 / 720 h
  });

  it('three events of 3: the lower bound is far above zero', () => {
    const f = rateFigures(exposure(30, 24, 60, 61, 62, 400, 401, 402, 900, 901, 902), T - 24 * HOUR, T, 10 * MIN, 0.9);
    expect(f.events).toBe(3);
    expect(f.interval![0]).toBeGreaterThan(4);
  });

  it('no node-hours: no rate', () => {
    expect(rateFigures(exposure(0, 0), T - 24 * HOUR, T, 10 * MIN, 0.9).per1000).toBeNull();
  });
});
