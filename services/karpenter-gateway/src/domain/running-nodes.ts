import { CAPACITY_TYPES } from '@nodes-manager/contracts';
import type { NodeCount } from '@nodes-manager/steering';
import type { NodeClaim } from './nodepool.types.js';

/**
 * runningNodesOf — a NodePool's running nodes by offering, from its NodeClaims' labels (instance type, zone, capacity
 * type, as Karpenter sets them at launch): what a requirements change would drift (docs/steering.md). A claim being
 * deleted is already on its way out and is not counted; one without the three labels cannot be placed and is left out.
 */
export function runningNodesOf(claims: readonly NodeClaim[]): NodeCount[] {
  const counts = new Map<string, NodeCount>();
  for (const c of claims) {
    if (c.metadata.deletionTimestamp) continue;
    const l = c.metadata.labels ?? {};
    const instanceType = l['node.kubernetes.io/instance-type'];
    const zone = l['topology.kubernetes.io/zone'];
    const capacityType = CAPACITY_TYPES.find((t) => t === l['karpenter.sh/capacity-type']);
    if (!instanceType || !zone || !capacityType) continue;
    const key = `${instanceType}/${zone}/${capacityType}`;
    const n = counts.get(key) ?? { instanceType, zone, capacityType, count: 0 };
    n.count += 1;
    counts.set(key, n);
  }
  return [...counts.values()].sort((a, b) => `${a.instanceType}/${a.zone}/${a.capacityType}`.localeCompare(`${b.instanceType}/${b.zone}/${b.capacityType}`));
}
