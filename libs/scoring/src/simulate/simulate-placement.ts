// The two entry points: simulatePlacement (the best of three packers) and firstFitDecreasing (the baseline).
import { PACKING_EFFORT, configurationBound } from './configuration-lp.js';
import { placeOnExisting } from './existing-nodes.js';
import { ffdNewNodes } from './ffd.js';
import { dualGreedy } from './greedy.js';
import type { NewNodes } from './new-nodes.js';
import { offeringsFor, takeUnplaceable } from './offerings.js';
import { patternPack } from './pattern-pack.js';
import { toGroups } from './pod-groups.js';
import type { Group, Offering, SimulateInput, SimulateResult } from './types.js';
import { roundUsd } from './vectors.js';

/**
 * firstFitDecreasing — the baseline packer (cluster-autoscaler's estimator; see `ffdNewNodes`) after the
 * same first pass over existing nodes as {@link simulatePlacement}.
 */
export function firstFitDecreasing(input: SimulateInput & { readonly instanceType?: string }): SimulateResult {
  return run(input, (groups, offerings) => ({ nodes: ffdNewNodes(groups, offerings, input.instanceType), algorithm: 'first-fit-decreasing' }));
}

/**
 * simulatePlacement — where N more pods would go: first the free capacity of existing nodes, then new nodes
 * from the catalog at the least cost. Three packers run on what is left and the cheapest plan that places
 * the most pods wins: the configuration LP's patterns rounded down plus a greedy for the rest
 * (`patternPack`), the greedy alone at resource shadow prices (`dualGreedy`), and first-fit decreasing —
 * so the result is never worse than the cluster-autoscaler baseline. Spot-averse classes (stateful,
 * latency_sensitive by default) get On-Demand nodes. Quality against `lowerBoundCost` is measured in
 * simulate.quality.spec.ts.
 */
export function simulatePlacement(input: SimulateInput): SimulateResult {
  return run(input, (groups, offerings) => {
    const snapshot = groups.map((g) => g.remaining);
    const candidates: { nodes: NewNodes; left: number[]; algorithm: SimulateResult['algorithm'] }[] = [];
    const attempt = (algorithm: SimulateResult['algorithm'], pack: () => NewNodes): void => {
      groups.forEach((g, i) => (g.remaining = snapshot[i]!));
      const nodes = pack();
      candidates.push({ nodes, left: groups.map((g) => g.remaining), algorithm });
    };
    const cb = configurationBound(groups, offerings, [], PACKING_EFFORT);
    if (cb) attempt('configuration-lp', () => patternPack(groups, offerings, cb));
    attempt('dual-greedy', () => dualGreedy(groups, offerings));
    attempt('first-fit-decreasing', () => ffdNewNodes(groups, offerings));
    const unplaced = (c: (typeof candidates)[number]): number => c.left.reduce((a, b) => a + b, 0);
    candidates.sort((a, b) => unplaced(a) - unplaced(b) || a.nodes.cost - b.nodes.cost);
    const best = candidates[0]!;
    groups.forEach((g, i) => (g.remaining = best.left[i]!));
    return { nodes: best.nodes, algorithm: best.algorithm };
  });
}

function run(
  input: SimulateInput,
  pack: (groups: Group[], offerings: readonly Offering[]) => { nodes: NewNodes; algorithm: SimulateResult['algorithm'] },
): SimulateResult {
  const groups = toGroups(input.pods, input.constraints);
  const placedOnExisting = placeOnExisting(groups, input.nodes);
  const offerings = offeringsFor(input.catalog, input.prices, input.nodes, input.constraints);
  const unschedulable = [...takeUnplaceable(groups, offerings, input.catalog, input.nodes, input.constraints)];
  const { nodes, algorithm } = pack(groups, offerings);
  for (const g of groups) {
    if (g.remaining > 0) unschedulable.push({ pod: g.name, count: g.remaining, reason: 'no_instance_type_fits' });
  }
  return {
    placedOnExisting,
    placedOnExistingCount: placedOnExisting.reduce((s, p) => s + p.count, 0),
    additions: nodes.additions(),
    hourlyCostUsd: roundUsd(nodes.cost),
    unschedulable,
    algorithm,
  };
}
