import { describe, expect, it } from '@jest/globals';
import { steerFleet, samplesFromLedger, type LedgerRowLike } from './fleet.js';
import { DEFAULT_POOL_HEALTH_CONFIG } from './pool-health-config.js';
import { nameLabels, type Offering } from './requirements.js';

const NOW = new Date('2026-06-10T12:00:00Z');
const HOUR = 3_600_000;

/** rows — one rebalance an hour for `n` hours in a pool, the first `k` interrupted 30 min later. */
function rows(instanceType: string, zone: string, k: number, n: number): LedgerRowLike[] {
  return Array.from({ length: n }, (_, i) => {
    const seenAt = new Date(NOW.getTime() - (n - i) * HOUR);
    const interrupted = i < k;
    return { instanceType, zone, capacityType: 'spot', seenAt: seenAt.toISOString(), outcome: interrupted ? 'interrupted' : 'survived', interruptedAt: interrupted ? new Date(seenAt.getTime() + 1_800_000).toISOString() : null, leadTimeMs: interrupted ? 1_800_000 : null };
  });
}

const OFFERINGS: Offering[] = ['m5.large', 'c5.large'].flatMap((t) => ['us-east-1a', 'us-east-1b'].flatMap((z) => (['spot', 'on-demand'] as const).map((c) => ({ instanceType: t, zone: z, capacityType: c, labels: nameLabels(t) }))));

describe('samplesFromLedger', () => {
  it.each([
    ['interrupted and survived as they are', 'interrupted', 'interrupted'],
    ['survived', 'survived', 'survived'],
    ['a removed node is censored', 'removed', 'unknown'],
    ['an open row is unknown', 'uncordoned', 'unknown'],
  ])('%s', (_, outcome, want) => {
    const m = samplesFromLedger([{ instanceType: 'm5.large', zone: 'us-east-1a', seenAt: NOW.toISOString(), outcome, interruptedAt: null, leadTimeMs: null }]);
    expect(m.get('m5.large/us-east-1a')?.[0]?.outcome).toBe(want);
  });

  it('leaves out rows of on-demand nodes and rows without a type or zone', () => {
    const base = { seenAt: NOW.toISOString(), outcome: 'interrupted', interruptedAt: null, leadTimeMs: null };
    expect(samplesFromLedger([{ ...base, instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'on-demand' }, { ...base, instanceType: null, zone: 'us-east-1a' }]).size).toBe(0);
  });
});

describe('nameLabels', () => {
  it('reads category, family, generation and size from the name', () => {
    expect(nameLabels('m6g.xlarge')).toEqual({
      'karpenter.k8s.aws/instance-family': 'm6g',
      'karpenter.k8s.aws/instance-size': 'xlarge',
      'karpenter.k8s.aws/instance-category': 'm',
      'karpenter.k8s.aws/instance-generation': '6',
    });
  });
});

