import { isoTime } from './node.js';
import { milliValue, value } from './quantity.js';
import { effectiveResources, type ResourceAmounts } from './resources.js';
import { tolerationOf, type Toleration } from './taints.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Raw = any;

export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
export const DO_NOT_DISRUPT_ANNOTATION = 'karpenter.sh/do-not-disrupt';
export const SAFE_TO_EVICT_ANNOTATION = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** OwnerKind — the controllers whose pods the services tell apart; `Node` owns a mirror (static) pod. */
export type OwnerKind = 'ReplicaSet' | 'Deployment' | 'StatefulSet' | 'Job' | 'CronJob' | 'DaemonSet' | 'Node';

export interface OwnerRef {
  readonly kind: string;
  readonly name: string;
}

/** controllerOf — the ownerReference with `controller: true`, if any. */
export function controllerOf(obj: Raw): OwnerRef | undefined {
  for (const o of obj?.metadata?.ownerReferences ?? []) {
    if (o?.controller === true && typeof o.kind === 'string') return { kind: o.kind, name: String(o.name ?? '') };
  }
  return undefined;
}

/**
 * workloadOf — the owner one level up where the name proves it: a ReplicaSet `<deployment>-<pod-template-hash>` is
 * its Deployment's; otherwise the controller itself.
 */
export function workloadOf(owner: OwnerRef | undefined, labels: Readonly<Record<string, string>>): OwnerRef | undefined {
  if (!owner) return undefined;
  const hash = labels[POD_TEMPLATE_HASH_LABEL];
  if (owner.kind === 'ReplicaSet' && hash && owner.name.endsWith(`-${hash}`)) {
    return { kind: 'Deployment', name: owner.name.slice(0, -hash.length - 1) };
  }
  return owner;
}

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';
const QOS: readonly QosClass[] = ['Guaranteed', 'Burstable', 'BestEffort'];

/** podQos — `status.qosClass` when the API server set it, else the Kubernetes rule on cpu and memory. */
export function podQos(pod: Raw): QosClass {
  const declared = pod?.status?.qosClass;
  if (QOS.includes(declared)) return declared;
  const containers: Raw[] = [...(pod?.spec?.initContainers ?? []), ...(pod?.spec?.containers ?? [])];
  const keys = ['cpu', 'memory'] as const;
  const any = containers.some((c) => keys.some((k) => c?.resources?.requests?.[k] !== undefined || c?.resources?.limits?.[k] !== undefined));
  if (!any) return 'BestEffort';
  const amount = (k: 'cpu' | 'memory', q: string): number | undefined => (k === 'cpu' ? milliValue(q) : value(q));
  // Guaranteed: every container limits cpu and memory, and its requests (defaulted to the limits) equal them.
  const guaranteed = containers.every((c) =>
    keys.every((k) => {
      const limit = c?.resources?.limits?.[k];
      const req = c?.resources?.requests?.[k] ?? limit;
      return limit !== undefined && req !== undefined && amount(k, req) === amount(k, limit);
    }),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** claimNamesOf — the PersistentVolumeClaims a pod mounts: claim volumes by name, generic ephemeral ones as `<pod>-<volume>`. */
export function claimNamesOf(pod: Raw): string[] {
  const out: string[] = [];
  for (const v of pod?.spec?.volumes ?? []) {
    if (v?.persistentVolumeClaim?.claimName) out.push(String(v.persistentVolumeClaim.claimName));
    else if (v?.ephemeral && v?.name) out.push(`${pod?.metadata?.name ?? ''}-${v.name}`);
  }
  return out;
}

/** PodFacts — what every service reads from a Pod, in one projection. */
export interface PodFacts {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly nodeName?: string;
  readonly phase?: string;
  readonly owner?: OwnerRef;
  readonly workload?: OwnerRef;
  /** Effective requests as kube-scheduler counts them ({@link effectiveResources}). */
  readonly requests: ResourceAmounts;
  readonly limits: ResourceAmounts;
  readonly qos: QosClass;
  /** `status.qosClass` as the API server set it, when it did. */
  readonly declaredQos?: QosClass;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly tolerations: readonly Toleration[];
  /** Mounts a PersistentVolumeClaim or a generic ephemeral volume. */
  readonly hasPvc: boolean;
  readonly hasEmptyDir: boolean;
  readonly hasHostPath: boolean;
  /** A static pod's mirror: the config.mirror annotation, or owned by its Node. */
  readonly mirror: boolean;
  readonly daemonset: boolean;
  readonly terminating: boolean;
  readonly deletionTimestamp?: string;
  readonly priority?: number;
  readonly createdAt?: string;
}

/** podFacts — a Pod (client object or raw JSON) reduced to its {@link PodFacts}. */
export function podFacts(pod: Raw): PodFacts {
  const meta = pod?.metadata ?? {};
  const spec = pod?.spec ?? {};
  const labels: Record<string, string> = { ...(meta.labels ?? {}) };
  const annotations: Record<string, string> = { ...(meta.annotations ?? {}) };
  const owner = controllerOf(pod);
  const workload = workloadOf(owner, labels);
  const volumes: Raw[] = spec.volumes ?? [];
  const declared = pod?.status?.qosClass;
  const deletionTimestamp = isoTime(meta.deletionTimestamp);
  const createdAt = isoTime(meta.creationTimestamp);
  return {
    uid: String(meta.uid ?? `${meta.namespace ?? 'default'}/${meta.name ?? ''}`),
    namespace: String(meta.namespace ?? 'default'),
    name: String(meta.name ?? ''),
    ...(spec.nodeName ? { nodeName: String(spec.nodeName) } : {}),
    ...(pod?.status?.phase ? { phase: String(pod.status.phase) } : {}),
    ...(owner ? { owner } : {}),
    ...(workload ? { workload } : {}),
    requests: effectiveResources(spec, 'requests'),
    limits: effectiveResources(spec, 'limits'),
    qos: podQos(pod),
    ...(QOS.includes(declared) ? { declaredQos: declared as QosClass } : {}),
    labels,
    annotations,
    tolerations: (spec.tolerations ?? []).map(tolerationOf),
    hasPvc: volumes.some((v) => v?.persistentVolumeClaim || v?.ephemeral),
    hasEmptyDir: volumes.some((v) => v?.emptyDir),
    hasHostPath: volumes.some((v) => v?.hostPath),
    mirror: annotations[MIRROR_ANNOTATION] !== undefined || owner?.kind === 'Node',
    daemonset: owner?.kind === 'DaemonSet',
    terminating: deletionTimestamp !== undefined,
    ...(deletionTimestamp ? { deletionTimestamp } : {}),
    ...(typeof spec.priority === 'number' ? { priority: spec.priority } : {}),
    ...(createdAt ? { createdAt } : {}),
  };
}
