import {
  GPU_RESOURCE_NAMES,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_ZONE,
  type CapacityType,
  type NodeResources,
  type NodeSelectorRequirement,
  type NodeSelectorTerm,
  type PdbInfo,
  type QosClass,
  type ResourceRequests,
  type ScoringNode,
  type ScoringPod,
  type Taint,
  type TaintEffect,
  type Toleration,
} from '@nodes-manager/scoring';
import type { CachedPod } from '../../domain/cluster.js';
import { bytes, cpuMilli, parseQuantity } from '../../domain/quantity.js';

/**
 * Projections of the Kubernetes objects the informers watch onto libs/scoring's lean types. They keep only
 * what scoring, simulate and consolidation read, so the cache of 150,000 pods stays small; the raw objects
 * are dropped as soon as they are projected. Unknown or malformed fields project to the safe side (a node
 * without a Ready condition is not ready; an unparsable request counts as 0 and is not guessed).
 */

type Raw = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const ZONE_LABELS = [LABEL_ZONE, 'failure-domain.beta.kubernetes.io/zone'];
const TYPE_LABELS = [LABEL_INSTANCE_TYPE, 'beta.kubernetes.io/instance-type'];
const NODEPOOL_LABELS = ['karpenter.sh/nodepool', 'eks.amazonaws.com/nodegroup'];
const TAINT_EFFECTS: readonly TaintEffect[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

const firstLabel = (labels: Record<string, string>, keys: readonly string[]): string | undefined => {
  for (const k of keys) if (labels[k]) return labels[k];
  return undefined;
};

/** capacityTypeOf — Karpenter's label, else the EKS managed node group's (`SPOT`); On-Demand otherwise. */
export function capacityTypeOf(labels: Readonly<Record<string, string>>): CapacityType {
  const k = labels[LABEL_CAPACITY_TYPE] ?? labels['eks.amazonaws.com/capacityType'];
  return k?.toLowerCase() === 'spot' ? 'spot' : 'on-demand';
}

/** resourcesOf — a node's allocatable (or capacity) map as numbers; GPUs summed over the known GPU resources. */
export function resourcesOf(m: Record<string, string> | undefined): NodeResources {
  const src = m ?? {};
  let gpu = 0;
  for (const r of GPU_RESOURCE_NAMES) gpu += parseQuantity(src[r]) ?? 0;
  return { cpuMilli: cpuMilli(src.cpu) ?? 0, memoryBytes: bytes(src.memory) ?? 0, gpu, pods: parseQuantity(src.pods) ?? 0 };
}

/** projectNode — a Node as scoring sees it; `requested` is zero here and filled from the pods by `withRequested`. */
export function projectNode(raw: Raw): ScoringNode {
  const labels: Record<string, string> = { ...(raw?.metadata?.labels ?? {}) };
  const annotations: Record<string, string> = { ...(raw?.metadata?.annotations ?? {}) };
  const ready = (raw?.status?.conditions ?? []).some((c: Raw) => c?.type === 'Ready' && c?.status === 'True');
  const taints: Taint[] = (raw?.spec?.taints ?? [])
    .filter((t: Raw) => typeof t?.key === 'string' && TAINT_EFFECTS.includes(t.effect))
    .map((t: Raw) => ({ key: t.key, ...(t.value ? { value: String(t.value) } : {}), effect: t.effect as TaintEffect }));
  const nodePool = firstLabel(labels, NODEPOOL_LABELS);
  return {
    name: String(raw?.metadata?.name ?? ''),
    zone: firstLabel(labels, ZONE_LABELS) ?? 'unknown',
    instanceType: firstLabel(labels, TYPE_LABELS) ?? 'unknown',
    capacityType: capacityTypeOf(labels),
    ...(nodePool ? { nodePool } : {}),
    labels,
    taints,
    unschedulable: raw?.spec?.unschedulable === true,
    // A node being deleted takes no pods and is not worth planning around.
    ready: ready && !raw?.metadata?.deletionTimestamp,
    allocatable: resourcesOf(raw?.status?.allocatable ?? raw?.status?.capacity),
    requested: { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 },
    annotations,
  };
}

interface Amounts {
  cpuMilli: number;
  memoryBytes: number;
  gpu: number;
}
const amountsOf = (m: Record<string, string> | undefined): Amounts => {
  let gpu = 0;
  for (const r of GPU_RESOURCE_NAMES) gpu += parseQuantity(m?.[r]) ?? 0;
  return { cpuMilli: cpuMilli(m?.cpu) ?? 0, memoryBytes: bytes(m?.memory) ?? 0, gpu };
};

/**
 * effectiveAmounts — kube-scheduler's pod request: per resource max(Σ containers, max init container) plus the
 * pod overhead. `field` picks requests or limits.
 */
export function effectiveAmounts(spec: Raw, field: 'requests' | 'limits'): Amounts {
  const sum: Amounts = { cpuMilli: 0, memoryBytes: 0, gpu: 0 };
  for (const c of spec?.containers ?? []) {
    const a = amountsOf(c?.resources?.[field]);
    sum.cpuMilli += a.cpuMilli;
    sum.memoryBytes += a.memoryBytes;
    sum.gpu += a.gpu;
  }
  for (const c of spec?.initContainers ?? []) {
    const a = amountsOf(c?.resources?.[field]);
    sum.cpuMilli = Math.max(sum.cpuMilli, a.cpuMilli);
    sum.memoryBytes = Math.max(sum.memoryBytes, a.memoryBytes);
    sum.gpu = Math.max(sum.gpu, a.gpu);
  }
  if (field === 'requests' && spec?.overhead) {
    const o = amountsOf(spec.overhead);
    sum.cpuMilli += o.cpuMilli;
    sum.memoryBytes += o.memoryBytes;
  }
  return sum;
}

/** workloadNameOf — a ReplicaSet's Deployment (the name without `-<pod-template-hash>`), else the owner's name. */
export function workloadNameOf(ownerKind: string | undefined, ownerName: string | undefined, labels: Record<string, string>): string | undefined {
  if (ownerName === undefined) return undefined;
  const hash = labels['pod-template-hash'];
  if (ownerKind === 'ReplicaSet' && hash && ownerName.endsWith(`-${hash}`)) return ownerName.slice(0, -hash.length - 1);
  return ownerName;
}

const toleration = (t: Raw): Toleration => ({
  ...(t?.key ? { key: String(t.key) } : {}),
  ...(t?.operator === 'Exists' || t?.operator === 'Equal' ? { operator: t.operator } : {}),
  ...(t?.value !== undefined && t?.value !== null ? { value: String(t.value) } : {}),
  ...(TAINT_EFFECTS.includes(t?.effect) ? { effect: t.effect as TaintEffect } : {}),
});

const requirement = (e: Raw): NodeSelectorRequirement => ({ key: String(e?.key), operator: e?.operator, ...(e?.values ? { values: [...e.values] } : {}) });

const QOS: readonly QosClass[] = ['Guaranteed', 'Burstable', 'BestEffort'];

/** projectPod — a Pod as scoring sees it: effective requests, owner, selectors, tolerations, volumes. */
export function projectPod(raw: Raw): ScoringPod {
  const meta = raw?.metadata ?? {};
  const spec = raw?.spec ?? {};
  const labels: Record<string, string> = { ...(meta.labels ?? {}) };
  const annotations: Record<string, string> = { ...(meta.annotations ?? {}) };
  const owner = (meta.ownerReferences ?? []).find((o: Raw) => o?.controller === true);
  const ownerKind: string | undefined = owner?.kind;
  const ownerName: string | undefined = owner?.name;
  const workload = workloadNameOf(ownerKind, ownerName, labels);
  const req = effectiveAmounts(spec, 'requests');
  const lim = effectiveAmounts(spec, 'limits');
  const requests: ResourceRequests = { ...req, pods: 1 };
  const volumes: Raw[] = spec.volumes ?? [];
  // A term keeps its matchFields (requirements on metadata.name): dropped, a matchFields-only term would read as
  // empty — and an empty term matches no node, as in Kubernetes.
  const required: NodeSelectorTerm[] | undefined = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.map(
    (t: Raw): NodeSelectorTerm => {
      const fields = (t?.matchFields ?? []).map(requirement);
      return { matchExpressions: (t?.matchExpressions ?? []).map(requirement), ...(fields.length > 0 ? { matchFields: fields } : {}) };
    },
  );
  const qos: QosClass | undefined = QOS.includes(raw?.status?.qosClass) ? raw.status.qosClass : undefined;
  const mirror = annotations[MIRROR_ANNOTATION] !== undefined || ownerKind === 'Node';
  return {
    uid: String(meta.uid ?? `${meta.namespace}/${meta.name}`),
    namespace: String(meta.namespace ?? 'default'),
    name: String(meta.name ?? ''),
    ...(spec.nodeName ? { nodeName: String(spec.nodeName) } : {}),
    ...(raw?.status?.phase ? { phase: String(raw.status.phase) } : {}),
    requests,
    limits: lim,
    ...(ownerKind ? { ownerKind } : {}),
    ...(ownerName ? { ownerName } : {}),
    ...(workload ? { workload } : {}),
    labels,
    annotations,
    ...(spec.nodeSelector ? { nodeSelector: { ...spec.nodeSelector } } : {}),
    ...(required && required.length > 0 ? { requiredNodeAffinity: required } : {}),
    tolerations: (spec.tolerations ?? []).map(toleration),
    hasPvc: volumes.some((v) => v?.persistentVolumeClaim),
    hasLocalStorage: volumes.some((v) => v?.emptyDir || v?.hostPath),
    mirror,
    ...(qos ? { qos } : {}),
  };
}

/**
 * claimsOf — the PersistentVolumeClaims a pod mounts, in its namespace: `persistentVolumeClaim` volumes by claim
 * name, generic ephemeral volumes by the claim Kubernetes creates for them (`<pod>-<volume>`).
 */
export function claimsOf(raw: Raw): string[] {
  const out: string[] = [];
  for (const v of raw?.spec?.volumes ?? []) {
    if (v?.persistentVolumeClaim?.claimName) out.push(String(v.persistentVolumeClaim.claimName));
    else if (v?.ephemeral && v?.name) out.push(`${raw?.metadata?.name ?? ''}-${v.name}`);
  }
  return out;
}

/** projectCachedPod — projectPod plus the names of the pod's claims (only when it has any), for withVolumeZones. */
export function projectCachedPod(raw: Raw): CachedPod {
  const pod = projectPod(raw);
  const claims = claimsOf(raw);
  return claims.length > 0 ? { ...pod, pvcClaims: claims } : pod;
}

/** ClaimBinding — a PersistentVolumeClaim as scheduler-scoring keeps it: the volume it is bound to, if any. */
export interface ClaimBinding {
  readonly volumeName?: string;
}

/** projectClaim — `spec.volumeName` of a PersistentVolumeClaim (absent while it is unbound). */
export function projectClaim(raw: Raw): ClaimBinding {
  const v = raw?.spec?.volumeName;
  return typeof v === 'string' && v !== '' ? { volumeName: v } : {};
}

const VOLUME_ZONE_KEYS = [...ZONE_LABELS, 'topology.ebs.csi.aws.com/zone'];

/**
 * projectVolume — the zones a PersistentVolume can be reached from: the `In` values of the zone requirements of
 * its required node affinity (any term may match, so the union; a term without a zone requirement allows every
 * zone, so none is returned), else its zone label (`a__b` lists several, as the legacy label does); empty when it
 * names no zone.
 */
export function projectVolume(raw: Raw): string[] {
  const terms: Raw[] = raw?.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  if (terms.length > 0) {
    const zones = new Set<string>();
    let everyTermZonal = true;
    for (const t of terms) {
      const exprs: Raw[] = (t?.matchExpressions ?? []).filter((e: Raw) => VOLUME_ZONE_KEYS.includes(e?.key) && e?.operator === 'In' && Array.isArray(e?.values));
      if (exprs.length === 0) everyTermZonal = false;
      // Several zone requirements in one term must all hold: their intersection.
      let term: string[] | undefined;
      for (const e of exprs) {
        const vals = (e.values as unknown[]).map(String);
        term = term === undefined ? vals : term.filter((z) => vals.includes(z));
      }
      for (const z of term ?? []) zones.add(z);
    }
    if (everyTermZonal && zones.size > 0) return [...zones].sort();
  }
  const label = firstLabel(raw?.metadata?.labels ?? {}, ZONE_LABELS);
  return label ? [...new Set(label.split('__').filter((z) => z !== ''))].sort() : [];
}

/**
 * projectPdb — a PodDisruptionBudget's `matchLabels` (plus single-value `In` expressions, which say the same)
 * and `status.disruptionsAllowed` (0 when the controller has not computed it yet — never more than it says).
 * A selector with any other expression cannot be represented exactly: it keeps its labels with budget 0, so
 * it can only block a plan, never let one through.
 */
export function projectPdb(raw: Raw): PdbInfo {
  const sel = raw?.spec?.selector ?? {};
  const selector: Record<string, string> = { ...(sel.matchLabels ?? {}) };
  let exact = true;
  for (const e of sel.matchExpressions ?? []) {
    if (e?.operator === 'In' && Array.isArray(e.values) && e.values.length === 1) selector[e.key] = String(e.values[0]);
    else exact = false;
  }
  const allowed = Number(raw?.status?.disruptionsAllowed ?? 0);
  return {
    name: String(raw?.metadata?.name ?? ''),
    namespace: String(raw?.metadata?.namespace ?? 'default'),
    selector,
    disruptionsAllowed: exact && Number.isFinite(allowed) ? Math.max(0, allowed) : 0,
  };
}