describe('steerFleet', () => {
  const input = (over: Partial<Parameters<typeof steerFleet>[0]> = {}): Parameters<typeof steerFleet>[0] => ({
    now: NOW,
    samples: samplesFromLedger([...rows('m5.large', 'us-east-1a', 16, 20), ...rows('c5.large', 'us-east-1b', 1, 20)]),
    prices: new Map(),
    previous: new Map(),
    recentAvoidEntries: [],
    nodePools: [{ name: 'general', requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] }], record: null }],
    offerings: OFFERINGS,
    config: DEFAULT_POOL_HEALTH_CONFIG,
    rails: { maxAvoidPerHour: 3, maxExcludedShare: 0.5, keepCheapest: 3 },
    ...over,
  });

  it('decides every pool and plans every NodePool on that health', () => {
    const out = steerFleet(input());
    expect(out.health.map((h) => [`${h.pool.instanceType}/${h.pool.zone}`, h.state])).toEqual([
      ['c5.large/us-east-1b', 'healthy'],
      ['m5.large/us-east-1a', 'avoid'],
    ]);
    expect(out.plans[0]).toMatchObject({ nodePool: 'general', write: true, changes: ['narrow'] });
  });

  it('the hourly rail holds an entry back, and the NodePool is then not narrowed for it', () => {
    const out = steerFleet(input({ recentAvoidEntries: [new Date(NOW.getTime() - 10 * 60_000)], rails: { maxAvoidPerHour: 1, maxExcludedShare: 0.5, keepCheapest: 3 } }));
    expect(out.health.find((h) => h.pool.instanceType === 'm5.large')).toMatchObject({ state: 'healthy', reason: 'avoid-rate-rail' });
    expect(out.plans[0]!.write).toBe(false);
  });

  it("plans on the pass's prices: the cheapest offering left is kept, so the avoided pool goes by its zone, not its type", () => {
    // m5.large/us-east-1a avoided; m5.large/us-east-1b is the cheapest of the rest: excluding m5.large would take it out.
    const prices = new Map([
      ['m5.large/us-east-1a', { spotPerHour: 0.03, onDemandPerHour: 0.096 }],
      ['m5.large/us-east-1b', { spotPerHour: 0.031, onDemandPerHour: 0.096 }],
      ['c5.large/us-east-1a', { spotPerHour: 0.04, onDemandPerHour: 0.085 }],
      ['c5.large/us-east-1b', { spotPerHour: 0.04, onDemandPerHour: 0.085 }],
    ]);
    const kept = steerFleet(input({ prices, rails: { maxAvoidPerHour: 3, maxExcludedShare: 0.5, keepCheapest: 1 } }));
    expect(kept.plans[0]!.exclusions.map((e) => [e.kind, e.value])).toEqual([['zone', 'us-east-1a']]);
    const plain = steerFleet(input({ prices, rails: { maxAvoidPerHour: 3, maxExcludedShare: 0.5, keepCheapest: 0 } }));
    expect(plain.plans[0]!.exclusions.map((e) => [e.kind, e.value])).toEqual([['instance-type', 'm5.large']]);
  });

  /** exposure — `nodes` Spot nodes every hour of the last week and interruptions `hoursAgo`. */
  const exposure = (nodes: number, ...hoursAgo: number[]) => ({
    nodeHours: Array.from({ length: 168 }, (_, i) => ({ from: new Date(NOW.getTime() - (168 - i) * HOUR), nodeHours: nodes })),
    interruptions: hoursAgo.map((h) => new Date(NOW.getTime() - h * HOUR)),
  });

  it("with exposure, each pool is judged by its rate against the fleet's other pools, interruptions without a ledger row included", () => {
    const ex = new Map([
      ['m5.large/us-east-1a', exposure(10, 20, 14, 8, 2)],
      ['c5.large/us-east-1b', exposure(200, 100)],
    ]);
    const out = steerFleet(input({ samples: new Map(), exposure: ex }));
    const m5 = out.health.find((h) => h.pool.instanceType === 'm5.large')!;
    expect([m5.state, m5.reason]).toEqual(['avoid', 'rate-above-avoid']);
    // The fleet's other pools: c5.large, 1 interruption in 33,600 node-hours.
    expect(m5.evidence.rate!.fleetPer1000).toBeCloseTo(1000 / 33_600, 4);
    expect(out.health.find((h) => h.pool.instanceType === 'c5.large')!.state).toBe('healthy');
  });

  it('the hourly drift rail is shared by the NodePools of a pass', () => {
    const ex = new Map([['m5.large/us-east-1a', exposure(10, 20, 14, 8, 2)], ['c5.large/us-east-1b', exposure(200, 100)]]);
    const nodes = [{ instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' as const, count: 4 }];
    const np = (name: string) => ({ name, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] }], record: null, nodes });
    const out = steerFleet(input({ samples: new Map(), exposure: ex, nodePools: [np('a'), np('b')], rails: { maxAvoidPerHour: 3, maxExcludedShare: 0.5, keepCheapest: 0, maxDriftPerHour: 6 } }));
    expect(out.plans.map((p) => p.write)).toEqual([true, false]);
    expect(out.plans[1]!.heldBack[0]).toMatchObject({ reason: 'drift-rail' });
  });
});
