import { describe, expect, it } from '@jest/globals';
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import { bucketOfMonthlyFrequency, costBasisPrice, expectedCost, withExpectedCosts, type MeasuredInterruptions } from './expected-cost.js';
import { scoreNode } from './score-node.js';
import { simulatePlacement } from './simulate/index.js';
import { rankNodes } from './scoring-index.js';
import { aNode, aPod } from './testing/builders.js';
import { type PriceInfo } from './types.js';
import { poolKey } from '@nodes-manager/contracts';

const cfg = { disruptionCostUsd: 7.3, minSamples: 10 };
const measured = (interrupted: number, samples: number, perNodeHour?: number): MeasuredInterruptions => ({ samples, interrupted, share: interrupted / samples, ...(perNodeHour !== undefined ? { perNodeHour } : {}) });

describe('expectedCost', () => {
  it.each([
    ['a pool without a price has no expected cost (never guessed)', undefined, '<5%', undefined, undefined],
    ['a pool with neither bucket nor measurement costs its price, basis unknown', 0.1, undefined, undefined, { usdPerHour: 0.1, basis: 'unknown' }],
    ['the estimate: the bucket’s middle (2.5%/month) over 730 h × $7.30', 0.1, '<5%', undefined, { usdPerHour: 0.1 + 0.00025, basis: 'estimate' }],
    ['too few samples keep the estimate', 0.1, '>20%', measured(8, 9), { usdPerHour: 0.1 + 0.0025, basis: 'estimate' }],
    ['enough samples: the measured share as the monthly frequency', 0.1, '<5%', measured(8, 10), { usdPerHour: 0.1 + 0.008, basis: 'measured-in-this-cluster' }],
    ['enough samples with node-hours: the measured rate per node-hour', 0.1, '<5%', measured(8, 10, 0.01), { usdPerHour: 0.1 + 0.073, basis: 'measured-in-this-cluster' }],
    ['a pool measured and never interrupted costs its price', 0.1, '>20%', measured(0, 40), { usdPerHour: 0.1, basis: 'measured-in-this-cluster' }],
  ] as const)('%s', (_, price, bucket, m, want) => {
    const e = expectedCost(price, bucket, m, cfg);
    if (want === undefined) return expect(e).toBeUndefined();
    expect(e!.basis).toBe(want.basis);
    expect(e!.usdPerHour).toBeCloseTo(want.usdPerHour, 10);
    expect(e!.usdPerHour).toBeCloseTo(e!.priceUsdPerHour + e!.interruptionUsdPerHour, 12);
  });

  it.each([[0.01, '<5%'], [0.05, '5-10%'], [0.12, '10-15%'], [0.19, '15-20%'], [0.8, '>20%']] as const)('a monthly frequency of %d is in the %s bucket', (f, b) => {
    expect(bucketOfMonthlyFrequency(f)).toBe(b);
  });

  it('costs are judged on the expected figure only where the pool is measured', () => {
    const e = expectedCost(0.1, '<5%', measured(8, 10), cfg)!;
    expect(costBasisPrice(0.1, e)).toBeCloseTo(0.108, 10);
    expect(costBasisPrice(0.1, expectedCost(0.1, '<5%', undefined, cfg))).toBe(0.1);
    expect(costBasisPrice(0.1, undefined)).toBe(0.1);
  });
});

describe('placement scoring with measured pools', () => {
  const table = (m?: MeasuredInterruptions): Map<string, PriceInfo> =>
    withExpectedCosts(
      new Map<string, PriceInfo>([
        [poolKey({ instanceType: 'm5.large', zone: 'us-east-1a' }), { spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096, interruptionBucket: '<5%', ...(m ? { measured: m } : {}) }],
        [poolKey({ instanceType: 'm5.large', zone: 'us-east-1b' }), { spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096, interruptionBucket: '<5%' }],
      ]),
      { disruptionCostUsd: 20, minSamples: 10 },
    );
  const nodes = [aNode({ name: 'a', instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot' }), aNode({ name: 'b', instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'spot' })];

  it.each([
    ['two identical pools, neither measured, score the same and say nothing of a measurement', undefined, 'equal', /interruption <5%$/],
    ['too few samples: the estimate as now', measured(5, 6), 'equal', /interruption <5%$/],
    ['a pool measured at 8 of 10 scores below its unmeasured twin on cost and risk, and says why', measured(8, 10), 'b', /expected with interruptions, measured in this cluster: 8 of 10 rebalances followed by an interruption\), interruption >20% \(measured\)/],
  ] as const)('%s', (_, m, winner, rationale) => {
    const ctx = { prices: table(m) };
    const [first, second] = rankNodes(aPod({ name: 'p' }), nodes, ctx).ranked;
    if (winner === 'equal') expect(first!.total).toBeCloseTo(second!.total, 9);
    else expect(first!.node).toBe(winner);
    const a = scoreNode(aPod({ name: 'p' }), nodes[0]!, ctx);
    if (!a.feasible) throw new Error('node a must fit');
    expect(a.total).toBeCloseTo(rankNodes(aPod({ name: 'p' }), nodes, ctx).ranked.find((r) => r.node === 'a')!.total, 9);
    expect(a.rationale).toMatch(rationale);
  });
});

describe('simulate with measured pools', () => {
  const prices = (m?: MeasuredInterruptions) =>
    withExpectedCosts(
      new Map<string, PriceInfo>([
        [poolKey({ instanceType: 'm5.large', zone: 'us-east-1a' }), { spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096, interruptionBucket: '<5%', ...(m ? { measured: m } : {}) }],
        [poolKey({ instanceType: 'm5.large', zone: 'us-east-1b' }), { spotUsdPerHour: 0.041, onDemandUsdPerHour: 0.096, interruptionBucket: '<5%' }],
      ]),
      { disruptionCostUsd: 20, minSamples: 10 },
    );
  const run = (m?: MeasuredInterruptions) =>
    simulatePlacement({ pods: [{ name: 'web', requests: { cpuMilli: 1000, memoryBytes: 2 * 1024 ** 3, gpu: 0 }, count: 1 }], nodes: [], catalog: INSTANCE_TYPES.filter((t) => t.name === 'm5.large'), prices: prices(m), constraints: { zones: ['us-east-1a', 'us-east-1b'] } });

  it.each([
    ['unmeasured, the cheaper price wins', undefined, 'us-east-1a', 0.04],
    ['too few samples: the estimate as now, the cheaper price wins', measured(5, 6), 'us-east-1a', 0.04],
    ['measured at 8 of 10, the cheaper pool’s expected cost loses to its twin', measured(8, 10), 'us-east-1b', 0.041],
  ] as const)('%s', (_, m, zone, unit) => {
    const r = run(m);
    expect(r.additions.map((a) => [a.zone, a.capacityType, a.unitUsdPerHour])).toEqual([[zone, 'spot', unit]]);
  });
});
