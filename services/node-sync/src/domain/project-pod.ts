import {
  DO_NOT_DISRUPT_ANNOTATION, MIRROR_ANNOTATION, podFacts, SAFE_TO_EVICT_ANNOTATION, type QosClass, type ResourceAmounts,
} from '@nodes-manager/kube';

export type { QosClass };
export { DO_NOT_DISRUPT_ANNOTATION, MIRROR_ANNOTATION, SAFE_TO_EVICT_ANNOTATION };
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

/** projectPod — a Pod (client object or raw JSON) reduced to its {@link PodRow}. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function projectPod(pod: any): PodRow {
  const f = podFacts(pod);
  const safe = f.annotations[SAFE_TO_EVICT_ANNOTATION];
  return {
    uid: f.uid,
    namespace: f.namespace,
    name: f.name,
    nodeName: f.nodeName ?? null,
    phase: f.phase ?? null,
    ownerKind: f.owner?.kind ?? null,
    ownerName: f.owner?.name ?? null,
    workloadKind: f.workload?.kind ?? null,
    workloadName: f.workload?.name ?? null,
    requests: f.requests,
    qos: f.qos,
    gpu: f.requests.gpu,
    hasPvc: f.hasPvc,
    hasLocalStorage: f.hasEmptyDir,
    mirror: f.mirror,
    daemonset: f.daemonset,
    doNotDisrupt: f.annotations[DO_NOT_DISRUPT_ANNOTATION] === 'true',
    safeToEvict: safe === 'true' ? true : safe === 'false' ? false : null,
    terminating: f.terminating,
    priority: f.priority ?? null,
    labels: f.labels,
    annotations: Object.fromEntries(KEPT_POD_ANNOTATIONS.filter((k) => k in f.annotations).map((k) => [k, f.annotations[k]!])),
    createdAt: f.createdAt ?? null,
  };
}
