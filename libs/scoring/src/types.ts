/**
 * Lean input types for the scoring library. Adapters map Kubernetes objects onto these; the library never
 * sees a Kubernetes client type, so it stays pure and cheap to build in tests.
 */

/** ResourceRequests — what a pod asks for. `gpu` is the sum of `nvidia.com/gpu`, `amd.com/gpu` and
 * `aws.amazon.com/neuron` (see {@link GPU_RESOURCE_NAMES}); `pods` defaults to 1. */
export interface ResourceRequests {
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly gpu: number;
  readonly pods?: number;
}

/** NodeResources — a node's allocatable or already-requested amounts. */
export interface NodeResources {
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly gpu: number;
  readonly pods: number;
}

export { GPU_RESOURCE_NAMES } from '@nodes-manager/kube';
import type { CapacityType, QosClass, Taint, Toleration } from '@nodes-manager/kube';
import type { ExpectedCost, MeasuredInterruptions } from './expected-cost.js';
export type { CapacityType, QosClass, Taint, TaintEffect, Toleration } from '@nodes-manager/kube';

export type WorkloadClass = 'gpu' | 'stateful' | 'batch' | 'latency_sensitive' | 'stateless';
export const WORKLOAD_CLASSES: readonly WorkloadClass[] = ['gpu', 'stateful', 'batch', 'latency_sensitive', 'stateless'];


export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values?: readonly string[];
}

/**
 * NodeSelectorTerm — its expressions and fields are ANDed; a pod's terms are ORed (as in
 * `requiredDuringScheduling…`). `matchFields` are requirements on node fields; the only field Kubernetes
 * supports is `metadata.name` (with In/NotIn). A term with neither matches no node.
 */
export interface NodeSelectorTerm {
  readonly matchExpressions: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

/** The one node field a `matchFields` requirement may name. */
export const FIELD_NODE_NAME = 'metadata.name';

export type OwnerKind = 'ReplicaSet' | 'Deployment' | 'StatefulSet' | 'Job' | 'CronJob' | 'DaemonSet' | 'Node';

export interface ScoringPod {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly nodeName?: string;
  readonly phase?: string;
  readonly requests: ResourceRequests;
  readonly limits?: Partial<ResourceRequests>;
  /** Kind of the controlling owner; absent means the pod has no controller. `Node` marks a mirror pod. */
  readonly ownerKind?: OwnerKind | (string & {});
  readonly ownerName?: string;
  /** Workload name used for zone spread and peers, e.g. the Deployment's name. Falls back to ownerName. */
  readonly workload?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly requiredNodeAffinity?: readonly NodeSelectorTerm[];
  readonly tolerations: readonly Toleration[];
  /** True when the pod mounts a PersistentVolumeClaim (bound or not). */
  readonly hasPvc?: boolean;
  /** Zones of the bound PersistentVolumes; the pod can only run where all of them are reachable. */
  readonly pvcZones?: readonly string[];
  /** emptyDir or hostPath data that would be lost on eviction. */
  readonly hasLocalStorage?: boolean;
  readonly mirror?: boolean;
  /** When absent, derived from requests and limits (see `podQos`). */
  readonly qos?: QosClass;
}

export interface ScoringNode {
  readonly name: string;
  readonly zone: string;
  readonly instanceType: string;
  readonly capacityType: CapacityType;
  readonly nodePool?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly unschedulable: boolean;
  readonly ready: boolean;
  readonly allocatable: NodeResources;
  readonly requested: NodeResources;
  /** What this node costs, when known better than the price table (e.g. the launch price). */
  readonly priceUsdPerHour?: number;
  readonly annotations?: Readonly<Record<string, string>>;
}

export type InterruptionBucket = '<5%' | '5-10%' | '10-15%' | '15-20%' | '>20%';

/** PriceInfo — prices for one (instance type, zone); any part may be missing. */
export interface PriceInfo {
  readonly spotUsdPerHour?: number;
  readonly onDemandUsdPerHour?: number;
  readonly interruptionBucket?: InterruptionBucket;
  /** What this cluster measured of the pool's interruptions (rebalance ledger), when anything. */
  readonly measured?: MeasuredInterruptions;
  /** The Spot price plus the expected cost of interruptions (`withExpectedCosts`); judged on where `basis` is measured. */
  readonly expected?: ExpectedCost;
}

/** PriceTable — PriceInfo keyed by pool (libs/contracts `poolKey`: `instanceType/zone`). */
export type PriceTable = ReadonlyMap<string, PriceInfo>;

/** Well-known labels the library reads or synthesises on projected nodes. */
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const LABEL_CAPACITY_TYPE = 'karpenter.sh/capacity-type';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const ANNOTATION_DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
export const ANNOTATION_SAFE_TO_EVICT = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
