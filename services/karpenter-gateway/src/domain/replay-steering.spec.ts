import { describe, expect, it } from '@jest/globals';
import { DEFAULT_POOL_HEALTH_CONFIG, type PoolPrice } from '@nodes-manager/steering';
import { replaySteering, visibleSamples, type ReplayRow } from './replay-steering.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const H = 3_600_000;
const config = { ...DEFAULT_POOL_HEALTH_CONFIG, minSamples: 10, coolOffMs: 6 * H };

/** aRow — a rebalance of `node` seen at hour `h`; interrupted 30 min later, or survived 24 h later. */
function aRow(pool: string, h: number, interrupted: boolean, node = `${pool}-${h}`): ReplayRow {
  const [instanceType, zone] = pool.split('/') as [string, string];
  const seen = T0 + h * H;
  return {
    node,
    instanceType,
    zone,
    capacityType: 'spot',
    seenAt: new Date(seen).toISOString(),
    outcome: interrupted ? 'interrupted' : 'survived',
    interruptedAt: interrupted ? new Date(seen + 30 * 60_000).toISOString() : null,
    leadTimeMs: interrupted ? 30 * 60_000 : null,
    resolvedAt: new Date(interrupted ? seen + 30 * 60_000 : seen + 24 * H).toISOString(),
  };
}
/** rows — n rebalances of a pool, one every `every` hours from hour `start`, the first `k` of each ten interrupted. */
const rows = (pool: string, n: number, k: number, start = 0, every = 2) => Array.from({ length: n }, (_, i) => aRow(pool, start + i * every, i % 10 < k));

const prices = new Map<string, PoolPrice>([
  ['m5.large/us-east-1a', { spotPerHour: 0.04, onDemandPerHour: 0.096 }],
  ['m5.large/us-east-1b', { spotPerHour: 0.05, onDemandPerHour: 0.096 }],
  ['c5.large/us-east-1a', { spotPerHour: 0.03, onDemandPerHour: 0.085 }],
]);
const replay = (r: ReplayRow[], fromH = 0, toH = 96) => replaySteering({ rows: r, from: new Date(T0 + fromH * H), to: new Date(T0 + toH * H), prices, config, maxAvoidPerHour: 3, stepMs: 15 * 60_000 });

describe('replaySteering', () => {
  it.each([
    ['a quiet fleet: nothing avoided, nothing spared, no extra cost', rows('m5.large/us-east-1a', 30, 0), [], 0],
    ['a pool interrupted 8 times in 10 is avoided; its calm neighbour is not', [...rows('m5.large/us-east-1a', 30, 8), ...rows('c5.large/us-east-1a', 30, 1)], ['m5.large/us-east-1a'], 1],
    ['too few samples: a pool interrupted on each of 5 spread-out rebalances is not avoided on its share', rows('m5.large/us-east-1a', 5, 10, 0, 10), [], 0],
    ['a burst (3 interruptions within minutes) avoids the pool even with few samples', [aRow('c5.large/us-east-1a', 5, true, 'x'), aRow('c5.large/us-east-1a', 5.02, true, 'y'), aRow('c5.large/us-east-1a', 5.04, true, 'z')], ['c5.large/us-east-1a'], 0],
  ] as const)('%s', (_, r, avoidedPools, minSpared) => {
    const out = replay([...r]);
    expect([...new Set(out.avoided.map((a) => `${a.pool.instanceType}/${a.pool.zone}`))]).toEqual(avoidedPools);
    expect(out.interruptions.avoided).toBeGreaterThanOrEqual(minSpared);
    expect(out.interruptions.avoided).toBeLessThanOrEqual(out.interruptions.total);
    if (avoidedPools.length === 0) expect(out.extraCostUsd).toBe(0);
    expect(out.sentence).not.toMatch(/\d\.\d{3,}|[a-z]+_[a-z]+/);
  });

  it('prices the moved node-hours at the cheapest pool of the type not avoided: 1b at $0.05 for 1a at $0.04', () => {
    const out = replay([...rows('m5.large/us-east-1a', 30, 8)]);
    const a = out.avoided[0]!;
    expect(a.extraUsdPerNodeHour).toBeCloseTo(0.01, 6);
    expect(a.nodeHours).toBeGreaterThan(0);
    expect(a.extraUsd).toBeCloseTo(0.01 * a.nodeHours, 2);
    expect(out.extraCostUsd).toBeCloseTo(out.avoided.reduce((s, x) => s + (x.extraUsd ?? 0), 0), 2);
    expect(a.why).toMatch(/^Avoid/);
  });

  it('a pool avoided and then quiet past its cool-off is restored: the period has an end', () => {
    const bad = rows('m5.large/us-east-1a', 12, 10);
    const calm = Array.from({ length: 20 }, (_, i) => aRow('m5.large/us-east-1a', 40 + i, false));
    const out = replay([...bad, ...calm], 0, 120);
    expect(out.avoided.length).toBeGreaterThan(0);
    expect(out.avoided[0]!.to).not.toBeNull();
  });

  it('decides only on what the ledger showed then: an outcome is unknown until resolved', () => {
    const r = aRow('m5.large/us-east-1a', 1, false);
    expect(visibleSamples([r], T0 + 2 * H).get('m5.large/us-east-1a')![0]!.outcome).toBe('unknown');
    expect(visibleSamples([r], T0 + 26 * H).get('m5.large/us-east-1a')![0]!.outcome).toBe('survived');
    expect(visibleSamples([r], T0).size).toBe(0);
  });
});
