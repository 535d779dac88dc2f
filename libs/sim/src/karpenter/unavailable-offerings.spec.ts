import { describe, expect, it } from '@jest/globals';
import { offeringKey, UNAVAILABLE_OFFERINGS_TTL_MS, UnavailableOfferings } from './unavailable-offerings.js';

const T0 = new Date('2026-06-10T12:00:00Z').getTime();
const SEC = 1000;

function cacheAt() {
  let now = T0;
  return { cache: new UnavailableOfferings(() => new Date(now)), at: (ms: number) => (now = T0 + ms) };
}

describe('UnavailableOfferings (pkg/cache/unavailableofferings.go)', () => {
  it('is keyed <capacityType>:<instanceType>:<zone>', () => {
    expect(offeringKey('m5.large', 'us-east-1a', 'spot')).toBe('spot:m5.large:us-east-1a');
  });

  it.each([
    ['just marked', 0, true],
    ['2 min 59 s later', 179 * SEC, true],
    ['3 minutes later: expired', 180 * SEC, false],
  ])('an entry %s is unavailable: %s', (_, after, want) => {
    const { cache, at } = cacheAt();
    cache.markUnavailable('m5.large', 'us-east-1a', 'spot', 'InsufficientInstanceCapacity');
    at(after);
    expect(cache.isUnavailable('m5.large', 'us-east-1a', 'spot')).toBe(want);
  });

  it.each([
    ['another zone', 'm5.large', 'us-east-1b', 'spot'],
    ['another instance type', 'm5a.large', 'us-east-1a', 'spot'],
    ['on-demand of the same pool', 'm5.large', 'us-east-1a', 'on-demand'],
  ])('leaves %s available', (_, type, zone, capacityType) => {
    const { cache } = cacheAt();
    cache.markUnavailable('m5.large', 'us-east-1a', 'spot', 'spot_interrupted');
    expect(cache.isUnavailable(type, zone, capacityType)).toBe(false);
  });

  it('marking again restarts the 3 minutes', () => {
    const { cache, at } = cacheAt();
    cache.markUnavailable('m5.large', 'us-east-1a', 'spot', 'spot_interrupted');
    at(120 * SEC);
    cache.markUnavailable('m5.large', 'us-east-1a', 'spot', 'InsufficientInstanceCapacity');
    at(240 * SEC);
    expect(cache.isUnavailable('m5.large', 'us-east-1a', 'spot')).toBe(true);
    expect(cache.list()).toEqual([expect.objectContaining({ reason: 'InsufficientInstanceCapacity', until: new Date(T0 + 120 * SEC + UNAVAILABLE_OFFERINGS_TTL_MS) })]);
    at(300 * SEC);
    expect(cache.list()).toEqual([]);
  });
});
