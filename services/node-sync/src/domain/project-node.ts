import { DRAIN_OPERATION_ANNOTATION } from '@nodes-manager/contracts';
import { addResources, nodeFacts, ZERO_RESOURCES, type CapacityType, type NodeResources, type ResourceAmounts } from '@nodes-manager/kube';
import type { PodRow } from './project-pod.js';

/**
 * NodeState — one word for a node, first match wins: `Deleted` (deletionTimestamp set; the service also marks
 * nodes gone from the API), `Draining` (our drain annotation `nodes-manager/drain-operation`, or Karpenter's
 * `karpenter.sh/disrupted` / cluster-autoscaler's `ToBeDeletedByClusterAutoscaler` taint: someone is emptying
 * it), `NotReady`, `Cordoned`, `Ready`.
 */
export type NodeState = 'Ready' | 'NotReady' | 'Cordoned' | 'Draining' | 'Deleted';
export type { CapacityType, NodeResources, ResourceAmounts };

export interface NodeTaintRow {
  readonly key: string;
  readonly value: string | null;
  readonly effect: string;
}
export interface NodeConditionRow {
  readonly type: string;
  readonly status: string;
  readonly reason: string | null;
  /** ISO 8601. Heartbeat times are left out on purpose: they change every few seconds. */
  readonly lastTransitionTime: string | null;
}

/** NodeRow — the lean row of `nodes.nodes`. */
export interface NodeRow {
  readonly name: string;
  readonly uid: string;
  readonly providerId: string | null;
  /** `i-…` from `aws:///<zone>/i-…`. */
  readonly instanceId: string | null;
  readonly instanceType: string | null;
  readonly zone: string | null;
  readonly region: string | null;
  readonly capacityType: CapacityType;
  readonly nodePool: string | null;
  readonly ready: boolean;
  readonly unschedulable: boolean;
  readonly state: NodeState;
  readonly taints: readonly NodeTaintRow[];
  readonly labels: Readonly<Record<string, string>>;
  /** All annotations but kubectl's last-applied-configuration. */
  readonly annotations: Readonly<Record<string, string>>;
  readonly conditions: readonly NodeConditionRow[];
  readonly capacity: NodeResources;
  readonly allocatable: NodeResources;
  /** Σ effective requests of the pods bound to it and not finished. */
  readonly requested: ResourceAmounts;
  readonly podCount: number;
  readonly createdAt: string | null;
  readonly deletionTimestamp: string | null;
}

/** NodePodsAggregate — what a node's pods add up to. */
export interface NodePodsAggregate {
  readonly requested: ResourceAmounts;
  readonly podCount: number;
}

export const EMPTY_PODS_AGGREGATE: NodePodsAggregate = { requested: ZERO_RESOURCES, podCount: 0 };

/** aggregatePods — Σ requests and count of the pods that hold resources (not Succeeded/Failed). */
export function aggregatePods(pods: Iterable<PodRow>): NodePodsAggregate {
  let requested = ZERO_RESOURCES;
  let podCount = 0;
  for (const pod of pods) {
    if (pod.phase === 'Succeeded' || pod.phase === 'Failed') continue;
    requested = addResources(requested, pod.requests);
    podCount += 1;
  }
  return { requested, podCount };
}

const DRAINING_TAINTS = ['karpenter.sh/disrupted', 'ToBeDeletedByClusterAutoscaler'];

/** projectNode — a Node (client object or raw JSON) and its pods' aggregate reduced to a {@link NodeRow}. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function projectNode(node: any, pods: NodePodsAggregate = EMPTY_PODS_AGGREGATE): NodeRow {
  const f = nodeFacts(node);
  const { ['kubectl.kubernetes.io/last-applied-configuration']: _applied, ...annotations } = f.annotations;
  const taints = f.taints.map((t) => ({ key: t.key, value: t.value ?? null, effect: t.effect }));
  const conditions = f.conditions.map((c) => ({ type: c.type, status: c.status, reason: c.reason ?? null, lastTransitionTime: c.lastTransitionTime ?? null }));
  const deletionTimestamp = f.deletionTimestamp ?? null;
  const draining = DRAIN_OPERATION_ANNOTATION in annotations || taints.some((t) => DRAINING_TAINTS.includes(t.key));
  const state: NodeState = deletionTimestamp
    ? 'Deleted'
    : draining
      ? 'Draining'
      : !f.ready
        ? 'NotReady'
        : f.unschedulable
          ? 'Cordoned'
          : 'Ready';
  return {
    name: f.name,
    uid: f.uid,
    providerId: f.providerId ?? null,
    instanceId: f.instanceId ?? null,
    instanceType: f.instanceType ?? null,
    zone: f.zone ?? null,
    region: f.region ?? null,
    capacityType: f.capacityType,
    nodePool: f.labels['karpenter.sh/nodepool'] ?? null,
    ready: f.ready,
    unschedulable: f.unschedulable,
    state,
    taints,
    labels: f.labels,
    annotations,
    conditions,
    capacity: f.capacity,
    allocatable: f.allocatable,
    requested: pods.requested,
    podCount: pods.podCount,
    createdAt: f.createdAt ?? null,
    deletionTimestamp,
  };
}
