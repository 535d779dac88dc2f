import { nodeResources, type NodeResources } from './resources.js';
import { taintOf, type Taint } from './taints.js';
import type { CapacityType } from '@nodes-manager/contracts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Raw = any;

export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_INSTANCE_TYPE = 'node.kubernetes.io/instance-type';
export const LABEL_CAPACITY_TYPE = 'karpenter.sh/capacity-type';
export const LABEL_EKS_CAPACITY_TYPE = 'eks.amazonaws.com/capacityType';
export const LABEL_NODEPOOL = 'karpenter.sh/nodepool';
export const LABEL_EKS_NODEGROUP = 'eks.amazonaws.com/nodegroup';
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_ARCH = 'kubernetes.io/arch';
const LEGACY_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const LEGACY_REGION = 'failure-domain.beta.kubernetes.io/region';
const LEGACY_INSTANCE_TYPE = 'beta.kubernetes.io/instance-type';

export type Labels = Readonly<Record<string, string>>;

const first = (labels: Labels, keys: readonly string[]): string | undefined => {
  for (const k of keys) if (labels[k]) return labels[k];
  return undefined;
};

/** The label keys a node's zone may be read from, the current one first. */
export const ZONE_LABELS: readonly string[] = [LABEL_ZONE, LEGACY_ZONE];

/** zoneOf — `topology.kubernetes.io/zone`, else the legacy failure-domain label. */
export const zoneOf = (labels: Labels): string | undefined => first(labels, ZONE_LABELS);
/** regionOf — `topology.kubernetes.io/region`, else the legacy failure-domain label. */
export const regionOf = (labels: Labels): string | undefined => first(labels, [LABEL_REGION, LEGACY_REGION]);
/** instanceTypeOf — `node.kubernetes.io/instance-type`, else the beta label. */
export const instanceTypeOf = (labels: Labels): string | undefined => first(labels, [LABEL_INSTANCE_TYPE, LEGACY_INSTANCE_TYPE]);
/** nodePoolOf — Karpenter's NodePool, else the EKS managed node group. */
export const nodePoolOf = (labels: Labels): string | undefined => first(labels, [LABEL_NODEPOOL, LABEL_EKS_NODEGROUP]);

/** CapacityType — libs/contracts `CAPACITY_TYPES`: the one list of capacity types. */
export type { CapacityType };

/**
 * capacityTypeOf — Karpenter's `spot|on-demand|reserved` or EKS's `SPOT|ON_DEMAND|CAPACITY_BLOCK`, normalised.
 * Everything that is not Spot is `on-demand`, including a node with neither label: reserved capacity and capacity
 * blocks are paid like On-Demand and are not interrupted like Spot, and EC2 launches On-Demand unless asked for Spot
 * (every Spot node Karpenter or a managed node group makes carries the label). One fallback, for every service.
 */
export function capacityTypeOf(labels: Labels): CapacityType {
  const raw = (labels[LABEL_CAPACITY_TYPE] ?? labels[LABEL_EKS_CAPACITY_TYPE])?.toLowerCase();
  return raw === 'spot' ? 'spot' : 'on-demand';
}

/** ProviderId — what an AWS providerID names. */
export interface ProviderId {
  readonly instanceId: string;
  readonly zone?: string;
}

const AWS_PROVIDER_ID = /^aws:\/\/\/([^/]*)\/(i-[0-9a-f]+)$/;

/** parseProviderId — `aws:///us-east-1a/i-0abc…` → the instance id and zone; undefined for anything else (Fargate, other clouds). */
export function parseProviderId(providerId: string | null | undefined): ProviderId | undefined {
  const m = providerId ? AWS_PROVIDER_ID.exec(providerId) : null;
  if (!m) return undefined;
  return { instanceId: m[2]!, ...(m[1] ? { zone: m[1] } : {}) };
}

/** ConditionStatus — a condition's status; anything but True/False reads as Unknown. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** Condition — one `status.conditions` entry; times are ISO 8601 (heartbeats left out: they change every few seconds). */
export interface Condition {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason?: string;
  readonly lastTransitionTime?: string;
}

/**
 * apiTime — an API time as a `Date`: the client deserialises times into `Date`s, a raw JSON read (a watch event, the
 * informer's cache) leaves RFC 3339 strings; both are accepted. Undefined when absent or not a time. Every reader of
 * an object's times goes through it.
 */
export function apiTime(t: unknown): Date | undefined {
  const d = t instanceof Date ? t : typeof t === 'string' && t !== '' ? new Date(t) : undefined;
  return d && !Number.isNaN(d.getTime()) ? d : undefined;
}

