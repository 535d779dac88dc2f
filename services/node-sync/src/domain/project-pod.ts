import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { parseBytes, parseCpuMilli } from './quantity.js';
import { addResources, maxResources, resourceAmounts, ZERO_RESOURCES, type ResourceAmounts } from './resources.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

export const DO_NOT_DISRUPT_ANNOTATION = 'karpenter.sh/do-not-disrupt';
export const SAFE_TO_EVICT_ANNOTATION = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
/** The only pod annotations kept: the ones a decision reads. */
export const KEPT_POD_ANNOTATIONS = [DO_NOT_DISRUPT_ANNOTATION, SAFE_TO_EVICT_ANNOTATION, MIRROR_ANNOTATION] as const;

/** PodRow — the lean row of `nodes.pods`: what classification, scoring, consolidation and drain read. */
export interface PodRow {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly nodeName: string | null;
  readonly phase: string | null;
  /** The controller ownerReference. */
  readonly ownerKind: string | null;
  readonly ownerName: string | null;
  /** The owner one level up where the name proves it: a ReplicaSet `<deploy>-<pod-template-hash>` → Deployment. */
  readonly workloadKind: string | null;
  readonly workloadName: string | null;
  /** Effective requests as the scheduler counts them: max(Σ containers + sidecars, init peaks) + overhead. */
  readonly requests: ResourceAmounts;
  readonly qos: QosClass;
  readonly gpu: number;
  readonly hasPvc: boolean;
  /** emptyDir volumes: their data dies with the pod. */
  readonly hasLocalStorage: boolean;
  readonly mirror: boolean;
  readonly daemonset: boolean;
  readonly doNotDisrupt: boolean;
  /** `cluster-autoscaler.kubernetes.io/safe-to-evict`: true, false, or null when unset. */
  readonly safeToEvict: boolean | null;
  readonly terminating: boolean;
  readonly priority: number | null;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** ISO 8601. */
  readonly createdAt: string | null;
}

const iso = (d: Date | string | undefined): string | null =>
  d === undefined ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString();

/** podRequests — max(Σ regular + sidecar containers, each init container plus the sidecars started before it) + overhead. */
export function podRequests(pod: V1Pod): ResourceAmounts {
  const request = (c: V1Container) => resourceAmounts(c.resources?.requests ?? c.resources?.limits);
  let sidecars = ZERO_RESOURCES;
  let initPeak = ZERO_RESOURCES;
  for (const init of pod.spec?.initContainers ?? []) {
    if (init.restartPolicy === 'Always') {
      sidecars = addResources(sidecars, request(init));
      initPeak = maxResources(initPeak, sidecars);
    } else {
      initPeak = maxResources(initPeak, addResources(sidecars, request(init)));
    }
  }
  const running = (pod.spec?.containers ?? []).reduce((sum, c) => addResources(sum, request(c)), sidecars);
  return addResources(maxResources(running, initPeak), resourceAmounts(pod.spec?.overhead));
}

/** podQos — `status.qosClass` when the API server set it, else the Kubernetes rule on cpu and memory. */
export function podQos(pod: V1Pod): QosClass {
  const declared = pod.status?.qosClass;
  if (declared === 'Guaranteed' || declared === 'Burstable' || declared === 'BestEffort') return declared;
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const keys = ['cpu', 'memory'] as const;
  const any = containers.some((c) => keys.some((k) => c.resources?.requests?.[k] || c.resources?.limits?.[k]));
  if (!any) return 'BestEffort';
  const amount = (k: 'cpu' | 'memory', q: string): number | undefined =>
    k === 'cpu' ? parseCpuMilli(q) : parseBytes(q);
  // Guaranteed: every container limits cpu and memory, and requests (defaulted to limits) equal them.
  const guaranteed = containers.every((c) =>
    keys.every((k) => {
      const limit = c.resources?.limits?.[k];
      const req = c.resources?.requests?.[k] ?? limit;
      return limit !== undefined && req !== undefined && amount(k, req) === amount(k, limit);
    }),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** projectPod — a V1Pod reduced to its {@link PodRow}. */
export function projectPod(pod: V1Pod): PodRow {
  const meta = pod.metadata ?? {};
  const annotations = meta.annotations ?? {};
  const owner = meta.ownerReferences?.find((o) => o.controller) ?? undefined;
  const volumes = pod.spec?.volumes ?? [];
  const requests = podRequests(pod);
  const templateHash = meta.labels?.['pod-template-hash'];
  const deployment =
    owner?.kind === 'ReplicaSet' && templateHash && owner.name.endsWith(`-${templateHash}`)
      ? owner.name.slice(0, -templateHash.length - 1)
      : undefined;
  const safe = annotations[SAFE_TO_EVICT_ANNOTATION];
  return {
    uid: meta.uid ?? '',
    namespace: meta.namespace ?? 'default',
    name: meta.name ?? '',
    nodeName: pod.spec?.nodeName ?? null,
    phase: pod.status?.phase ?? null,
    ownerKind: owner?.kind ?? null,
    ownerName: owner?.name ?? null,
    workloadKind: deployment ? 'Deployment' : (owner?.kind ?? null),
    workloadName: deployment ?? owner?.name ?? null,
    requests,
    qos: podQos(pod),
    gpu: requests.gpu,
    hasPvc: volumes.some((v) => v.persistentVolumeClaim !== undefined || v.ephemeral !== undefined),
    hasLocalStorage: volumes.some((v) => v.emptyDir !== undefined),
    mirror: MIRROR_ANNOTATION in annotations,
    daemonset: owner?.kind === 'DaemonSet',
    doNotDisrupt: annotations[DO_NOT_DISRUPT_ANNOTATION] === 'true',
    safeToEvict: safe === 'true' ? true : safe === 'false' ? false : null,
    terminating: meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null,
    priority: pod.spec?.priority ?? null,
    labels: { ...(meta.labels ?? {}) },
    annotations: Object.fromEntries(
      KEPT_POD_ANNOTATIONS.filter((k) => k in annotations).map((k) => [k, annotations[k]!]),
    ),
    createdAt: iso(meta.creationTimestamp as Date | string | undefined),
  };
}
