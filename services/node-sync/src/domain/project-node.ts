import type { V1Node } from '@kubernetes/client-node';
import { DRAIN_OPERATION_ANNOTATION } from '@nodes-manager/contracts';
import type { PodRow } from './project-pod.js';
import { addResources, resourceAmounts, ZERO_RESOURCES, type ResourceAmounts } from './resources.js';
import { parseCount } from './quantity.js';

/**
 * NodeState — one word for a node, first match wins: `Deleted` (deletionTimestamp set; the service also marks
 * nodes gone from the API), `Draining` (our drain annotation `nodes-manager/drain-operation`, or Karpenter's
 * `karpenter.sh/disrupted` / cluster-autoscaler's `ToBeDeletedByClusterAutoscaler` taint: someone is emptying
 * it), `NotReady`, `Cordoned`, `Ready`.
 */
export type NodeState = 'Ready' | 'NotReady' | 'Cordoned' | 'Draining' | 'Deleted';
export type CapacityType = 'spot' | 'on-demand';

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
export interface NodeResources extends ResourceAmounts {
  readonly pods: number;
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
  readonly capacityType: CapacityType | null;
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

const PROVIDER_ID = /^aws:\/\/\/[^/]*\/(i-[0-9a-f]+)$/;

/** instanceIdOf — the EC2 instance id of `aws:///us-east-1a/i-0abc…`; null for anything else (Fargate…). */
export function instanceIdOf(providerId: string | undefined): string | null {
  return (providerId && PROVIDER_ID.exec(providerId)?.[1]) || null;
}

/** capacityTypeOf — Karpenter's `spot|on-demand|reserved` or EKS's `SPOT|ON_DEMAND|CAPACITY_BLOCK`, normalised. */
export function capacityTypeOf(labels: Readonly<Record<string, string>>): CapacityType | null {
  const raw = (labels['karpenter.sh/capacity-type'] ?? labels['eks.amazonaws.com/capacityType'])?.toLowerCase();
  if (raw === 'spot') return 'spot';
  // Reserved capacity and capacity blocks are paid like On-Demand and not interrupted like Spot.
  if (raw === 'on-demand' || raw === 'on_demand' || raw === 'reserved' || raw === 'capacity_block') return 'on-demand';
  return null;
}

const iso = (d: Date | string | undefined | null): string | null =>
  d === undefined || d === null ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString();

function nodeResources(list: Record<string, string> | undefined): NodeResources {
  return { ...resourceAmounts(list), pods: list?.['pods'] ? (parseCount(list['pods']) ?? 0) : 0 };
}

const DRAINING_TAINTS = ['karpenter.sh/disrupted', 'ToBeDeletedByClusterAutoscaler'];

/** projectNode — a V1Node and its pods' aggregate reduced to a {@link NodeRow}. */
export function projectNode(node: V1Node, pods: NodePodsAggregate = EMPTY_PODS_AGGREGATE): NodeRow {
  const meta = node.metadata ?? {};
  const labels = { ...(meta.labels ?? {}) };
  const { ['kubectl.kubernetes.io/last-applied-configuration']: _applied, ...annotations } = meta.annotations ?? {};
  const taints = (node.spec?.taints ?? []).map((t) => ({ key: t.key, value: t.value ?? null, effect: t.effect }));
  const conditions = (node.status?.conditions ?? []).map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason ?? null,
    lastTransitionTime: iso(c.lastTransitionTime as Date | string | undefined),
  }));
  const ready = conditions.some((c) => c.type === 'Ready' && c.status === 'True');
  const unschedulable = node.spec?.unschedulable === true;
  const deletionTimestamp = iso(meta.deletionTimestamp as Date | string | undefined);
  const draining =
    DRAIN_OPERATION_ANNOTATION in annotations || taints.some((t) => DRAINING_TAINTS.includes(t.key));
  const state: NodeState = deletionTimestamp
    ? 'Deleted'
    : draining
      ? 'Draining'
      : !ready
        ? 'NotReady'
        : unschedulable
          ? 'Cordoned'
          : 'Ready';
  return {
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    providerId: node.spec?.providerID ?? null,
    instanceId: instanceIdOf(node.spec?.providerID),
    instanceType: labels['node.kubernetes.io/instance-type'] ?? labels['beta.kubernetes.io/instance-type'] ?? null,
    zone: labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? null,
    region: labels['topology.kubernetes.io/region'] ?? null,
    capacityType: capacityTypeOf(labels),
    nodePool: labels['karpenter.sh/nodepool'] ?? null,
    ready,
    unschedulable,
    state,
    taints,
    labels,
    annotations,
    conditions,
    capacity: nodeResources(node.status?.capacity),
    allocatable: nodeResources(node.status?.allocatable),
    requested: pods.requested,
    podCount: pods.podCount,
    createdAt: iso(meta.creationTimestamp as Date | string | undefined),
    deletionTimestamp,
  };
}
