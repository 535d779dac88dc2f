import { INSTANCE_TYPES, instanceType, type InstanceTypeSpec } from '@nodes-manager/contracts';
import { effectiveResources, nodeResources, taintOf, tolerates, tolerationOf, type ResourceAmounts } from '@nodes-manager/kube';
import { allocatableOf } from '../fleet/generate-fleet.js';
import { k8sTime } from '../kube/api/index.js';
import type { KubeObject } from '../kube/resources.js';
import type { Offering } from './offerings.js';
import { Requirements, WELL_KNOWN_LABELS, type NodeSelectorRequirement } from './requirements.js';

/**
 * The objects the simulator's Karpenter writes (NodeClaims, Nodes, Events) and what it reads of pods, kept apart from
 * the controller's passes (sim-karpenter.ts). See docs/karpenter-simulator.md.
 */

export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
export const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
export const TERMINATION_FINALIZER = 'karpenter.sh/termination';

/** Condition — a Karpenter status condition (operatorpkg's shape). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export function conditionOf(obj: KubeObject, type: string): Condition | undefined {
  return ((obj.status?.conditions ?? []) as Condition[]).find((c) => c.type === type);
}

export const isTrue = (obj: KubeObject, type: string): boolean => conditionOf(obj, type)?.status === 'True';

/** withCondition — the conditions with `type` set; its transition time kept when the status does not change. */
export function withCondition(obj: KubeObject, type: string, status: Condition['status'], reason: string, message: string, now: Date): Condition[] {
  const list = ((obj.status?.conditions ?? []) as Condition[]).filter((c) => c.type !== type);
  const old = conditionOf(obj, type);
  const lastTransitionTime = old && old.status === status ? old.lastTransitionTime : k8sTime(now);
  return [...list, { type, status, reason, message, lastTransitionTime }];
}

export function withoutCondition(obj: KubeObject, type: string): Condition[] {
  return ((obj.status?.conditions ?? []) as Condition[]).filter((c) => c.type !== type);
}

/** poolRequirements — a NodePool's requirements, plus its template labels as `In [value]` (as Karpenter reads them). */
export function poolRequirements(pool: KubeObject): NodeSelectorRequirement[] {
  const labels = (pool.spec?.template?.metadata?.labels ?? {}) as Record<string, string>;
  return [
    ...((pool.spec?.template?.spec?.requirements ?? []) as NodeSelectorRequirement[]),
    ...Object.entries(labels).map(([key, v]) => ({ key, operator: 'In' as const, values: [v] })),
  ];
}

/** typeLabels — the labels a node of this type carries besides type, zone and capacity type. */
export function typeLabels(t: InstanceTypeSpec): Record<string, string> {
  return {
    'kubernetes.io/arch': t.arch,
    'kubernetes.io/os': 'linux',
    'karpenter.k8s.aws/instance-family': t.family,
    'karpenter.k8s.aws/instance-cpu': String(t.vcpu),
    'karpenter.k8s.aws/instance-memory': String(t.memoryMiB),
  };
}

/** fits — whether `need` (requests and pod count) fits in the type's allocatable. */
export function typeFits(t: InstanceTypeSpec, need: Need): boolean {
  const a = allocatableOf(t);
  return need.cpuMilli <= a.cpuMillis && need.memoryBytes <= a.memoryMiB * 1024 * 1024 && need.pods <= a.pods && need.gpu <= t.gpu;
}

export interface Need extends ResourceAmounts {
  readonly pods: number;
}

export const NO_NEED: Need = { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 };

export function podNeed(pods: readonly KubeObject[]): Need {
  let n = { ...NO_NEED };
  for (const p of pods) {
    const r = effectiveResources(p.spec);
    n = { cpuMilli: n.cpuMilli + r.cpuMilli, memoryBytes: n.memoryBytes + r.memoryBytes, gpu: n.gpu + r.gpu, pods: n.pods + 1 };
  }
  return n;
}

