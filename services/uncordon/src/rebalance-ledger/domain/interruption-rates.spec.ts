import { describe, expect, it } from '@jest/globals';
import { interruptionRates, poissonInterval95, rateOf } from './interruption-rates.js';

const spot = (instanceType: string, zone: string, rebalanceId: string | null = null) => ({ instanceType, zone, capacityType: 'spot', rebalanceId });
const hours = (instanceType: string, zone: string, nodeHours: number, nodes: number, capacityType = 'spot') => ({ instanceType, zone, capacityType, nodeHours, nodes });

describe('poissonInterval95 — the exact (Garwood) 95% interval of a Poisson count', () => {
  it.each([
    // Published values (χ²(0.025; 2k)/2, χ²(0.975; 2k+2)/2).
    [0, 0, 3.689],
    [1, 0.0253, 5.572],
    [2, 0.2422, 7.225],
    [5, 1.6235, 11.668],
    [10, 4.7954, 18.39],
    [50, 37.111, 65.92],
  ])('k = %i: [%f, %f]', (k, lo, hi) => {
    const [l, h] = poissonInterval95(k);
    expect(l).toBeCloseTo(lo, 2);
    expect(h).toBeCloseTo(hi, 1);
  });
});

describe('rateOf — interruptions per 1,000 node-hours', () => {
  it.each([
    ['3 interruptions in 1,250 node-hours is 2.4 per 1,000, the interval scaled the same', 3, 1250, 2.4, [0.495, 7.012]],
    ['none in 2,000 node-hours is 0 — with an interval up to 1.8, not "safe"', 0, 2000, 0, [0, 1.844]],
    ['no node-hours: no rate', 2, 0, null, null],
  ])('%s', (_, k, h, rate, interval) => {
    const r = rateOf(k, 0, h, 10);
    expect(r.per1000NodeHours).toBe(rate);
    if (interval === null) expect(r.interval95).toBeNull();
    else {
      expect(r.interval95![0]).toBeCloseTo(interval[0]!, 2);
      expect(r.interval95![1]).toBeCloseTo(interval[1]!, 2);
    }
  });
});

describe('interruptionRates — per Spot pool and for the cluster', () => {
  it('counts every interruption, with or without a recommendation, over the pool’s Spot node-hours; on-demand hours are left out', () => {
    const out = interruptionRates(
      [spot('m5.large', 'us-east-1a'), spot('m5.large', 'us-east-1a', 'row-1'), spot('c5.large', 'us-east-1b')],
      [hours('m5.large', 'us-east-1a', 400, 10), hours('c5.large', 'us-east-1b', 1000, 5), hours('m5.large', 'us-east-1a', 900, 3, 'on-demand')],
    );
    expect(out.byPool.map((p) => [p.instanceType, p.zone, p.interruptions, p.withoutRecommendation, p.nodeHours, p.per1000NodeHours])).toEqual([
      ['m5.large', 'us-east-1a', 2, 1, 400, 5],
      ['c5.large', 'us-east-1b', 1, 1, 1000, 1],
    ]);
    expect([out.cluster.interruptions, out.cluster.withoutRecommendation, out.cluster.nodeHours, out.cluster.nodes, out.cluster.per1000NodeHours]).toEqual([3, 2, 1400, 15, 2.143]);
  });

  it('a pool with node-hours and no interruption is listed with a rate of 0 and its interval', () => {
    const out = interruptionRates([], [hours('m5.large', 'us-east-1a', 500, 2)]);
    expect(out.byPool).toEqual([expect.objectContaining({ interruptions: 0, per1000NodeHours: 0, interval95: [0, 7.378] })]);
  });

  it('without node-sync’s answer the counts stand and the rates are null', () => {
    const out = interruptionRates([spot('m5.large', 'us-east-1a')], null);
    expect(out.byPool).toEqual([expect.objectContaining({ interruptions: 1, nodeHours: 0, per1000NodeHours: null, interval95: null })]);
  });
});
