// Offerings: the (instance type, zone, capacity type) new nodes may be, their allocatable, and which pod
// groups each can hold.
import type { InstanceTypeSpec } from '@nodes-manager/contracts';
import { nodeSelectorMismatch } from '../filters.js';
import { pricing } from '../prices.js';
import { costBasisPrice } from '../expected-cost.js';
import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_ZONE,
  type CapacityType,
  type NodeResources,
  type PriceTable,
  type ScoringNode,
} from '../types.js';
import { DIMS, MiB, type Group, type Offering, type SimulateConstraints, type SimulateResult, type UnschedulableReason } from './types.js';
import { poolKey } from '@nodes-manager/contracts';

/**
 * allocatableFor — what a new node of this type offers pods, with the EKS AMI's reservations: cpu 6% of the
 * first core, 1% of the second, 0.5% of the next two, 0.25% above; memory 255 MiB + 11 MiB per pod slot plus
 * the 100 MiB hard-eviction threshold; pods = the VPC CNI limit.
 */
export function allocatableFor(spec: InstanceTypeSpec): NodeResources {
  const cores = spec.vcpu;
  const reservedCpu =
    60 * Math.min(cores, 1) + 10 * Math.min(Math.max(cores - 1, 0), 1) + 5 * Math.min(Math.max(cores - 2, 0), 2) + 2.5 * Math.max(cores - 4, 0);
  const reservedMem = (255 + 11 * spec.maxPods + 100) * MiB;
  return {
    cpuMilli: cores * 1000 - reservedCpu,
    memoryBytes: spec.memoryMiB * MiB - reservedMem,
    gpu: spec.gpu,
    pods: spec.maxPods,
  };
}

/** offeringsFor — every priced (type, zone, capacity type) new nodes may be, per the constraints. */
export function offeringsFor(
  catalog: readonly InstanceTypeSpec[],
  prices: PriceTable,
  nodes: readonly ScoringNode[],
  constraints: SimulateConstraints = {},
): Offering[] {
  const zones = zonesFor(prices, nodes, constraints);
  const allowed = constraints.instanceTypes ? new Set(constraints.instanceTypes) : undefined;
  const capacityTypes: CapacityType[] = constraints.allowSpot === false ? ['on-demand'] : ['on-demand', 'spot'];
  const out: Offering[] = [];
  for (const spec of catalog) {
    if (allowed && !allowed.has(spec.name)) continue;
    const a = allocatableFor(spec);
    for (const zone of zones) {
      for (const capacityType of capacityTypes) {
        // Spot in a pool measured in this cluster is bought at its expected cost (price + interruptions × their cost).
        const p = pricing(prices, spec.name, zone, capacityType);
        const usd = costBasisPrice(p.usdPerHour, p.expected);
        if (usd === undefined || !(usd > 0)) continue;
        out.push({
          spec,
          zone,
          capacityType,
          usdPerHour: usd,
          alloc: [a.cpuMilli, a.memoryBytes, a.gpu, a.pods],
          labels: {
            [LABEL_INSTANCE_TYPE]: spec.name,
            [LABEL_ZONE]: zone,
            [LABEL_CAPACITY_TYPE]: capacityType,
            [LABEL_ARCH]: spec.arch,
            'karpenter.k8s.aws/instance-family': spec.family,
          },
        });
      }
    }
  }
  return out;
}

function zonesFor(prices: PriceTable, nodes: readonly ScoringNode[], constraints: SimulateConstraints): string[] {
  if (constraints.zones) return [...constraints.zones];
  const fromNodes = [...new Set(nodes.map((n) => n.zone))];
  if (fromNodes.length > 0) return fromNodes.sort();
  const fromPrices = new Set<string>();
  for (const key of prices.keys()) fromPrices.add(key.slice(key.indexOf('/') + 1));
  return [...fromPrices].sort();
}

export function compatible(g: Group, o: Offering): boolean {
  if (g.averse && o.capacityType === 'spot') return false;
  if (g.src.zone !== undefined && g.src.zone !== o.zone) return false;
  if (nodeSelectorMismatch(g.src.nodeSelector, o.labels) !== undefined) return false;
  for (let d = 0; d < DIMS; d++) if (g.req[d]! > o.alloc[d]!) return false;
  return true;
}

/** Pods no offering can take, taken out of `remaining`. */
export function takeUnplaceable(
  groups: Group[],
  offerings: readonly Offering[],
  catalog: readonly InstanceTypeSpec[],
  nodes: readonly ScoringNode[],
  constraints: SimulateConstraints | undefined,
): SimulateResult['unschedulable'] {
  const out: { pod: string; count: number; reason: UnschedulableReason }[] = [];
  let unpriced: Offering[] | undefined;
  for (const g of groups) {
    if (g.remaining <= 0 || offerings.some((o) => compatible(g, o))) continue;
    // Would it fit with every price known? Then the reason is the missing price, not the catalog.
    unpriced ??= offeringsFor(catalog, allPricesKnown(catalog, nodes, constraints), nodes, constraints);
    const reason: UnschedulableReason = unpriced.some((o) => compatible(g, o)) ? 'no_priced_offering' : 'no_instance_type_fits';
    out.push({ pod: g.name, count: g.remaining, reason });
    g.remaining = 0;
  }
  return out;
}

function allPricesKnown(catalog: readonly InstanceTypeSpec[], nodes: readonly ScoringNode[], c: SimulateConstraints | undefined): PriceTable {
  const zones = zonesFor(new Map(), nodes, c ?? {});
  const m = new Map<string, { spotUsdPerHour: number; onDemandUsdPerHour: number }>();
  for (const s of catalog) for (const z of zones) m.set(poolKey({ instanceType: s.name, zone: z }), { spotUsdPerHour: 1, onDemandUsdPerHour: 1 });
  return m;
}
