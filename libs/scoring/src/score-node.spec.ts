import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { explainScore, scoreNode, type ScoreFacts } from './score-node.js';
import { buildScoringIndex, commitPlacement, countWorkloadZones, rankNodes, scoreIndexed } from './scoring-index.js';
import { aNode, aPod, GiB, resources } from './testing/builders.js';
import { type PriceInfo } from './types.js';
import { poolKey } from '@nodes-manager/contracts';

const prices = (entries: Record<string, PriceInfo>) => new Map(Object.entries(entries));

const facts = (overrides: Partial<ScoreFacts> = {}): ScoreFacts => ({
  node: 'n1',
  instanceType: 'm5.large',
  zone: 'us-east-1b',
  capacityType: 'spot',
  workloadClass: 'stateless',
  workload: 'web',
  headroom: 0.4,
  gpuWasted: false,
  peersInZone: 0,
  peersMinZone: 0,
  peersTotal: 2,
  zonesAfter: 3,
  usdPerHour: 0.0365,
  onDemandUsdPerHour: 0.096,
  interruptionBucket: '<5%',
  avoidsSpot: false,
  ...overrides,
});

describe('explainScore', () => {
  it.each([
    [
      'a stateful pod on spot says it avoids spot',
      facts({ workloadClass: 'stateful', avoidsSpot: true }),
      'm5.large in us-east-1b: fits with 40% headroom, spreads web across 3 zones; spot saves 62% but this stateful pod avoids spot',
    ],
    [
      'a stateless pod on spot names the interruption bucket',
      facts(),
      'm5.large in us-east-1b: fits with 40% headroom, spreads web across 3 zones; spot saves 62%, interruption <5%',
    ],
    [
      'a zone already ahead says how many replicas it holds',
      facts({ peersInZone: 3, peersMinZone: 1, peersTotal: 5, capacityType: 'on-demand', usdPerHour: 0.096 }),
      'm5.large in us-east-1b: fits with 40% headroom, web already has 3 of 5 replicas in us-east-1b; on-demand at $0.0960/h',
    ],
    [
      'the first replica says so',
      facts({ peersTotal: 0, zonesAfter: 1 }),
      'm5.large in us-east-1b: fits with 40% headroom, first web replica; spot saves 62%, interruption <5%',
    ],
    [
      'a missing spot price is called neutral',
      facts({ usdPerHour: undefined, interruptionBucket: undefined }),
      'm5.large in us-east-1b: fits with 40% headroom, spreads web across 3 zones; spot price unknown, cost scored neutral, interruption rate unknown',
    ],
    [
      'a missing on-demand price is called neutral',
      facts({ capacityType: 'on-demand', usdPerHour: undefined, onDemandUsdPerHour: undefined, workload: undefined }),
      'm5.large in us-east-1b: fits with 40% headroom; on-demand, price unknown, cost scored neutral',
    ],
    [
      'a latency-sensitive pod with a volume names both',
      facts({ workloadClass: 'latency_sensitive', avoidsSpot: true, volumeZones: ['us-east-1b'] }),
      'm5.large in us-east-1b: fits with 40% headroom, spreads web across 3 zones; spot saves 62% but this latency-sensitive pod avoids spot; volume in us-east-1b',
    ],
    [
      'a CPU pod on a GPU node says it takes GPU room',
      facts({ gpuWasted: true, instanceType: 'g5.xlarge', workload: undefined, capacityType: 'on-demand', usdPerHour: 1.006 }),
      'g5.xlarge in us-east-1b: fits with 40% headroom, but would take room on a GPU node; on-demand at $1.01/h',
    ],
  ])('%s', (_, f, expected) => {
    expect(explainScore(f)).toBe(expected);
  });
});