/** nodeRoom — what is left on a node after the pods bound to it. */
export function nodeRoom(node: KubeObject, podsOnNode: readonly KubeObject[]): Need {
  const a = nodeResources(node.status?.allocatable);
  const used = podNeed(podsOnNode);
  return { cpuMilli: a.cpuMilli - used.cpuMilli, memoryBytes: a.memoryBytes - used.memoryBytes, gpu: a.gpu - used.gpu, pods: a.pods - used.pods };
}

export const fitsIn = (need: Need, room: Need): boolean => need.cpuMilli <= room.cpuMilli && need.memoryBytes <= room.memoryBytes && need.gpu <= room.gpu && need.pods <= room.pods;

/** podRequirements — a pod's nodeSelector and the first of its required node-affinity terms, as requirements. */
export function podRequirements(pod: KubeObject): Requirements {
  const selector = Object.entries((pod.spec?.nodeSelector ?? {}) as Record<string, string>).map(([key, v]) => ({ key, operator: 'In' as const, values: [v] }));
  const term = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0];
  return Requirements.fromNodeSelector([...selector, ...((term?.matchExpressions ?? []) as NodeSelectorRequirement[])]);
}

/** poolAdmits — the NodePool's requirements can satisfy the pod's (undefined well-known labels allowed) and its taints are tolerated. */
export function poolAdmits(pool: KubeObject, pod: KubeObject): boolean {
  if (Requirements.fromNodeSelector(poolRequirements(pool)).incompatibility(podRequirements(pod), WELL_KNOWN_LABELS) !== undefined) return false;
  return toleratesAll(pod, (pool.spec?.template?.spec?.taints ?? []) as KubeObject[]);
}

/** nodeAdmits — kube-scheduler's filters the simulator applies: labels, NoSchedule/NoExecute taints, cordon. */
export function nodeAdmits(node: KubeObject, pod: KubeObject): boolean {
  if (node.spec?.unschedulable || node.metadata.deletionTimestamp) return false;
  if (Requirements.fromLabels((node.metadata.labels ?? {}) as Record<string, string>).incompatibility(podRequirements(pod)) !== undefined) return false;
  return toleratesAll(pod, ((node.spec?.taints ?? []) as KubeObject[]).filter((t) => t.effect !== 'PreferNoSchedule'));
}

function toleratesAll(pod: KubeObject, taints: readonly KubeObject[]): boolean {
  const tolerations = ((pod.spec?.tolerations ?? []) as unknown[]).map(tolerationOf);
  return taints.every((raw) => {
    const taint = taintOf(raw);
    return !taint || tolerations.some((t) => tolerates(t, taint));
  });
}

/** Pods Karpenter moves: bound, not terminal, not DaemonSet or mirror pods. */
export function reschedulable(pod: KubeObject): boolean {
  const owner = ((pod.metadata.ownerReferences ?? []) as KubeObject[]).find((o) => o.controller);
  if (owner?.kind === 'DaemonSet' || owner?.kind === 'Node' || pod.metadata.annotations?.['kubernetes.io/config.mirror']) return false;
  return pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
}

/** offeringsFor — every offering of the catalogue the requirements name (by type and zone first, so prices are asked only for those). */
export function offeringsFor(
  requirements: readonly NodeSelectorRequirement[],
  zones: readonly string[],
  need: Need,
  price: (type: string, zone: string) => number,
  capacity: (type: string, zone: string) => number,
): Offering[] {
  const reqs = Requirements.fromNodeSelector(requirements);
  const out: Offering[] = [];
  for (const t of INSTANCE_TYPES) {
    if (!reqs.allows('node.kubernetes.io/instance-type', t.name) || !typeFits(t, need)) continue;
    for (const zone of zones) {
      if (!reqs.allows('topology.kubernetes.io/zone', zone)) continue;
      if (reqs.allows('karpenter.sh/capacity-type', 'spot')) out.push({ instanceType: t.name, zone, capacityType: 'spot', price: price(t.name, zone), capacity: capacity(t.name, zone), labels: typeLabels(t) });
      if (reqs.allows('karpenter.sh/capacity-type', 'on-demand')) out.push({ instanceType: t.name, zone, capacityType: 'on-demand', price: t.onDemandUsdPerHour, labels: typeLabels(t) });
    }
  }
  return out;
}

