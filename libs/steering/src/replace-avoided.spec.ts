import { describe, expect, it } from '@jest/globals';
import { DEFAULT_POOL_HEALTH_CONFIG } from './pool-health-config.js';
import { decidePoolHealth, type PoolHealth } from './pool-health.js';
import { planAvoidedReplacements } from './replace-avoided.js';

const NOW = new Date('2026-06-10T12:00:00Z');
const HOUR = 3_600_000;

/** avoided — a pool in `avoid` at `per1000` interruptions per 1,000 node-hours, restorable in `hours`. */
function avoided(instanceType: string, per1000: number, hours: number): PoolHealth {
  const h = decidePoolHealth({ pool: { instanceType, zone: 'us-east-1a' }, samples: [], price: null, previous: null, now: NOW }, DEFAULT_POOL_HEALTH_CONFIG);
  const figures = { fromMs: NOW.getTime() - 168 * HOUR, nodeHours: 1000, interruptions: per1000, events: 3, per1000, interval: [per1000 / 2, per1000 * 2] as [number, number] };
  return {
    ...h,
    state: 'avoid',
    restoreAt: new Date(NOW.getTime() + hours * HOUR),
    evidence: { ...h.evidence, rate: { window: figures, recent: figures, fleetPer1000: 1, recentFleetPer1000: 1, threshold: 3, recentThreshold: 3, events: 3, lastEventAt: NOW, probation: null } },
  };
}
const nodes = (counts: Record<string, number>) => Object.entries(counts).map(([t, count]) => ({ instanceType: t, zone: 'us-east-1a', capacityType: 'spot' as const, count }));

describe('planAvoidedReplacements', () => {
  it.each([
    ['40 per 1,000 node-hours, 48 h before it may return: 1.9 expected per node, moved', 40, 48, 5],
    ['40 per 1,000, 12 h: 0.5 expected, left to Karpenter (interrupted nodes are replaced elsewhere anyway)', 40, 12, 0],
    ['10 per 1,000, 48 h: 0.5 expected, left', 10, 48, 0],
  ] as const)('%s', (_, rate, hours, replaced) => {
    const out = planAvoidedReplacements({ health: [avoided('m5.large', rate, hours)], nodes: nodes({ 'm5.large': 5 }), now: NOW, maxPerPass: 10 });
    expect(out.reduce((a, r) => a + r.replace, 0)).toBe(replaced);
    if (replaced > 0) expect(out[0]!.sentence).toMatch(/^m5\.large in us-east-1a: 5 nodes replaced — each can expect 1\.9 interruptions in the 2 days before the pool may return \(40\.0 per 1,000 node-hours\)/);
  });

  it('the worst pools first, at most the cap a pass', () => {
    const out = planAvoidedReplacements({ health: [avoided('m5.large', 30, 48), avoided('c5.large', 60, 48)], nodes: nodes({ 'm5.large': 8, 'c5.large': 6 }), now: NOW, maxPerPass: 10 });
    expect(out.map((r) => [r.pool.instanceType, r.replace])).toEqual([['c5.large', 6], ['m5.large', 4]]);
  });

  it('a pool not avoided, or with no node, moves nothing', () => {
    const healthy = { ...avoided('m5.large', 60, 48), state: 'healthy' as const };
    expect(planAvoidedReplacements({ health: [healthy, avoided('c5.large', 60, 48)], nodes: nodes({ 'm5.large': 8 }), now: NOW, maxPerPass: 10 })).toEqual([]);
  });
});