describe('scoreNode', () => {
  it('returns the filter reasons of an infeasible node', () => {
    const result = scoreNode(aPod(), aNode({ name: 'n1', unschedulable: true }));
    expect(result).toEqual({ feasible: false, node: 'n1', reasons: [{ reason: 'node_unschedulable', detail: 'n1 is cordoned' }] });
  });

  it('scores every dimension on 0–100 and weights them', () => {
    const result = scoreNode(aPod(), aNode());
    expect(result.feasible).toBe(true);
    if (!result.feasible) return;
    for (const v of Object.values(result.dimensions)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(100);
    }
    expect(result.dimensions.interruptionRisk).toBe(100);
    expect(result.dimensions.costEfficiency).toBe(50);
  });

  it.each([
    ['the emptier node fits better', { requested: resources({ cpuMilli: 3000, memoryBytes: 12 * GiB, pods: 0 }) }, { requested: resources({ cpuMilli: 0, memoryBytes: 0, pods: 0 }) }, 'resourceFit'],
    ['a balanced node fits better than a lopsided one', { requested: resources({ cpuMilli: 3000, memoryBytes: 0, pods: 0 }) }, { requested: resources({ cpuMilli: 1500, memoryBytes: 6 * GiB, pods: 0 }) }, 'resourceFit'],
    ['a GPU node is kept for GPU pods', { instanceType: 'g5.xlarge', allocatable: resources({ gpu: 1 }) }, {}, 'resourceFit'],
  ] as const)('%s', (_, worse, better, dimension) => {
    const a = scoreNode(aPod(), aNode(worse));
    const b = scoreNode(aPod(), aNode(better));
    expect(a.feasible && b.feasible).toBe(true);
    if (a.feasible && b.feasible) expect(b.dimensions[dimension]).toBeGreaterThan(a.dimensions[dimension]);
  });

  it.each([
    ['on-demand is 100', 'on-demand', undefined, 'stateless', 100],
    ['spot <5% is 90', 'spot', '<5%', 'stateless', 90],
    ['spot >20% is 10', 'spot', '>20%', 'stateless', 10],
    ['spot with an unknown bucket is neutral', 'spot', undefined, 'stateless', 50],
    ['spot <5% is halved for a stateful pod', 'spot', '<5%', 'stateful', 45],
  ] as const)('interruption risk: %s', (_, capacityType, bucket, cls, expected) => {
    const node = aNode({ capacityType, instanceType: 'm5.large', zone: 'us-east-1a' });
    const pod = cls === 'stateful' ? aPod({ ownerKind: 'StatefulSet' }) : aPod();
    const info: PriceInfo = { spotUsdPerHour: 0.04, ...(bucket ? { interruptionBucket: bucket } : {}) };
    const result = scoreNode(pod, node, { prices: prices({ [poolKey({ instanceType: 'm5.large', zone: 'us-east-1a' })]: info }) });
    expect(result.feasible && result.dimensions.interruptionRisk).toBe(expected);
  });

  it.each([
    ['spot at 38% of on-demand scores 81', 'spot', 0.0365, 0.096, 80.99],
    ['on-demand scores 50', 'on-demand', undefined, 0.096, 50],
    ['a missing spot price is neutral', 'spot', undefined, 0.096, 50],
    ['spot above on-demand scores below 50', 'spot', 0.144, 0.096, 25],
  ] as const)('cost: %s', (_, capacityType, spot, onDemand, expected) => {
    const node = aNode({ capacityType, instanceType: 'm5.large', zone: 'eu-west-1a' });
    const info: PriceInfo = { onDemandUsdPerHour: onDemand, ...(spot !== undefined ? { spotUsdPerHour: spot } : {}) };
    const result = scoreNode(aPod(), node, { prices: prices({ [poolKey({ instanceType: 'm5.large', zone: 'eu-west-1a' })]: info }) });
    expect(result.feasible && result.dimensions.costEfficiency).toBeCloseTo(expected, 1);
  });

  it('prefers the zone where the workload has the fewest replicas', () => {
    const ctx = {
      zones: ['us-east-1a', 'us-east-1b'],
      workloadZoneCounts: new Map([['default/web', new Map([['us-east-1a', 3], ['us-east-1b', 1]])]]),
    };
    const a = scoreNode(aPod(), aNode({ zone: 'us-east-1a' }), ctx);
    const b = scoreNode(aPod(), aNode({ zone: 'us-east-1b' }), ctx);
    expect(a.feasible && a.dimensions.zoneSpread).toBe(50);
    expect(b.feasible && b.dimensions.zoneSpread).toBe(100);
  });
});

