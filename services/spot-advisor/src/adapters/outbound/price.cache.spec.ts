import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '@nodes-manager/platform';
import { PriceCache } from './price.cache.js';

/** TestClock — the fake clock, from the test's start time. */
class TestClock extends FakeClock {
  constructor() {
    super('2026-03-10T12:00:00Z');
  }
}

/** CountingFetcher — a hand-written fake fetch: counts calls, answers `v<n>` or fails when told to. */
class CountingFetcher {
  calls = 0;
  failWith?: Error & { code?: string };
  private gate?: Promise<void>;
  private open?: () => void;
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }
  readonly fetch = async (region: string): Promise<string> => {
    this.calls++;
    const n = this.calls;
    if (this.gate) await this.gate;
    if (this.failWith) throw this.failWith;
    return `${region}:v${n}`;
  };
}

const MIN = 60_000;

function setup(opts?: ConstructorParameters<typeof PriceCache<string>>[2]) {
  const clock = new TestClock();
  const fetcher = new CountingFetcher();
  const cache = new PriceCache(fetcher.fetch, clock, opts);
  return { clock, fetcher, cache };
}

describe('PriceCache', () => {
  it.each([
    ['just fetched data is served from memory', 0, 1, 'us-east-1:v1'],
    ['data 4 minutes old is still fresh under the default 5-minute TTL', 4 * MIN, 1, 'us-east-1:v1'],
    ['data at the TTL is fetched again', 5 * MIN, 2, 'us-east-1:v2'],
  ])('%s', async (_what, after, fetches, data) => {
    const { clock, fetcher, cache } = setup();
    await cache.get('us-east-1');
    clock.advance(after);
    const v = await cache.get('us-east-1');
    expect(fetcher.calls).toBe(fetches);
    expect(v).toMatchObject({ data, stale: false });
  });

  it('honours a configured TTL and reports the age of what it serves', async () => {
    const { clock, fetcher, cache } = setup({ ttlMs: 30_000 });
    await cache.get('us-east-1');
    clock.advance(20_000);
    expect(await cache.get('us-east-1')).toMatchObject({ ageMs: 20_000, stale: false });
    clock.advance(10_000);
    await cache.get('us-east-1');
    expect(fetcher.calls).toBe(2);
  });

  it('keeps regions apart', async () => {
    const { fetcher, cache } = setup();
    expect((await cache.get('us-east-1')).data).toBe('us-east-1:v1');
    expect((await cache.get('eu-west-1')).data).toBe('eu-west-1:v2');
    expect(fetcher.calls).toBe(2);
  });

  it('shares one fetch among ten concurrent cold requests', async () => {
    const { fetcher, cache } = setup();
    fetcher.hold();
    const all = Array.from({ length: 10 }, () => cache.get('us-east-1'));
    fetcher.release();
    const values = await Promise.all(all);
    expect(fetcher.calls).toBe(1);
    expect(new Set(values.map((v) => v.data))).toEqual(new Set(['us-east-1:v1']));
  });

  it('serves the last good data marked stale, with its age and the error, when a refresh fails', async () => {
    const { clock, fetcher, cache } = setup();
    await cache.get('us-east-1');
    clock.advance(6 * MIN);
    fetcher.failWith = Object.assign(new Error('Request limit exceeded.'), { code: 'EC2_THROTTLED' });
    const v = await cache.get('us-east-1');
    expect(v).toMatchObject({ data: 'us-east-1:v1', stale: true, ageMs: 6 * MIN, refreshError: { code: 'EC2_THROTTLED' } });
  });

  it('does not retry a failed refresh until retryAfterErrorMs has passed, then recovers', async () => {
    const { clock, fetcher, cache } = setup({ retryAfterErrorMs: 30_000 });
    await cache.get('us-east-1');
    clock.advance(6 * MIN);
    fetcher.failWith = new Error('boom');
    await cache.get('us-east-1');
    clock.advance(10_000);
    expect((await cache.get('us-east-1')).stale).toBe(true);
    expect(fetcher.calls).toBe(2);
    fetcher.failWith = undefined;
    clock.advance(20_000);
    expect(await cache.get('us-east-1')).toMatchObject({ data: 'us-east-1:v3', stale: false, ageMs: 0 });
  });

  it('throws when the very first fetch fails: there is nothing honest to serve', async () => {
    const { fetcher, cache } = setup();
    fetcher.failWith = new Error('no credentials');
    await expect(cache.get('us-east-1')).rejects.toThrow('no credentials');
    fetcher.failWith = undefined;
    expect((await cache.get('us-east-1')).data).toBe('us-east-1:v2');
  });

  it('refuses a TTL that is not positive', () => {
    expect(() => setup({ ttlMs: 0 })).toThrow(RangeError);
  });
});
