import { describe, expect, it } from '@jest/globals';
import { alternating, aSample, DAY, NOW, priceSteps } from '../../test/spot-price.builder.js';
import { estimateInterruption } from './estimate-interruption.js';
import type { InterruptionBucket, SpotPriceSample } from './spot-price.js';

const WEEK = 7 * DAY;
const flatAt = (usd: number): SpotPriceSample[] => priceSteps([[240, usd]]);
const swingingTwiceADay = alternating({ everyHours: 12, days: 7, last: 0.0495, other: 0.0405 });
const swingingWildlyNearOnDemand = alternating({ everyHours: 2, days: 7, last: 0.1, other: 0.06 });

describe('estimateInterruption from price volatility', () => {
  it.each([
    ['a flat price at 40% of On-Demand', flatAt(0.04), 0.1, '<5%', 0],
    ['a flat price at 90% of On-Demand', flatAt(0.09), 0.1, '5-10%', 3],
    ['a price swinging ±10% twice a day at about 45% of On-Demand', swingingTwiceADay, 0.1, '5-10%', 3],
    ['a price swinging ±25% twelve times a day, now at On-Demand', swingingWildlyNearOnDemand, 0.1, '>20%', 9],
    ['the same swings with On-Demand unknown (price level not counted)', swingingWildlyNearOnDemand, undefined, '15-20%', 6],
  ] as [string, SpotPriceSample[], number | undefined, InterruptionBucket, number][])(
    '%s is %s',
    (_what, samples, onDemand, bucket, points) => {
      const e = estimateInterruption(samples, onDemand, NOW, { windowMs: WEEK });
      expect(e.basis).toBe('price-volatility');
      expect(e.bucket).toBe(bucket);
      expect(e.volatility?.points).toBeCloseTo(points, 0);
      expect(e.explanation).toMatch(/EC2 publishes no interruption data; this is an estimate\./);
    },
  );

  it('reports the numbers behind the estimate', () => {
    const e = estimateInterruption(swingingWildlyNearOnDemand, 0.1, NOW, { windowMs: WEEK });
    expect(e.volatility).toMatchObject({ coefficientOfVariation: 0.25, changes: 84, changesPerDay: 12, minUsdPerHour: 0.06, maxUsdPerHour: 0.1 });
    expect(e.priceToOnDemand).toBe(1);
    expect(e.frequencyPct).toEqual([20, 100]);
  });

  it('says so when the On-Demand price is unknown', () => {
    const e = estimateInterruption(flatAt(0.04), undefined, NOW, { windowMs: WEEK });
    expect(e.priceToOnDemand).toBeNull();
    expect(e.explanation).toContain('On-Demand price unknown');
  });

  it('ignores samples after now: the estimate is as of the given instant', () => {
    const withFuture = [...flatAt(0.04), aSample({ hoursAgo: -5, usdPerHour: 0.5 })];
    expect(estimateInterruption(withFuture, 0.1, NOW, { windowMs: WEEK })).toEqual(estimateInterruption(flatAt(0.04), 0.1, NOW, { windowMs: WEEK }));
  });
});

describe('estimateInterruption with the Spot Advisor snapshot', () => {
  it.each([
    ['our <5% and the snapshot’s >20% meet, rounded towards risk, at', flatAt(0.04), '>20%', '10-15%'],
    ['our <5% and the snapshot’s 5-10% give', flatAt(0.04), '5-10%', '5-10%'],
    ['our >20% and the snapshot’s <5% give', swingingWildlyNearOnDemand, '<5%', '10-15%'],
    ['agreement keeps', flatAt(0.04), '<5%', '<5%'],
  ] as [string, SpotPriceSample[], InterruptionBucket, InterruptionBucket][])('%s %s → %s', (_what, samples, advisorBucket, expected) => {
    const e = estimateInterruption(samples, 0.1, NOW, { windowMs: WEEK, advisorBucket });
    expect(e.basis).toBe('price-volatility+spot-advisor-snapshot');
    expect(e.bucket).toBe(expected);
    expect(e.explanation).toContain('hand-entered, approximate, dated');
  });
});

describe('estimateInterruption with too little data', () => {
  it.each([
    ['no samples at all', [], undefined, null],
    ['samples covering only the last two days of a week', priceSteps([[48, 0.04], [10, 0.05]]), undefined, null],
    ['only samples after now', [aSample({ hoursAgo: -1 })], undefined, null],
    ['no samples but a snapshot bucket, which is shown as such', [], '5-10%', '5-10%'],
  ] as [string, SpotPriceSample[], InterruptionBucket | undefined, InterruptionBucket | null][])(
    '%s is insufficient-data',
    (_what, samples, advisorBucket, bucket) => {
      const e = estimateInterruption(samples, 0.1, NOW, { windowMs: WEEK, ...(advisorBucket ? { advisorBucket } : {}) });
      expect(e.basis).toBe('insufficient-data');
      expect(e.bucket).toBe(bucket);
      expect(e.frequencyPct).toEqual(bucket ? [5, 10] : null);
      expect(e.volatility).toBeNull();
      expect(e.explanation).toMatch(/Too little Spot price history/);
    },
  );
});
