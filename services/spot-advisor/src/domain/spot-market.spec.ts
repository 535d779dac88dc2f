import { describe, expect, it } from '@jest/globals';
import { DAY, NOW, priceSteps } from '../../test/spot-price.builder.js';
import { advisorBucketFor } from './spot-advisor-snapshot.js';
import { onDemandTableFor, summariseMarket, type MarketEntry, type OnDemandTable } from './spot-market.js';
import type { SpotPriceSample } from './spot-price.js';

const WEEK = 7 * DAY;
const TABLE: OnDemandTable = new Map([
  ['m5.large', 0.096],
  ['c5.large', 0.085],
]);

function entryOf(samples: SpotPriceSample[], table: OnDemandTable = TABLE): MarketEntry {
  const entries = summariseMarket(samples, table, NOW, { windowMs: WEEK });
  expect(entries).toHaveLength(1);
  return entries[0]!;
}

describe('summariseMarket', () => {
  it.each([
    ['a price up from 0.030 to 0.036 is rising 20%', [[200, 0.03], [5, 0.036]], 'rising', 20],
    ['a price down from 0.040 to 0.030 is falling 25%', [[200, 0.04], [5, 0.03]], 'falling', -25],
    ['a price up by 1% is flat', [[200, 0.04], [5, 0.0404]], 'flat', 1],
    ['a price that went up and came back is flat', [[200, 0.04], [50, 0.06], [5, 0.04]], 'flat', 0],
    ['only the window counts: a rise before it is not a trend', [[400, 0.02], [300, 0.04]], 'flat', 0],
  ] as [string, [number, number][], string, number][])('%s', (_what, steps, direction, changePct) => {
    expect(entryOf(priceSteps(steps)).trend).toMatchObject({ direction, changePct });
  });

  it.each([
    ['a type in the table', 'm5.large', 0.048, { onDemandUsdPerHour: 0.096, onDemandKnown: true, savingsPct: 50 }],
    ['another type in the table', 'c5.large', 0.0255, { onDemandUsdPerHour: 0.085, onDemandKnown: true, savingsPct: 70 }],
    ['a type missing from the table (never invented)', 'x9.large', 0.05, { onDemandUsdPerHour: null, onDemandKnown: false, savingsPct: null }],
  ])('prices %s against On-Demand', (_what, instanceType, spot, expected) => {
    const e = entryOf(priceSteps([[30, spot]], { instanceType }));
    expect(e).toMatchObject({ instanceType, spotUsdPerHour: spot, ...expected });
  });

  it('gives one entry per type and zone, sorted, with the interruption estimate attached', () => {
    const samples = [
      ...priceSteps([[200, 0.04]], { instanceType: 'm5.large', availabilityZone: 'us-east-1b' }),
      ...priceSteps([[200, 0.03], [2, 0.031]], { instanceType: 'c5.large', availabilityZone: 'us-east-1a' }),
      ...priceSteps([[200, 0.041]], { instanceType: 'm5.large', availabilityZone: 'us-east-1a' }),
    ];
    const entries = summariseMarket(samples, TABLE, NOW, { windowMs: WEEK });
    expect(entries.map((e) => `${e.instanceType}/${e.availabilityZone}`)).toEqual(['c5.large/us-east-1a', 'm5.large/us-east-1a', 'm5.large/us-east-1b']);
    expect(entries[0]!.spotPriceSince).toEqual(new Date(NOW.getTime() - 2 * 3_600_000));
    expect(entries.every((e) => e.interruption.basis === 'price-volatility')).toBe(true);
  });

  it('counts only Linux/UNIX prices by default, and leaves out pools with no price yet', () => {
    const samples = [
      ...priceSteps([[200, 0.04]]),
      ...priceSteps([[200, 0.5]], { productDescription: 'Windows' }),
      ...priceSteps([[-3, 0.02]], { availabilityZone: 'us-east-1c' }),
    ];
    const entries = summariseMarket(samples, TABLE, NOW, { windowMs: WEEK });
    expect(entries.map((e) => [e.availabilityZone, e.spotUsdPerHour])).toEqual([['us-east-1a', 0.04]]);
  });

  it('combines the Spot Advisor snapshot only when asked to', () => {
    const samples = priceSteps([[200, 0.04]], { instanceType: 'g5.xlarge' });
    const table = new Map([['g5.xlarge', 1.006]]);
    const plain = summariseMarket(samples, table, NOW, { windowMs: WEEK })[0]!;
    const withSnapshot = summariseMarket(samples, table, NOW, { windowMs: WEEK, advisorBucket: (t) => advisorBucketFor('us-east-1', t) })[0]!;
    expect(plain.interruption.basis).toBe('price-volatility');
    expect(withSnapshot.interruption.basis).toBe('price-volatility+spot-advisor-snapshot');
  });
});

describe('onDemandTableFor', () => {
  it.each([
    ['the catalog’s region has its prices', 'us-east-1', 0.096],
    ['another region has none rather than borrowed ones', 'eu-west-1', undefined],
  ])('%s', (_what, region, price) => {
    expect(onDemandTableFor(region).get('m5.large')).toBe(price);
  });
});

describe('advisorBucketFor', () => {
  it.each([
    ['a listed type in the snapshot region', 'us-east-1', 'm5.large', '<5%'],
    ['an unlisted type', 'us-east-1', 'm7i.large', undefined],
    ['any type in another region', 'eu-west-1', 'm5.large', undefined],
  ])('%s', (_what, region, type, bucket) => {
    expect(advisorBucketFor(region, type)).toBe(bucket);
  });
});
