import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ignoredForDrain, planConsolidation, podBlockReason, utilization, type ConsolidationInput, type PdbInfo } from './consolidation.js';
import { filterNode } from './filters.js';
import { pricing } from './prices.js';
import { aNode, aPod, GiB, resources } from './testing/builders.js';
import { mulberry32 } from './testing/prices.js';
import type { NodeResources, ScoringNode, ScoringPod } from './types.js';

const TYPES = [
  { name: 'm5.large', cpu: 2000, mem: 8 },
  { name: 'm5.xlarge', cpu: 4000, mem: 16 },
  { name: 'c5.xlarge', cpu: 4000, mem: 8 },
];
const ZONES = ['us-east-1a', 'us-east-1b'];

/** generate — ≤ 8 nodes, 0–4 pods each, some blockers and one PDB; seeded. */
function generate(seed: number): ConsolidationInput {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const nodes: ScoringNode[] = [];
  const pods: ScoringPod[] = [];
  const count = 3 + Math.floor(rnd() * 6);
  for (let i = 0; i < count; i++) {
    const t = pick(TYPES);
    const name = `n${i}`;
    const mine: ScoringPod[] = Array.from({ length: Math.floor(rnd() * 5) }, (_, j) =>
      aPod({
        name: `p${i}-${j}`,
        nodeName: name,
        requests: { cpuMilli: 100 * (1 + Math.floor(rnd() * 12)), memoryBytes: (1 + Math.floor(rnd() * 3)) * GiB / 2, gpu: 0 },
        labels: { app: pick(['web', 'api']) },
        ...(rnd() < 0.05 ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}),
        ...(rnd() < 0.05 ? { ownerKind: undefined } : {}),
      }),
    );
    pods.push(...mine);
    const sum = (k: 'cpuMilli' | 'memoryBytes') => mine.reduce((s, p) => s + p.requests[k], 0);
    nodes.push(
      aNode({
        name,
        instanceType: t.name,
        zone: pick(ZONES),
        allocatable: resources({ cpuMilli: t.cpu, memoryBytes: t.mem * GiB, pods: 29 }),
        requested: resources({ cpuMilli: sum('cpuMilli'), memoryBytes: sum('memoryBytes'), pods: mine.length }),
      }),
    );
  }
  const pdbs: PdbInfo[] = [{ name: 'web', namespace: 'default', selector: { app: 'web' }, disruptionsAllowed: Math.floor(rnd() * 4) }];
  return { nodes, pods, pdbs, threshold: 0.5 };
}

const price = (n: ScoringNode): number => pricing(undefined, n.instanceType, n.zone, n.capacityType).usdPerHour ?? 0;
const zero = (): NodeResources => ({ cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 });

/** optimalSavings — brute force over every set of candidate nodes, with an exact backtracking re-pack. */
function optimalSavings(input: ConsolidationInput): number {
  const candidates = input.nodes.filter((n) => n.ready && utilization(n) < (input.threshold ?? 0.5));
  const movable = (n: ScoringNode) => input.pods.filter((p) => p.nodeName === n.name && !ignoredForDrain(p));
  let best = 0;
  for (let mask = 1; mask < 1 << candidates.length; mask++) {
    const set = candidates.filter((_, i) => mask & (1 << i));
    const saving = set.reduce((s, n) => s + price(n), 0);
    if (saving <= best) continue;
    const pods = set.flatMap(movable);
    if (pods.some((p) => podBlockReason(p) !== undefined)) continue;
    if (set.some((n) => n.annotations?.['karpenter.sh/do-not-disrupt'] === 'true')) continue;
    const ok = input.pdbs.every((b) => pods.filter((p) => p.namespace === b.namespace && Object.entries(b.selector).every(([k, v]) => p.labels[k] === v)).length <= b.disruptionsAllowed);
    if (!ok) continue;
    const names = new Set(set.map((n) => n.name));
    const dests = input.nodes.filter((n) => !names.has(n.name) && n.ready && !n.unschedulable);
    const extra = dests.map(zero);
    const sorted = [...pods].sort((a, b) => b.requests.cpuMilli - a.requests.cpuMilli);
    const place = (i: number): boolean => {
      if (i === sorted.length) return true;
      for (let d = 0; d < dests.length; d++) {
        if (filterNode(sorted[i]!, dests[d]!, extra[d]).length > 0) continue;
        const r = sorted[i]!.requests;
        const prev = extra[d]!;
        extra[d] = { cpuMilli: prev.cpuMilli + r.cpuMilli, memoryBytes: prev.memoryBytes + r.memoryBytes, gpu: prev.gpu, pods: prev.pods + 1 };
        if (place(i + 1)) return true;
        extra[d] = prev;
      }
      return false;
    };
    if (place(0)) best = saving;
  }
  return best;
}

describe('planConsolidation quality', () => {
  it('saves at least 95% of the brute-force optimum on average over small seeded fleets', () => {
    const ratios: number[] = [];
    for (let seed = 1; seed <= 80; seed++) {
      const input = generate(seed);
      const optimal = optimalSavings(input);
      const plan = planConsolidation(input);
      expect(plan.hourlySavingsUsd).toBeLessThanOrEqual(optimal + 1e-9);
      if (optimal > 0) ratios.push(plan.hourlySavingsUsd / optimal);
    }
    const mean = ratios.reduce((s, r) => s + r, 0) / ratios.length;
    process.stdout.write(`consolidation quality: ${(mean * 100).toFixed(2)}% of optimal savings on average over ${ratios.length} fleets with savings, worst ${(Math.min(...ratios) * 100).toFixed(1)}%\n`);
    expect(mean).toBeGreaterThanOrEqual(0.95);
  });

  it('never violates a PDB, a do-not-disrupt annotation or a capacity limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const input = generate(seed);
        const plan = planConsolidation(input);
        for (const impact of plan.pdbImpact) expect(impact.disruptionsUsed).toBeLessThanOrEqual(impact.disruptionsAllowed);
        const removed = new Set(plan.remove.map((r) => r.node));
        for (const p of input.pods) {
          if (p.nodeName && removed.has(p.nodeName)) expect(p.annotations['karpenter.sh/do-not-disrupt']).not.toBe('true');
        }
        const byName = new Map(input.pods.map((p) => [`${p.namespace}/${p.name}`, p]));
        const added = new Map<string, { cpu: number; mem: number; pods: number }>();
        for (const r of plan.remove) {
          for (const m of r.pods) {
            expect(removed.has(m.to)).toBe(false);
            const p = byName.get(m.pod)!;
            const a = added.get(m.to) ?? { cpu: 0, mem: 0, pods: 0 };
            added.set(m.to, { cpu: a.cpu + p.requests.cpuMilli, mem: a.mem + p.requests.memoryBytes, pods: a.pods + 1 });
          }
        }
        for (const n of input.nodes) {
          const a = added.get(n.name);
          if (!a) continue;
          expect(n.requested.cpuMilli + a.cpu).toBeLessThanOrEqual(n.allocatable.cpuMilli);
          expect(n.requested.memoryBytes + a.mem).toBeLessThanOrEqual(n.allocatable.memoryBytes);
          expect(n.requested.pods + a.pods).toBeLessThanOrEqual(n.allocatable.pods);
        }
      }),
      { numRuns: 200 },
    );
  });
});