/** nodeClaimObject — a NodeClaim as Karpenter creates it for a NodePool, before launch. */
export function nodeClaimObject(name: string, pool: KubeObject): KubeObject {
  const template = pool.spec?.template ?? {};
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels: { ...(template.metadata?.labels ?? {}), [NODEPOOL_LABEL]: pool.metadata.name },
      annotations: { ...(template.metadata?.annotations ?? {}) },
      ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: pool.metadata.name, uid: pool.metadata.uid, blockOwnerDeletion: true }],
      finalizers: [TERMINATION_FINALIZER],
    },
    spec: {
      nodeClassRef: template.spec?.nodeClassRef ?? { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: template.spec?.requirements ?? [],
      ...(template.spec?.taints ? { taints: template.spec.taints } : {}),
      expireAfter: template.spec?.expireAfter ?? '720h',
    },
  };
}

/** launchedLabels — the labels of a launched NodeClaim and of its Node: the offering's, the pool's template's. */
export function launchedLabels(claim: KubeObject, offering: Offering): Record<string, string> {
  const t = instanceType(offering.instanceType)!;
  return {
    ...(claim.metadata.labels ?? {}),
    ...typeLabels(t),
    'node.kubernetes.io/instance-type': t.name,
    'topology.kubernetes.io/zone': offering.zone,
    'topology.kubernetes.io/region': offering.zone.slice(0, -1),
    'karpenter.sh/capacity-type': offering.capacityType,
  };
}

/** nodeObject — the Node a launched NodeClaim registers as, Ready and initialized. */
export function nodeObject(claim: KubeObject, name: string, now: Date): KubeObject {
  const labels = claim.metadata.labels as Record<string, string>;
  const t = instanceType(labels['node.kubernetes.io/instance-type']!)!;
  const a = allocatableOf(t);
  const gpu: Record<string, string> = t.gpu > 0 ? { [t.gpuResource ?? 'nvidia.com/gpu']: String(t.gpu) } : {};
  const at = k8sTime(now);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { ...labels, 'kubernetes.io/hostname': name, 'karpenter.sh/registered': 'true', 'karpenter.sh/initialized': 'true' },
      annotations: { 'karpenter.sh/nodeclaim': claim.metadata.name },
    },
    spec: { providerID: claim.status.providerID, ...(claim.spec?.taints ? { taints: claim.spec.taints } : {}) },
    status: {
      capacity: { cpu: String(t.vcpu), memory: `${t.memoryMiB * 1024}Ki`, pods: String(t.maxPods), ...gpu },
      allocatable: { cpu: `${a.cpuMillis}m`, memory: `${a.memoryMiB * 1024}Ki`, pods: String(a.pods), ...gpu },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: at, lastTransitionTime: at }],
    },
  };
}

/** eventObject — a core/v1 Event Karpenter records (namespace `default`: both objects are cluster-scoped). */
export function eventObject(on: KubeObject, type: string, reason: string, message: string, now: Date): KubeObject {
  const at = k8sTime(now);
  return {
    metadata: { generateName: `${on.metadata.name}.`, namespace: 'default' },
    involvedObject: { apiVersion: on.apiVersion, kind: on.kind, name: on.metadata.name, uid: on.metadata.uid },
    reason, message, type,
    source: { component: 'karpenter' }, reportingComponent: 'karpenter',
    firstTimestamp: at, lastTimestamp: at, count: 1,
  };
}
