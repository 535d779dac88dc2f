import { describe, expect, it } from '@jest/globals';
import { catalogOf, freshnessOf, poolPrices, selectPools, unmatched, type InstanceTypeFacts } from './market-view.js';
import type { MarketEntry } from './spot-market.js';

const anEntry = (over: Partial<MarketEntry> = {}): MarketEntry => ({
  instanceType: 'm5.large',
  availabilityZone: 'us-east-1a',
  spotUsdPerHour: 0.04,
  spotPriceSince: new Date('2026-03-10T11:00:00Z'),
  onDemandUsdPerHour: 0.096,
  onDemandKnown: true,
  savingsPct: 58.3,
  trend: { direction: 'flat', changePct: 0, fromUsdPerHour: 0.04 },
  interruption: { bucket: '<5%', frequencyPct: [0, 5], basis: 'price-volatility', volatility: null, priceToOnDemand: 0.417, explanation: '' },
  ...over,
});

const market = [
  anEntry(),
  anEntry({ availabilityZone: 'us-east-1b' }),
  anEntry({ instanceType: 'c5.large', availabilityZone: 'us-east-1b' }),
];

describe('selectPools', () => {
  it.each<[string, Parameters<typeof selectPools>[1], string[]]>([
    ['no filter keeps every pool', {}, ['m5.large@us-east-1a', 'm5.large@us-east-1b', 'c5.large@us-east-1b']],
    ['empty lists filter nothing', { instanceTypes: [], zones: [] }, ['m5.large@us-east-1a', 'm5.large@us-east-1b', 'c5.large@us-east-1b']],
    ['a type keeps its zones', { instanceTypes: ['m5.large'] }, ['m5.large@us-east-1a', 'm5.large@us-east-1b']],
    ['a zone keeps its types', { zones: ['us-east-1b'] }, ['m5.large@us-east-1b', 'c5.large@us-east-1b']],
    ['type and zone intersect', { instanceTypes: ['c5.large'], zones: ['us-east-1a'] }, []],
  ])('%s', (_what, filter, expected) => {
    expect(selectPools(market, filter).map((e) => `${e.instanceType}@${e.availabilityZone}`)).toEqual(expected);
  });
});

it('unmatched names requested types and zones without any price', () => {
  expect(unmatched(market, { instanceTypes: ['m5.large', 'x9.huge', 'x9.huge'], zones: ['us-east-1z'] })).toEqual({ instanceTypes: ['x9.huge'], zones: ['us-east-1z'] });
});

it('freshnessOf reports whole seconds and the refresh error only when stale', () => {
  const fetchedAt = new Date('2026-03-10T12:00:00Z');
  expect(freshnessOf({ fetchedAt, ageMs: 1999, stale: false })).toEqual({ fetchedAt: '2026-03-10T12:00:00.000Z', stale: false, ageSeconds: 1 });
  expect(freshnessOf({ fetchedAt, ageMs: 0, stale: true, refreshError: { code: 'EC2_THROTTLED', message: 'x' } })).toMatchObject({
    stale: true,
    refreshError: { code: 'EC2_THROTTLED' },
  });
});

describe('poolPrices', () => {
  it.each<[string, MarketEntry, object]>([
    ['a fully known pool', anEntry(), { instanceType: 'm5.large', zone: 'us-east-1a', spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096, interruptionBucket: '<5%' }],
    [
      'unknown On-Demand and bucket are absent, not zero',
      anEntry({ onDemandUsdPerHour: null, onDemandKnown: false, interruption: { ...anEntry().interruption, bucket: null } }),
      { instanceType: 'm5.large', zone: 'us-east-1a', spotUsdPerHour: 0.04 },
    ],
    [
      'a pool the ledger measured carries its measurement for the expected cost',
      anEntry({ interruption: { ...anEntry().interruption, measured: { samples: 10, interrupted: 8, interruptedShare: 0.8 } } as MarketEntry['interruption'] }),
      { instanceType: 'm5.large', zone: 'us-east-1a', spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096, interruptionBucket: '<5%', measured: { samples: 10, interrupted: 8, share: 0.8 } },
    ],
    [
      'a measurement with no known follow-up is left out',
      anEntry({ interruption: { ...anEntry().interruption, measured: { samples: 0, interrupted: 0, interruptedShare: null } } as MarketEntry['interruption'] }),
      { instanceType: 'm5.large', zone: 'us-east-1a', spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096, interruptionBucket: '<5%' },
    ],
  ])('%s', (_what, entry, expected) => {
    expect(poolPrices([entry])).toEqual([expected]);
  });
});

it('catalogOf adds the On-Demand price where the table has it, filters by name and sorts', () => {
  const facts = (name: string): InstanceTypeFacts => ({ name, vcpu: 2, memoryMiB: 8192, gpus: 0, gpuNames: [], architectures: ['x86_64'], supportsSpot: true });
  const table = new Map([['m5.large', 0.096]]);
  expect(catalogOf([facts('m5.large'), facts('a1.large')], table).map((t) => [t.name, t.onDemandUsdPerHour, t.onDemandKnown])).toEqual([
    ['a1.large', null, false],
    ['m5.large', 0.096, true],
  ]);
  expect(catalogOf([facts('m5.large'), facts('a1.large')], table, ['m5.large']).map((t) => t.name)).toEqual(['m5.large']);
});
