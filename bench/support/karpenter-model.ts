/**
 * The playout's Karpenter, from libs/sim's pure copies of Karpenter's own decisions (docs/karpenter-simulator.md):
 * whether a node's labels still satisfy its NodePool's requirements (`requirementsDrifted`, kubernetes-sigs/karpenter
 * pkg/controllers/nodeclaim/disruption/drift.go `areRequirementsDrifted`), and how many drifted nodes may be disrupted
 * now (`allowedDisruptions` for reason `Drifted`: the most restrictive active budget, a percentage rounded up, the
 * CRD's default of 10% when the NodePool has none; pkg/apis/v1/nodepool.go `GetAllowedDisruptionsByReason`).
 */
import { allowedDisruptions, requirementsDrifted, UNAVAILABLE_OFFERINGS_TTL_MS, type NodeSelectorRequirement } from '@nodes-manager/sim';
import type { DisruptionBudget, Offering, Requirement } from '@nodes-manager/steering';

export { UNAVAILABLE_OFFERINGS_TTL_MS };

/** labelsOf — the labels a node launched on an offering carries. */
function labelsOf(o: Offering): Record<string, string> {
  return { ...o.labels, 'node.kubernetes.io/instance-type': o.instanceType, 'topology.kubernetes.io/zone': o.zone, 'karpenter.sh/capacity-type': o.capacityType };
}

/** driftedOfferings — the offerings whose nodes the requirements drift (Karpenter's RequirementsDrifted). */
export function driftedOfferings(requirements: readonly Requirement[], offerings: readonly Offering[]): Set<Offering> {
  const reqs = requirements as readonly NodeSelectorRequirement[];
  return new Set(offerings.filter((o) => requirementsDrifted(labelsOf(o), reqs).drifted));
}

/** allowedDrift — drifted nodes of a NodePool of `nodes` nodes that may start their replacement now (none in flight between ticks). */
export function allowedDrift(budgets: readonly DisruptionBudget[], nodes: number, now: Date): number {
  return allowedDisruptions({ spec: { disruption: budgets.length > 0 ? { budgets } : {} } }, 'Drifted', { nodes, disrupting: 0 }, now).allowed;
}
