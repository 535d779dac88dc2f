import { describe, expect, it } from '@jest/globals';
import { DEFAULT_POOL_HEALTH_CONFIG } from './pool-health-config.js';
import { decidePoolHealth, type PoolHealthPrevious, type PoolSample } from './pool-health.js';
import { limitAvoidEntries } from './rails.js';

const NOW = new Date('2026-06-10T12:00:00Z');
const MIN = 60_000;

/** aBurstPool — a pool with `size` interruptions a minute apart, the last `minAgo` minutes ago. */
function aBurstPool(instanceType: string, size = 3, minAgo = 5) {
  const samples: PoolSample[] = Array.from({ length: size }, (_, i) => {
    const interruptedAt = new Date(NOW.getTime() - (minAgo + i) * MIN);
    return { seenAt: new Date(interruptedAt.getTime() - 10 * MIN), outcome: 'interrupted', interruptedAt, leadTimeMs: 10 * MIN };
  });
  return decidePoolHealth({ pool: { instanceType, zone: 'us-east-1a' }, samples, price: null, previous: null, now: NOW }, DEFAULT_POOL_HEALTH_CONFIG);
}

describe('limitAvoidEntries', () => {
  it.each([
    ['3 entries, room for 2: the biggest bursts go first, the third keeps its state', 2, [], ['avoid', 'avoid', 'healthy']],
    ['2 already this hour, 3 allowed: one goes', 3, [NOW.getTime() - 10 * MIN, NOW.getTime() - 50 * MIN], ['avoid', 'healthy', 'healthy']],
    ['entries older than an hour do not count', 3, [NOW.getTime() - 61 * MIN, NOW.getTime() - 90 * MIN], ['avoid', 'avoid', 'avoid']],
  ] as const)('%s', (_, max, recent, states) => {
    const decisions = [aBurstPool('m5.large', 5), aBurstPool('c5.large', 4), aBurstPool('r5.large', 3)];
    const out = limitAvoidEntries(decisions, new Map(), recent.map((t) => new Date(t)), NOW, max);
    expect(out.map((d) => d.state)).toEqual(states);
    for (const d of out.filter((x) => x.state !== 'avoid')) {
      expect([d.reason, d.changed]).toEqual(['avoid-rate-rail', false]);
      expect(d.sentence).toMatch(/^Kept healthy: the limit of \d pools? moved to avoid per hour is reached\. Avoid: /);
    }
  });

  it('a held pool keeps its previous state and since', () => {
    const since = new Date(NOW.getTime() - 3 * 3_600_000);
    const prev = new Map<string, PoolHealthPrevious>([['m5.large/us-east-1a', { state: 'watch', since, basisFrom: null }]]);
    const [d] = limitAvoidEntries([aBurstPool('m5.large')], prev, [], NOW, 0);
    expect([d!.state, d!.since]).toEqual(['watch', since]);
  });
});
