import { claimNamesOf, nodeFacts, podFacts, ZONE_LABELS, zoneOf } from '@nodes-manager/kube';
import type { NodeSelectorRequirement, NodeSelectorTerm, PdbInfo, ResourceRequests, ScoringNode, ScoringPod } from '@nodes-manager/scoring';
import type { CachedPod } from '../../domain/cluster.js';

/**
 * Projections of the Kubernetes objects the informers watch onto libs/scoring's lean types, through the one
 * Kubernetes model (`@nodes-manager/kube`). They keep only what scoring, simulate and consolidation read, so the
 * cache of 150,000 pods stays small; the raw objects are dropped as soon as they are projected. Unknown or
 * malformed fields project to the safe side (a node without a Ready condition is not ready; an unparsable request
 * counts as 0 and is not guessed).
 */

type Raw = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** projectNode — a Node as scoring sees it; `requested` is zero here and filled from the pods by `withRequested`. */
export function projectNode(raw: Raw): ScoringNode {
  const f = nodeFacts(raw);
  return {
    name: f.name,
    zone: f.zone ?? 'unknown',
    instanceType: f.instanceType ?? 'unknown',
    capacityType: f.capacityType,
    ...(f.nodePool ? { nodePool: f.nodePool } : {}),
    labels: f.labels,
    taints: f.taints,
    unschedulable: f.unschedulable,
    // A node being deleted takes no pods and is not worth planning around.
    ready: f.ready && f.deletionTimestamp === undefined,
    allocatable: f.allocatable,
    requested: { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 },
    annotations: f.annotations,
  };
}

const requirement = (e: Raw): NodeSelectorRequirement => ({ key: String(e?.key), operator: e?.operator, ...(e?.values ? { values: [...e.values] } : {}) });

/** projectPod — a Pod as scoring sees it: effective requests, owner, selectors, tolerations, volumes. */
export function projectPod(raw: Raw): ScoringPod {
  const f = podFacts(raw);
  const spec = raw?.spec ?? {};
  const requests: ResourceRequests = { ...f.requests, pods: 1 };
  // A term keeps its matchFields (requirements on metadata.name): dropped, a matchFields-only term would read as
  // empty — and an empty term matches no node, as in Kubernetes.
  const required: NodeSelectorTerm[] | undefined = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.map(
    (t: Raw): NodeSelectorTerm => {
      const fields = (t?.matchFields ?? []).map(requirement);
      return { matchExpressions: (t?.matchExpressions ?? []).map(requirement), ...(fields.length > 0 ? { matchFields: fields } : {}) };
    },
  );
  return {
    uid: f.uid,
    namespace: f.namespace,
    name: f.name,
    ...(f.nodeName ? { nodeName: f.nodeName } : {}),
    ...(f.phase ? { phase: f.phase } : {}),
    requests,
    limits: f.limits,
    ...(f.owner ? { ownerKind: f.owner.kind, ownerName: f.owner.name } : {}),
    ...(f.workload ? { workload: f.workload.name } : {}),
    labels: f.labels,
    annotations: f.annotations,
    ...(spec.nodeSelector ? { nodeSelector: { ...spec.nodeSelector } } : {}),
    ...(required && required.length > 0 ? { requiredNodeAffinity: required } : {}),
    tolerations: f.tolerations,
    hasPvc: f.hasPvc,
    hasLocalStorage: f.hasEmptyDir || f.hasHostPath,
    mirror: f.mirror,
    ...(f.declaredQos ? { qos: f.declaredQos } : {}),
  };
}

/**
 * claimsOf — the PersistentVolumeClaims a pod mounts, in its namespace: `persistentVolumeClaim` volumes by claim
 * name, generic ephemeral volumes by the claim Kubernetes creates for them (`<pod>-<volume>`).
 */
export const claimsOf = (raw: Raw): string[] => claimNamesOf(raw);

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
  const label = zoneOf(raw?.metadata?.labels ?? {});
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
