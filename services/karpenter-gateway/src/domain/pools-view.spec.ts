import { describe, expect, it } from '@jest/globals';
import { poolsView, type StoredPoolHealth } from './pools-view.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const aPool = (o: Partial<StoredPoolHealth> = {}): StoredPoolHealth => ({
  instanceType: 'm5.large',
  zone: 'us-east-1a',
  state: 'healthy',
  since: '2026-12-01T00:00:00Z',
  reason: 'share-below-watch',
  sentence: 'Healthy.',
  evidence: { samples: 0, interrupted: 0, share: null, interval95: null, leadTimeMinutes: null, price: { spotPerHour: 0.04, onDemandPerHour: 0.096 } },
  restoreAt: null,
  ...o,
});
const cfg = { disruptionCostUsd: 7.3, minSamples: 10 };

describe('poolsView', () => {
  it.each([
    ['an unmeasured pool with a Spot Advisor bucket: the estimate', aPool(), new Map([['m5.large/us-east-1a', { interruptionBucket: '<5%' as const }]]), { expectedBasis: 'estimate', expectedUsdPerHour: 0.0403 }],
    ['a pool measured at 8 of 10: the measured rate', aPool({ evidence: { samples: 10, interrupted: 8, share: 0.8, price: { spotPerHour: 0.04, onDemandPerHour: 0.096 } } }), new Map(), { expectedBasis: 'measured-in-this-cluster', expectedUsdPerHour: 0.048, share: 0.8 }],
    ['a pool without any price: no expected cost', aPool({ evidence: null }), new Map(), { expectedBasis: 'unknown', expectedUsdPerHour: null, spotUsdPerHour: null }],
    ['the price comes from the market when the evidence has none', aPool({ evidence: { samples: 0 } }), new Map([['m5.large/us-east-1a', { spotUsdPerHour: 0.05, onDemandUsdPerHour: 0.096 }]]), { spotUsdPerHour: 0.05, expectedUsdPerHour: 0.05 }],
  ] as const)('%s', (_, pool, market, want) => {
    expect(poolsView([pool], market, NOW, cfg)[0]).toMatchObject(want);
  });

  it('counts down to an avoided pool’s restore, never below zero, and only in avoid', () => {
    const [soon, past, watch] = poolsView(
      [
        aPool({ zone: 'us-east-1a', state: 'avoid', restoreAt: '2026-12-01T13:30:00Z' }),
        aPool({ zone: 'us-east-1b', state: 'avoid', restoreAt: '2026-12-01T11:00:00Z' }),
        aPool({ zone: 'us-east-1c', state: 'watch', restoreAt: '2026-12-01T13:30:00Z' }),
      ],
      new Map(),
      NOW,
      cfg,
    );
    expect([soon!.restoreInSeconds, past!.restoreInSeconds, watch!.restoreInSeconds]).toEqual([5400, 0, null]);
  });

  it('lists avoided pools first, then watched, then by expected cost', () => {
    const view = poolsView([aPool({ zone: 'a', evidence: { price: { spotPerHour: 0.09, onDemandPerHour: 0.1 } } }), aPool({ zone: 'b' }), aPool({ zone: 'c', state: 'watch' }), aPool({ zone: 'd', state: 'avoid' })], new Map(), NOW, cfg);
    expect(view.map((p) => p.zone)).toEqual(['d', 'c', 'b', 'a']);
  });

  it.each([
    ['a pool with running Spot nodes: their count', new Map([['m5.large/us-east-1a', 3]]), 3],
    ['a pool node-sync knows no node in: zero', new Map([['m5.large/us-east-1b', 3]]), 0],
    ['node-sync did not answer: unknown, not zero', null, null],
  ] as const)('nodes — %s', (_, running, want) => {
    expect(poolsView([aPool()], new Map(), NOW, cfg, running)[0]!.nodes).toBe(want);
  });
});
