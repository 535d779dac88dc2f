import { Requirements, type NodeSelectorRequirement } from './requirements.js';
import type { CapacityType } from '@nodes-manager/contracts';

/**
 * Which NodePool and which offering Karpenter launches: NodePools by `weight` (kubernetes-sigs/karpenter,
 * pkg/utils/nodepool/nodepool.go `OrderByWeight`), the capacity type reserved → spot → on-demand
 * (aws/karpenter-provider-aws, pkg/providers/instance/instance.go `getCapacityType`), and among the offerings of that
 * capacity type EC2 Fleet's allocation strategy (pkg/providers/instance/types.go: `price-capacity-optimized` for Spot,
 * `lowest-price` for On-Demand), skipping the unavailable-offerings cache. See docs/karpenter-simulator.md.
 */

export interface NodePoolLike {
  readonly metadata: { readonly name: string };
  readonly spec?: { readonly weight?: number; readonly template?: { readonly spec?: { readonly requirements?: readonly NodeSelectorRequirement[] } } };
}

/**
 * orderNodePools — highest `weight` first (absent is 0); equal weights by name, **descending**, as OrderByWeight
 * does (`nps[a].Name > nps[b].Name`). A copy; the input is untouched.
 */
export function orderNodePools<T extends NodePoolLike>(pools: readonly T[]): T[] {
  return [...pools].sort((a, b) => {
    const wa = a.spec?.weight ?? 0;
    const wb = b.spec?.weight ?? 0;
    if (wa !== wb) return wb - wa;
    return a.metadata.name < b.metadata.name ? 1 : a.metadata.name > b.metadata.name ? -1 : 0;
  });
}

export type { CapacityType };

/** Offering — one (instance type, zone, capacity type) EC2 could launch, with its price now. */
export interface Offering {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  /** USD per hour now (the Spot price, or On-Demand). */
  readonly price: number;
  /**
   * Spare capacity of the pool in [0, 1]; higher is less likely to be reclaimed. EC2 does not publish it; the
   * simulator derives it from the pool's reclaim rate. Absent counts as 1.
   */
  readonly capacity?: number;
  /** Further labels a node of this offering carries (arch, family, cpu…), checked against the requirements too. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * PCO_CAPACITY_BAND — price-capacity-optimized keeps the Spot pools whose capacity is within this much of the best
 * pool's, then takes the cheapest of them. AWS describes the strategy ("the pools with the highest capacity
 * availability, then the lowest priced of these") but not its thresholds; 0.1 is the simulator's choice.
 */
export const PCO_CAPACITY_BAND = 0.1;

export interface UnavailableLookup {
  isUnavailable(instanceType: string, zone: string, capacityType: string): boolean;
}

export type OfferingChoice =
  | { readonly offering: Offering; readonly reason: 'price-capacity-optimized' | 'lowest-price'; readonly skippedUnavailable: number }
  | { readonly offering: undefined; readonly reason: 'no-compatible-offering' | 'all-unavailable'; readonly skippedUnavailable: number };

/** offeringLabels — the labels a node launched from `o` carries, as requirements see them. */
export function offeringLabels(o: Offering): Record<string, string> {
  return { ...o.labels, 'node.kubernetes.io/instance-type': o.instanceType, 'topology.kubernetes.io/zone': o.zone, 'karpenter.sh/capacity-type': o.capacityType };
}

/**
 * chooseOffering — the offering a NodeClaim with `requirements` launches on. Offerings that the requirements do not
 * admit are dropped, then those in the unavailable-offerings cache. Spot is used when the requirements allow it and
 * an available Spot offering remains; otherwise On-Demand. Spot: price-capacity-optimized (see PCO_CAPACITY_BAND);
 * On-Demand: lowest price. Ties go to the instance type, then the zone, by name.
 */
export function chooseOffering(offerings: readonly Offering[], requirements: readonly NodeSelectorRequirement[], unavailable?: UnavailableLookup): OfferingChoice {
  const reqs = Requirements.fromNodeSelector(requirements);
  const admitted = offerings.filter((o) => Object.entries(offeringLabels(o)).every(([k, v]) => reqs.allows(k, v)));
  const available = admitted.filter((o) => !unavailable?.isUnavailable(o.instanceType, o.zone, o.capacityType));
  const skippedUnavailable = admitted.length - available.length;
  if (admitted.length === 0) return { offering: undefined, reason: 'no-compatible-offering', skippedUnavailable };
  const spot = available.filter((o) => o.capacityType === 'spot');
  if (spot.length > 0) {
    const best = Math.max(...spot.map((o) => o.capacity ?? 1));
    const band = spot.filter((o) => (o.capacity ?? 1) >= best - PCO_CAPACITY_BAND - 1e-12);
    return { offering: cheapest(band), reason: 'price-capacity-optimized', skippedUnavailable };
  }
  const onDemand = available.filter((o) => o.capacityType === 'on-demand');
  if (onDemand.length > 0) return { offering: cheapest(onDemand), reason: 'lowest-price', skippedUnavailable };
  return { offering: undefined, reason: 'all-unavailable', skippedUnavailable };
}

function cheapest(list: readonly Offering[]): Offering {
  return [...list].sort((a, b) => a.price - b.price || cmp(a.instanceType, b.instanceType) || cmp(a.zone, b.zone))[0]!;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