/** isoTime — an API time (see {@link apiTime}) as ISO 8601. */
export const isoTime = (t: unknown): string | undefined => apiTime(t)?.toISOString();

const statusOf = (s: unknown): ConditionStatus => (s === 'True' || s === 'False' ? s : 'Unknown');

/** conditionsOf — an object's `status.conditions`, normalised. */
export function conditionsOf(obj: Raw): Condition[] {
  const out: Condition[] = [];
  for (const c of obj?.status?.conditions ?? []) {
    if (typeof c?.type !== 'string') continue;
    const at = isoTime(c.lastTransitionTime);
    out.push({ type: c.type, status: statusOf(c.status), ...(c.reason ? { reason: String(c.reason) } : {}), ...(at ? { lastTransitionTime: at } : {}) });
  }
  return out;
}

/** conditionOf — the condition of that type, if the object has one. */
export const conditionOf = (obj: Raw, type: string): Condition | undefined => conditionsOf(obj).find((c) => c.type === type);

/** NodeReadiness — a node's Ready condition: its status, and since when it has held. */
export interface NodeReadiness {
  readonly status: ConditionStatus;
  readonly lastTransitionTime?: Date;
}

/**
 * readinessOf — the node's Ready condition (the first one, as the API server keeps one), or undefined when it has
 * none (a node the kubelet has just registered). The one reading of Ready: the projection, auto-uncordon and fencing
 * all take it from here.
 */
export function readinessOf(node: Raw): NodeReadiness | undefined {
  for (const c of node?.status?.conditions ?? []) {
    if (c?.type !== 'Ready') continue;
    const since = apiTime(c.lastTransitionTime);
    return { status: statusOf(c.status), ...(since ? { lastTransitionTime: since } : {}) };
  }
  return undefined;
}

/** isNodeReady — the node's Ready condition is True (a node without one is not ready). */
export const isNodeReady = (node: Raw): boolean => readinessOf(node)?.status === 'True';

/** NodeFacts — what every service reads from a Node, in one projection. */
export interface NodeFacts {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion?: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly providerId?: string;
  readonly instanceId?: string;
  readonly zone?: string;
  readonly region?: string;
  readonly instanceType?: string;
  readonly capacityType: CapacityType;
  readonly nodePool?: string;
  readonly unschedulable: boolean;
  readonly ready: boolean;
  /** Taints with a key and a known effect; anything else is dropped. */
  readonly taints: readonly Taint[];
  readonly conditions: readonly Condition[];
  readonly capacity: NodeResources;
  /** `status.allocatable`, else `status.capacity` (a kubelet that has not reported allocatable yet). */
  readonly allocatable: NodeResources;
  readonly createdAt?: string;
  readonly deletionTimestamp?: string;
}

/** nodeFacts — a Node (client object or raw JSON) reduced to its {@link NodeFacts}. */
export function nodeFacts(node: Raw): NodeFacts {
  const meta = node?.metadata ?? {};
  const labels: Record<string, string> = { ...(meta.labels ?? {}) };
  const providerId: string | undefined = node?.spec?.providerID || undefined;
  const parsed = parseProviderId(providerId);
  const zone = zoneOf(labels) ?? parsed?.zone;
  const region = regionOf(labels);
  const instanceType = instanceTypeOf(labels);
  const nodePool = nodePoolOf(labels);
  const createdAt = isoTime(meta.creationTimestamp);
  const deletionTimestamp = isoTime(meta.deletionTimestamp);
  const taints: Taint[] = [];
  for (const t of node?.spec?.taints ?? []) {
    const taint = taintOf(t);
    if (taint) taints.push(taint);
  }
  return {
    name: String(meta.name ?? ''),
    uid: String(meta.uid ?? ''),
    ...(meta.resourceVersion ? { resourceVersion: String(meta.resourceVersion) } : {}),
    labels,
    annotations: { ...(meta.annotations ?? {}) },
    ...(providerId ? { providerId } : {}),
    ...(parsed ? { instanceId: parsed.instanceId } : {}),
    ...(zone ? { zone } : {}),
    ...(region ? { region } : {}),
    ...(instanceType ? { instanceType } : {}),
    capacityType: capacityTypeOf(labels),
    ...(nodePool ? { nodePool } : {}),
    unschedulable: node?.spec?.unschedulable === true,
    ready: isNodeReady(node),
    taints,
    conditions: conditionsOf(node),
    capacity: nodeResources(node?.status?.capacity),
    allocatable: nodeResources(node?.status?.allocatable ?? node?.status?.capacity),
    ...(createdAt ? { createdAt } : {}),
    ...(deletionTimestamp ? { deletionTimestamp } : {}),
  };
}