describe('rankNodes', () => {
  const spotPrices = prices({
    [poolKey({ instanceType: 'm5.large', zone: 'us-east-1a' })]: { spotUsdPerHour: 0.0365, interruptionBucket: '<5%' },
    [poolKey({ instanceType: 'm5.large', zone: 'us-east-1b' })]: { spotUsdPerHour: 0.0365, interruptionBucket: '<5%' },
  });
  const fleet = [
    aNode({ name: 'od-a', instanceType: 'm5.large', zone: 'us-east-1a', allocatable: resources({ cpuMilli: 2000, memoryBytes: 8 * GiB }) }),
    aNode({ name: 'spot-b', instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'spot', allocatable: resources({ cpuMilli: 2000, memoryBytes: 8 * GiB }) }),
    aNode({ name: 'cordoned', unschedulable: true }),
    aNode({ name: 'tainted', taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
  ];

  it.each([
    ['a stateless pod goes to spot for the saving', aPod(), 'spot-b', /Chose spot-b .*spot saves 62%, interruption <5%\. Ahead of od-a .* on cost/],
    ['a stateful pod stays on on-demand for the risk', aPod({ ownerKind: 'StatefulSet' }), 'od-a', /Chose od-a .*on-demand at \$0\.0960\/h\. Ahead of spot-b .* on interruption risk/],
  ])('%s', (_, pod, node, rationale) => {
    const ranking = rankNodes(pod, fleet, { prices: spotPrices });
    expect(ranking.decision.node).toBe(node);
    expect(ranking.decision.rationale).toMatch(rationale);
    expect(ranking.decision.rationale).toMatch(/2 of 4 nodes ruled out \(1 node unschedulable, 1 untolerated taint\)/);
  });

  it('says why nothing fits', () => {
    const ranking = rankNodes(aPod({ requests: { cpuMilli: 64000, memoryBytes: 0, gpu: 0 } }), fleet);
    expect(ranking.decision).toEqual({
      reason: 'no_feasible_node',
      rationale: 'No node fits default/' + ranking.pod.split('/')[1] + ': all 4 ruled out (3 insufficient cpu, 1 node unschedulable).',
    });
  });

  it('spreads a workload over zones as it places it', () => {
    const nodes = ['a', 'b', 'c'].flatMap((z) => [aNode({ name: `${z}1`, zone: `us-east-1${z}` }), aNode({ name: `${z}2`, zone: `us-east-1${z}` })]);
    const index = buildScoringIndex(nodes);
    const zones: string[] = [];
    for (let k = 0; k < 6; k++) {
      const pod = aPod();
      const best = scoreIndexed(pod, index);
      commitPlacement(index, best, pod);
      zones.push(nodes[best]!.zone);
    }
    expect(new Set(zones.slice(0, 3)).size).toBe(3);
    expect(new Set(zones.slice(3)).size).toBe(3);
  });
});

describe('scoreIndexed agrees with scoreNode', () => {
  const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
  const types = ['m5.large', 'c5.xlarge', 'r5.large', 'g4dn.xlarge'];
  const arbNode = fc.record({
    zone: fc.constantFrom(...zones),
    instanceType: fc.constantFrom(...types),
    capacityType: fc.constantFrom('spot' as const, 'on-demand' as const),
    cpuUsed: fc.integer({ min: 0, max: 4000 }),
    memUsed: fc.integer({ min: 0, max: 16 }),
    tainted: fc.boolean(),
    unschedulable: fc.boolean(),
  });
  const arbPod = fc.record({
    cpu: fc.integer({ min: 0, max: 3000 }),
    mem: fc.integer({ min: 0, max: 8 }),
    owner: fc.constantFrom('ReplicaSet', 'StatefulSet', 'Job'),
    tolerate: fc.boolean(),
    volumeZone: fc.option(fc.constantFrom(...zones), { nil: undefined }),
    selectSpot: fc.boolean(),
  });

  it('gives the same totals and feasibility on random fleets', () => {
    fc.assert(
      fc.property(fc.array(arbNode, { minLength: 1, maxLength: 12 }), arbPod, fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 3, maxLength: 3 }), (ns, p, peers) => {
        const nodes = ns.map((n, i) =>
          aNode({
            name: `n${i}`,
            zone: n.zone,
            instanceType: n.instanceType,
            capacityType: n.capacityType,
            unschedulable: n.unschedulable,
            taints: n.tainted ? [{ key: 'team', value: 'x', effect: 'NoSchedule' }] : [],
            requested: resources({ cpuMilli: n.cpuUsed, memoryBytes: n.memUsed * GiB, pods: 3 }),
          }),
        );
        const pod = aPod({
          requests: { cpuMilli: p.cpu, memoryBytes: p.mem * GiB, gpu: 0 },
          ownerKind: p.owner,
          tolerations: p.tolerate ? [{ key: 'team', operator: 'Exists' }] : [],
          ...(p.volumeZone ? { pvcZones: [p.volumeZone] } : {}),
          ...(p.selectSpot ? { nodeSelector: { 'karpenter.sh/capacity-type': 'spot' } } : {}),
        });
        const ctx = {
          prices: new Map(types.flatMap((t) => zones.map((z) => [poolKey({ instanceType: t, zone: z }), { spotUsdPerHour: 0.05, interruptionBucket: '5-10%' as const }]))),
          workloadZoneCounts: new Map([['default/web', new Map(zones.map((z, i) => [z, peers[i]!]))]]),
        };
        const index = buildScoringIndex(nodes, ctx);
        const totals = new Float64Array(nodes.length);
        scoreIndexed(pod, index, totals);
        const explainedCtx = { ...ctx, zones: index.zones };
        nodes.forEach((node, i) => {
          const s = scoreNode(pod, node, explainedCtx);
          if (s.feasible) expect(totals[i]).toBeCloseTo(s.total, 9);
          else expect(totals[i]).toBe(-1);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('countWorkloadZones counts bound pods by workload and zone', () => {
    const nodes = [aNode({ name: 'a', zone: 'us-east-1a' }), aNode({ name: 'b', zone: 'us-east-1b' })];
    const pods = [aPod({ nodeName: 'a' }), aPod({ nodeName: 'a' }), aPod({ nodeName: 'b' }), aPod({ nodeName: undefined })];
    expect(countWorkloadZones(pods, nodes)).toEqual(new Map([['default/web', new Map([['us-east-1a', 2], ['us-east-1b', 1]])]]));
  });
});
