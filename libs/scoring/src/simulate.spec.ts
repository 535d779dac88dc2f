import { describe, expect, it } from '@jest/globals';
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import { maximizeLp } from './lp.js';
import { allocatableFor, firstFitDecreasing, lowerBoundCost, simulatePlacement, type SimulateInput, type SimulatePodGroup } from './simulate/index.js';
import { aNode, GiB, resources } from './testing/builders.js';
import { priceTable } from './testing/prices.js';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const prices = priceTable(INSTANCE_TYPES, ZONES, 7);
const group = (overrides: Partial<SimulatePodGroup> = {}): SimulatePodGroup => ({
  name: 'web',
  requests: { cpuMilli: 500, memoryBytes: 1 * GiB, gpu: 0 },
  count: 10,
  ...overrides,
});
const input = (overrides: Partial<SimulateInput> = {}): SimulateInput => ({
  pods: [group()],
  nodes: [],
  catalog: INSTANCE_TYPES,
  prices,
  constraints: { zones: ZONES },
  ...overrides,
});

describe('simulatePlacement', () => {
  it('uses free capacity on existing nodes before buying any', () => {
    const result = simulatePlacement(input({ nodes: [aNode({ name: 'big', allocatable: resources({ cpuMilli: 16000, memoryBytes: 64 * GiB }) })] }));
    expect(result.placedOnExisting).toEqual([{ node: 'big', pod: 'web', count: 10 }]);
    expect(result.additions).toEqual([]);
    expect(result.hourlyCostUsd).toBe(0);
  });

  it.each([
    ['stateless pods go to spot', group(), 'spot'],
    ['stateful pods avoid spot', group({ class: 'stateful' }), 'on-demand'],
    ['latency-sensitive pods avoid spot', group({ class: 'latency_sensitive' }), 'on-demand'],
    ['batch pods go to spot', group({ class: 'batch' }), 'spot'],
  ] as const)('%s', (_, g, capacityType) => {
    const result = simulatePlacement(input({ pods: [g] }));
    expect(result.additions.length).toBeGreaterThan(0);
    expect(result.additions.every((a) => a.capacityType === capacityType)).toBe(true);
  });

  it('puts GPU pods on GPU types', () => {
    const result = simulatePlacement(input({ pods: [group({ requests: { cpuMilli: 1000, memoryBytes: 4 * GiB, gpu: 1 }, count: 3 })] }));
    expect(result.additions.every((a) => INSTANCE_TYPES.find((t) => t.name === a.instanceType)!.gpu > 0)).toBe(true);
    expect(result.additions.reduce((s, a) => s + a.count, 0)).toBe(3);
  });

  it('honours a zone pin and a nodeSelector', () => {
    const result = simulatePlacement(
      input({ pods: [group({ zone: 'us-east-1b', nodeSelector: { 'kubernetes.io/arch': 'arm64' } })] }),
    );
    expect(result.additions.every((a) => a.zone === 'us-east-1b' && /g\./.test(a.instanceType))).toBe(true);
  });

  it('never puts a spot-averse pod on an existing spot node', () => {
    const result = simulatePlacement(input({ pods: [group({ class: 'stateful' })], nodes: [aNode({ capacityType: 'spot' })] }));
    expect(result.placedOnExistingCount).toBe(0);
  });

  it.each([
    ['a pod larger than any type cannot be placed', group({ requests: { cpuMilli: 512000, memoryBytes: 0, gpu: 0 } }), 'no_instance_type_fits'],
    ['a selector no type carries cannot be placed', group({ nodeSelector: { 'kubernetes.io/arch': 's390x' } }), 'no_instance_type_fits'],
  ] as const)('%s', (_, g, reason) => {
    expect(simulatePlacement(input({ pods: [g] })).unschedulable).toEqual([{ pod: 'web', count: 10, reason }]);
  });

  it('says when only a missing price stands in the way', () => {
    const result = simulatePlacement(input({ prices: new Map(), constraints: { zones: ['eu-west-1a'] } }));
    expect(result.unschedulable).toEqual([{ pod: 'web', count: 10, reason: 'no_priced_offering' }]);
  });

  it('reports each addition with its count and hourly cost', () => {
    const result = simulatePlacement(input({ pods: [group({ count: 100 })] }));
    const total = result.additions.reduce((s, a) => s + a.hourlyUsd, 0);
    expect(result.hourlyCostUsd).toBeCloseTo(total, 5);
    for (const a of result.additions) expect(a.hourlyUsd).toBeCloseTo(a.count * a.unitUsdPerHour, 6);
  });
});

describe('firstFitDecreasing', () => {
  it('opens only the configured type', () => {
    const result = firstFitDecreasing({ ...input({ pods: [group({ count: 40 })] }), instanceType: 'm5.xlarge' });
    expect(new Set(result.additions.map((a) => a.instanceType))).toEqual(new Set(['m5.xlarge']));
    const perNode = Math.floor(allocatableFor(INSTANCE_TYPES.find((t) => t.name === 'm5.xlarge')!).cpuMilli / 500);
    expect(result.additions.reduce((s, a) => s + a.count, 0)).toBe(Math.ceil(40 / perNode));
  });
});

describe('lowerBoundCost', () => {
  it('is at least the per-dimension bound and at most what a plan costs', () => {
    const pods = [group({ count: 200 }), group({ name: 'db', class: 'stateful', requests: { cpuMilli: 250, memoryBytes: 6 * GiB, gpu: 0 }, count: 40 })];
    const bound = lowerBoundCost(input({ pods }));
    expect(bound.usdPerHour).toBeGreaterThanOrEqual(bound.perDimensionUsdPerHour - 1e-9);
    expect(simulatePlacement(input({ pods })).hourlyCostUsd).toBeGreaterThanOrEqual(bound.usdPerHour - 1e-9);
  });

  it('subtracts free existing capacity', () => {
    const nodes = [aNode({ allocatable: resources({ cpuMilli: 64000, memoryBytes: 256 * GiB, pods: 500 }) })];
    expect(lowerBoundCost(input({ nodes })).usdPerHour).toBe(0);
  });
});

describe('maximizeLp', () => {
  it.each([
    ['a two-variable textbook problem', [3, 5], [[1, 0], [0, 2], [3, 2]], [4, 12, 18], 36],
    ['a zero objective', [0, 0], [[1, 1]], [1], 0],
  ])('solves %s', (_, c, A, b, value) => {
    const r = maximizeLp(c, A, b);
    expect(r.status === 'optimal' && r.value).toBeCloseTo(value, 9);
  });
  it('reports an unbounded problem', () => {
    expect(maximizeLp([1, 1], [[1, -1]], [1]).status).toBe('unbounded');
  });
});

