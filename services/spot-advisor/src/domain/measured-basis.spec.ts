import { describe, expect, it } from '@jest/globals';
import type { PoolFigures } from '@nodes-manager/contracts';
import { bucketOfShare, horizonWords, withMeasuredBasis } from './measured-basis.js';
import type { MarketEntry } from './spot-market.js';

const anEntry = (): MarketEntry => ({
  instanceType: 'm5.large',
  availabilityZone: 'us-east-1a',
  spotUsdPerHour: 0.04,
  spotPriceSince: new Date('2026-03-10T11:00:00Z'),
  onDemandUsdPerHour: 0.096,
  onDemandKnown: true,
  savingsPct: 58.3,
  trend: { direction: 'flat', changePct: 0, fromUsdPerHour: 0.04 },
  interruption: { bucket: '<5%', frequencyPct: [0, 5], basis: 'price-volatility+spot-advisor-snapshot', volatility: null, priceToOnDemand: 0.417, explanation: 'From price.' },
});
const aPool = (interrupted: number, samples: number, interval: [number, number]): PoolFigures => ({
  instanceType: 'm5.large', zone: 'us-east-1a', rebalances: samples, open: 0, outcomes: { observed: 0, uncordoned: 0, recordoned: 0, interrupted, removed: 0, survived: samples - interrupted },
  samples, interrupted, interruptedShare: interrupted / samples, interval95: interval, leadTimeMinutes: { samples: interrupted, median: 40, p90: 95 }, nodeHoursGivenBack: 12,
});

describe('withMeasuredBasis', () => {
  it.each([
    ['a pool never measured keeps the estimate and says there is no measurement', undefined, { used: 'estimate', bucket: '<5%', measured: null }],
    ['a pool with too few samples keeps the estimate, the measurement shown beside it', aPool(3, 10, [0.1, 0.6]), { used: 'estimate', bucket: '<5%', measured: expect.objectContaining({ samples: 10, interrupted: 3 }) }],
    [
      'a pool with enough samples uses the measured share: its bucket and its 95% interval',
      aPool(30, 100, [0.2189, 0.3958]),
      { used: 'measured-in-this-cluster', bucket: '>20%', frequencyPct: [21.9, 39.6], measured: expect.objectContaining({ samples: 100, p90LeadMinutes: 95, horizonHours: 24 }) },
    ],
  ])('%s', (_, pool, expected) => {
    const e = withMeasuredBasis(anEntry(), pool, 20, 24);
    expect(e.interruption).toMatchObject(expected);
    expect(e.interruption.basis).toBe('price-volatility+spot-advisor-snapshot');
  });

  it('says which quantity it measured, and what the estimate from price said', () => {
    const e = withMeasuredBasis(anEntry(), aPool(30, 100, [0.2189, 0.3958]), 20, 24);
    expect(e.interruption.explanation).toContain('30 of 100 rebalance recommendations');
    expect(e.interruption.explanation).toContain('not EC2\'s monthly interruption frequency');
    expect(e.interruption.explanation).toContain('said <5%');
  });

  it.each([[0.02, '<5%'], [0.05, '5-10%'], [0.149, '10-15%'], [0.19, '15-20%'], [0.3, '>20%']] as const)('share %d falls in %s', (share, bucket) => {
    expect(bucketOfShare(share)).toBe(bucket);
  });

  it.each([
    [24, '24 h'],
    [2.5, '2.5 h'],
    [1 / 60, '1 min'],
    [0.0125, '45 s'],
  ])('a horizon of %d h reads %s', (hours, words) => {
    expect(horizonWords(hours)).toBe(words);
  });

  it.each([
    ['enough samples', aPool(30, 100, [0.2189, 0.3958])],
    ['too few samples', aPool(3, 10, [0.1, 0.6])],
  ])('with %s, a one-minute horizon reads in minutes, never as a long fraction of an hour', (_, pool) => {
    const text = withMeasuredBasis(anEntry(), pool, 20, 1 / 60).interruption.explanation;
    expect(text).toContain('within 1 min');
    expect(text).not.toMatch(/\d\.\d{3,}/);
  });
});
