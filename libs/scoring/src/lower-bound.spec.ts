import { describe, expect, it } from '@jest/globals';
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import fc from 'fast-check';
import { ColumnLp, maximizeLp } from './lp.js';
import { lowerBoundCost, offeringsFor, simulatePlacement, type Offering, type SimulateInput } from './simulate/index.js';
import { aNode, GiB, MiB, resources } from './testing/builders.js';
import { priceTable } from './testing/prices.js';
import type { WorkloadClass } from './types.js';

const ZONE = 'us-east-1a';
const TYPES = ['t3.medium', 'm5.large', 'c5.xlarge'];
const prices = priceTable(INSTANCE_TYPES, [ZONE], 11);

/**
 * optimum — the cheapest placement by exhaustive search (tiny inputs only): every pod, largest first, goes to
 * an existing node, an already bought node, or a newly bought node of any offering; Spot-averse pods never go
 * to Spot. Branches that already cost at least the best found are cut.
 */
function optimum(input: SimulateInput, offerings: readonly Offering[]): number {
  const pods = input.pods
    .flatMap((g) => Array.from({ length: g.count }, () => ({ req: [g.requests.cpuMilli, g.requests.memoryBytes, g.requests.gpu, 1], averse: g.class === 'stateful' })))
    .sort((a, b) => b.req[0]! - a.req[0]!);
  const bins = input.nodes.map((n) => ({
    spot: n.capacityType === 'spot',
    free: [n.allocatable.cpuMilli - n.requested.cpuMilli, n.allocatable.memoryBytes - n.requested.memoryBytes, n.allocatable.gpu - n.requested.gpu, n.allocatable.pods - n.requested.pods],
  }));
  let best = Infinity;
  const fits = (req: number[], free: number[]): boolean => req.every((r, d) => r <= free[d]! + 1e-9);
  const take = (req: number[], free: number[], sign: number): void => req.forEach((r, d) => (free[d]! -= sign * r));
  const rec = (i: number, cost: number): void => {
    if (cost >= best - 1e-12) return;
    if (i === pods.length) {
      best = cost;
      return;
    }
    const p = pods[i]!;
    for (const b of bins) {
      if ((p.averse && b.spot) || !fits(p.req, b.free)) continue;
      take(p.req, b.free, 1);
      rec(i + 1, cost);
      take(p.req, b.free, -1);
    }
    const opened = bins.length;
    for (const o of offerings) {
      if (p.averse && o.capacityType === 'spot') continue;
      if (!fits(p.req, [...o.alloc])) continue;
      bins.push({ spot: o.capacityType === 'spot', free: [...o.alloc] });
      take(p.req, bins[opened]!.free, 1);
      rec(i + 1, cost + o.usdPerHour);
      bins.pop();
    }
  };
  rec(0, 0);
  return best;
}

const groupArb = fc.record({
  cpuMilli: fc.integer({ min: 1, max: 16 }).map((x) => x * 125),
  memMi: fc.integer({ min: 1, max: 24 }).map((x) => x * 256),
  count: fc.integer({ min: 1, max: 3 }),
  cls: fc.constantFrom<WorkloadClass>('stateless', 'stateful'),
});
const nodeArb = fc.record({
  spot: fc.boolean(),
  usedCpu: fc.integer({ min: 0, max: 4000 }),
  usedGiB: fc.integer({ min: 0, max: 16 }),
});

describe('lowerBoundCost against the exact optimum', () => {
  it('is never above the cheapest placement on tiny inputs (with and without existing free capacity)', () => {
    fc.assert(
      fc.property(fc.array(groupArb, { minLength: 1, maxLength: 3 }), fc.array(nodeArb, { maxLength: 2 }), (groups, nodes) => {
        const input: SimulateInput = {
          pods: groups.map((g, i) => ({ name: `g${i}`, requests: { cpuMilli: g.cpuMilli, memoryBytes: g.memMi * MiB, gpu: 0 }, count: g.count, class: g.cls })),
          nodes: nodes.map((n, i) =>
            aNode({ name: `n${i}`, zone: ZONE, capacityType: n.spot ? 'spot' : 'on-demand', requested: resources({ cpuMilli: n.usedCpu, memoryBytes: n.usedGiB * GiB, pods: 50 }) }),
          ),
          catalog: INSTANCE_TYPES,
          prices,
          constraints: { zones: [ZONE], instanceTypes: TYPES },
        };
        const offerings = offeringsFor(INSTANCE_TYPES, prices, input.nodes, input.constraints);
        const best = optimum(input, offerings);
        const bound = lowerBoundCost(input);
        expect(bound.usdPerHour).toBeLessThanOrEqual(best + 1e-9);
        expect(simulatePlacement(input).hourlyCostUsd).toBeGreaterThanOrEqual(best - 1e-6);
      }),
      { numRuns: 150, seed: 20250601 },
    );
  });
});

describe('ColumnLp (restricted master of the configuration LP)', () => {
  it.each([
    ['a covering LP', ['>=', '>='], [4, 6], [[2, 1, 3], [1, 2, 3]], [1, 1, 2.5]],
    ['a covering LP with a capped zero-cost column', ['>=', '<='], [5, 2], [[1, 2], [0, 1]], [1, 0]],
  ] as const)('matches the dual simplex value on %s', (_, sense, rhs, cols, cost) => {
    const lp = new ColumnLp(sense, rhs);
    cols[0]!.forEach((_, j) => lp.addColumn(cost[j]!, cols.map((row) => row[j]!)));
    const sol = lp.solve();
    // Dual: max bᵀπ s.t. Aᵀπ ≤ c, π ≥ 0 on ≥ rows and ≤ 0 on ≤ rows (negated into ≥ 0 variables).
    const sign = sense.map((s) => (s === '>=' ? 1 : -1));
    const dual = maximizeLp(
      rhs.map((b, i) => b * sign[i]!),
      cols[0]!.map((_, j) => cols.map((row, i) => row[j]! * sign[i]!)),
      [...cost],
    );
    expect(sol.status).toBe('optimal');
    expect(dual.status === 'optimal' && dual.value).toBeCloseTo(sol.value, 9);
  });

  it('keeps its basis when columns are added (column generation)', () => {
    const lp = new ColumnLp(['>='], [10]);
    lp.addColumn(1, [1]);
    expect(lp.solve().value).toBeCloseTo(10, 9);
    lp.addColumn(1, [4]);
    const sol = lp.solve();
    expect(sol.value).toBeCloseTo(2.5, 9);
    expect(sol.duals[0]).toBeCloseTo(0.25, 9);
  });
});
