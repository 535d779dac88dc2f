import { describe, expect, it } from '@jest/globals';
import { chooseOffering, orderNodePools, type Offering } from './offerings.js';
import type { NodeSelectorRequirement } from './requirements.js';
import { UnavailableOfferings } from './unavailable-offerings.js';

const pool = (name: string, weight?: number) => ({ metadata: { name }, spec: weight === undefined ? {} : { weight } });

describe('orderNodePools (OrderByWeight)', () => {
  it.each([
    ['the heaviest first', [pool('a', 10), pool('b', 50), pool('c', 20)], ['b', 'c', 'a']],
    ['no weight counts as 0', [pool('a'), pool('b', 1)], ['b', 'a']],
    ['equal weights by name, descending', [pool('alpha', 10), pool('gamma', 10), pool('beta', 10)], ['gamma', 'beta', 'alpha']],
  ])('%s', (_, pools, want) => {
    expect(orderNodePools(pools).map((p) => p.metadata.name)).toEqual(want);
  });
});

const spot = (instanceType: string, zone: string, price: number, capacity: number): Offering => ({ instanceType, zone, capacityType: 'spot', price, capacity });
const od = (instanceType: string, zone: string, price: number): Offering => ({ instanceType, zone, capacityType: 'on-demand', price });
const OFFERINGS: Offering[] = [
  spot('m5.large', 'us-east-1a', 0.030, 0.35), // cheapest, but shallow: often reclaimed
  spot('m5a.large', 'us-east-1a', 0.036, 0.95),
  spot('m5.large', 'us-east-1b', 0.040, 0.9),
  spot('c5.large', 'us-east-1b', 0.045, 1.0),
  od('m5.large', 'us-east-1a', 0.096),
  od('m5a.large', 'us-east-1a', 0.086),
];
const BOTH: NodeSelectorRequirement[] = [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] }];
const key = (o?: Offering) => (o ? `${o.capacityType}:${o.instanceType}:${o.zone}` : undefined);

describe('chooseOffering', () => {
  it.each<[string, NodeSelectorRequirement[], string[], string | undefined, string]>([
    ['Spot, price-capacity-optimized: the cheapest among the deepest pools, not the cheapest overall', BOTH, [], 'spot:m5a.large:us-east-1a', 'price-capacity-optimized'],
    ['a pool in the unavailable-offerings cache is skipped', BOTH, ['spot:m5a.large:us-east-1a'], 'spot:m5.large:us-east-1b', 'price-capacity-optimized'],
    ['requirements narrow the choice (instance-type NotIn)', [...BOTH, { key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['m5a.large'] }], [], 'spot:m5.large:us-east-1b', 'price-capacity-optimized'],
    ['On-Demand only (capacity-type NotIn [spot]): lowest price', [{ key: 'karpenter.sh/capacity-type', operator: 'NotIn', values: ['spot'] }], [], 'on-demand:m5a.large:us-east-1a', 'lowest-price'],
    ['every Spot pool unavailable: falls back to On-Demand', BOTH, ['spot:m5.large:us-east-1a', 'spot:m5a.large:us-east-1a', 'spot:m5.large:us-east-1b', 'spot:c5.large:us-east-1b'], 'on-demand:m5a.large:us-east-1a', 'lowest-price'],
    ['Spot only and every Spot pool unavailable: nothing to launch', [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }, { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }], ['spot:m5.large:us-east-1a', 'spot:m5a.large:us-east-1a'], undefined, 'all-unavailable'],
    ['no offering admitted', [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1c'] }], [], undefined, 'no-compatible-offering'],
  ])('%s', (_, requirements, cached, want, reason) => {
    const cache = new UnavailableOfferings(() => new Date('2026-06-10T12:00:00Z'));
    for (const k of cached) {
      const [c, t, z] = k.split(':');
      cache.markUnavailable(t!, z!, c!, 'InsufficientInstanceCapacity');
    }
    const choice = chooseOffering(OFFERINGS, requirements, cache);
    expect([key(choice.offering), choice.reason]).toEqual([want, reason]);
  });

  it('with every pool equally deep, Spot is simply the cheapest', () => {
    const flat = OFFERINGS.map((o) => ({ ...o, capacity: 1 }));
    expect(key(chooseOffering(flat, BOTH).offering)).toBe('spot:m5.large:us-east-1a');
  });
});
