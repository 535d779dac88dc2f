// The first pass of every simulation: pods into the free capacity of the nodes that already exist.
import { firstUntoleratedTaint, nodeSelectorMismatch, toleratesUnschedulable } from '../filters.js';
import type { ScoringNode } from '../types.js';
import { DIMS, type ExistingPlacement, type Group } from './types.js';
import { howMany, sizeOf } from './vectors.js';

/**
 * placeOnExisting — first free capacity of existing nodes: groups largest first, each first-fit over the
 * Ready, schedulable nodes (fullest first), honouring taints, nodeSelector and zone. Mutates `remaining`.
 */
export function placeOnExisting(groups: Group[], nodes: readonly ScoringNode[]): ExistingPlacement[] {
  const usable = nodes.filter((n) => n.ready);
  const util = (n: ScoringNode): number =>
    Math.max(n.requested.cpuMilli / Math.max(1, n.allocatable.cpuMilli), n.requested.memoryBytes / Math.max(1, n.allocatable.memoryBytes));
  usable.sort((a, b) => util(b) - util(a));
  const free = usable.map((n) => [
    n.allocatable.cpuMilli - n.requested.cpuMilli,
    n.allocatable.memoryBytes - n.requested.memoryBytes,
    n.allocatable.gpu - n.requested.gpu,
    n.allocatable.pods - n.requested.pods,
  ]);
  const placed: ExistingPlacement[] = [];
  const order = [...groups].sort((a, b) => sizeOf(b.req) - sizeOf(a.req));
  for (const g of order) {
    const tolerations = g.src.tolerations ?? [];
    const cordonOk = toleratesUnschedulable(tolerations);
    for (let i = 0; i < usable.length && g.remaining > 0; i++) {
      const node = usable[i]!;
      if (node.unschedulable && !cordonOk) continue;
      if (g.src.zone !== undefined && node.zone !== g.src.zone) continue;
      if (nodeSelectorMismatch(g.src.nodeSelector, node.labels) !== undefined) continue;
      if (g.averse && node.capacityType === 'spot') continue;
      if (firstUntoleratedTaint(node.taints, tolerations)) continue;
      const k = Math.min(g.remaining, howMany(g.req, free[i]!));
      if (k <= 0) continue;
      for (let d = 0; d < DIMS; d++) free[i]![d]! -= k * g.req[d]!;
      g.remaining -= k;
      placed.push({ node: node.name, pod: g.name, count: k });
    }
  }
  return placed;
}
