// The data of a simulation: what callers pass and get back (re-exported by ./index.ts), and the internal
// working form of a pod group shared by the packers (not re-exported).
import type { InstanceTypeSpec } from '@nodes-manager/contracts';
import type { CapacityType, PriceTable, ResourceRequests, ScoringNode, Toleration, WorkloadClass } from '../types.js';

/** SimulatePodGroup — `count` identical pods. `zone` pins them to one zone; `class` defaults from the requests. */
export interface SimulatePodGroup {
  readonly name?: string;
  readonly requests: ResourceRequests;
  readonly count: number;
  readonly class?: WorkloadClass;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Toleration[];
  readonly zone?: string;
}

export interface SimulateConstraints {
  /** Zones new nodes may go to; default: the zones of the existing nodes, else of the price table. */
  readonly zones?: readonly string[];
  /** Instance types new nodes may be; default the whole catalog. */
  readonly instanceTypes?: readonly string[];
  /** Allow Spot for new nodes at all (default true). */
  readonly allowSpot?: boolean;
  /** Classes kept off Spot; default stateful and latency_sensitive. */
  readonly spotAverseClasses?: readonly WorkloadClass[];
}

export interface SimulateInput {
  readonly pods: readonly SimulatePodGroup[];
  readonly nodes: readonly ScoringNode[];
  readonly catalog: readonly InstanceTypeSpec[];
  readonly prices: PriceTable;
  readonly constraints?: SimulateConstraints;
}

export interface NodeAddition {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly count: number;
  readonly unitUsdPerHour: number;
  /** count × unit price. */
  readonly hourlyUsd: number;
}

/** Why pods could not be placed: no type in the catalog can hold one (given its constraints), or the types
 * that could have no known price here. */
export type UnschedulableReason = 'no_instance_type_fits' | 'no_priced_offering';

/** UNSCHEDULABLE_WORDS — why pods can go nowhere, as a person reads it. */
export const UNSCHEDULABLE_WORDS: Readonly<Record<UnschedulableReason, string>> = {
  no_instance_type_fits: 'no instance type is big enough',
  no_priced_offering: 'only instance types without a known price would fit',
};

export interface SimulateResult {
  readonly placedOnExisting: readonly { readonly node: string; readonly pod: string; readonly count: number }[];
  readonly placedOnExistingCount: number;
  readonly additions: readonly NodeAddition[];
  /** Hourly cost of the additions. */
  readonly hourlyCostUsd: number;
  readonly unschedulable: readonly { readonly pod: string; readonly count: number; readonly reason: UnschedulableReason }[];
  /** Which packer produced the additions (the cheaper of the two, see {@link simulatePlacement}). */
  readonly algorithm: 'configuration-lp' | 'dual-greedy' | 'first-fit-decreasing';
}

/** A place a new node can be bought: type × zone × capacity type, with its price and allocatable. */
export interface Offering {
  readonly spec: InstanceTypeSpec;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly usdPerHour: number;
  /** Allocatable as [cpuMilli, memoryBytes, gpu, pods]. */
  readonly alloc: readonly number[];
  readonly labels: Readonly<Record<string, string>>;
}

export const DIMS = 4;
export const MiB = 1024 * 1024;

// Units for the LP (keeps its numbers near 1): cores, GiB, GPUs, pods.
export const UNIT = [1000, 1024 * MiB, 1, 1];

export interface Group {
  readonly name: string;
  readonly req: readonly number[];
  readonly averse: boolean;
  readonly src: SimulatePodGroup;
  remaining: number;
}

export type ExistingPlacement = { node: string; pod: string; count: number };
