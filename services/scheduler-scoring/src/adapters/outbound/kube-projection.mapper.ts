import { claimNamesOf, nodeFacts, podFacts, ZONE_LABELS, zoneOf } from '@nodes-manager/kube';
import type { Interner } from '@nodes-manager/platform';
import {
  ANNOTATION_DO_NOT_DISRUPT, ANNOTATION_SAFE_TO_EVICT, type NodeSelectorRequirement, type NodeSelectorTerm, type PdbInfo, type ResourceRequests,
  type ScoringNode, type ScoringPod,
} from '@nodes-manager/scoring';
import type { CachedPod } from '../../domain/cluster.js';

/**
 * Projections of the Kubernetes objects the informers watch onto libs/scoring's lean types, through the one
 * Kubernetes model (`@nodes-manager/kube`). They keep only what scoring, simulate and consolidation read, so the
 * cache of 150,000 pods stays small; the raw objects are dropped as soon as they are projected. Unknown or
 * malformed fields project to the safe side (a node without a Ready condition is not ready; an unparsable request
 * counts as 0 and is not guessed). Only the annotations scoring reads are kept (`karpenter.sh/do-not-disrupt`, and
 * `cluster-autoscaler.kubernetes.io/safe-to-evict` on pods), limits only when the API server did not state the QoS
 * class, and with an {@link Interner} the values pods repeat (namespace, owner, workload, node, label sets,
 * tolerations, request shapes) are one shared copy each.
 */

/** The annotations scoring reads: of pods, and of nodes. */
export const SCORING_POD_ANNOTATIONS = [ANNOTATION_DO_NOT_DISRUPT, ANNOTATION_SAFE_TO_EVICT] as const;
export const SCORING_NODE_ANNOTATIONS = [ANNOTATION_DO_NOT_DISRUPT] as const;

const keep = (from: Readonly<Record<string, string>>, keys: readonly string[]): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k]!;
  return out;
};

/** A pass-through Interner: projections called without one keep their own copies. */
const OWN = { string: (s: string) => s, shared: <V>(_: string, make: () => V) => make(), record: (r: Readonly<Record<string, string>> | undefined) => ({ ...(r ?? {}) }) } as unknown as Interner;

type Raw = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** projectNode — a Node as scoring sees it; `requested` is zero here and filled from the pods by `withRequested`. */
export function projectNode(raw: Raw, intern: Interner = OWN): ScoringNode {
  const f = nodeFacts(raw);
  return {
    name: f.name,
    zone: intern.string(f.zone ?? 'unknown'),
    instanceType: intern.string(f.instanceType ?? 'unknown'),
    capacityType: f.capacityType,
    ...(f.nodePool ? { nodePool: intern.string(f.nodePool) } : {}),
    // Every label: a pod's node selector or affinity may name any of them.
    labels: f.labels,
    taints: f.taints,
    unschedulable: f.unschedulable,
    // A node being deleted takes no pods and is not worth planning around.
    ready: f.ready && f.deletionTimestamp === undefined,
    allocatable: f.allocatable,
    requested: { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 },
    annotations: keep(f.annotations, SCORING_NODE_ANNOTATIONS),
  };
}

const requirement = (e: Raw): NodeSelectorRequirement => ({ key: String(e?.key), operator: e?.operator, ...(e?.values ? { values: [...e.values] } : {}) });

/** projectPod — a Pod as scoring sees it: effective requests, owner, selectors, tolerations, volumes. */
export function projectPod(raw: Raw, intern: Interner = OWN): ScoringPod {
  const f = podFacts(raw);
  const spec = raw?.spec ?? {};
  const r = f.requests;
  const requests: ResourceRequests = intern.shared(`r/${r.cpuMilli}/${r.memoryBytes}/${r.gpu}`, () => ({ ...r, pods: 1 }));
  // A term keeps its matchFields (requirements on metadata.name): dropped, a matchFields-only term would read as
  // empty — and an empty term matches no node, as in Kubernetes.
  const required: NodeSelectorTerm[] | undefined = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.map(
    (t: Raw): NodeSelectorTerm => {
      const fields = (t?.matchFields ?? []).map(requirement);
      return { matchExpressions: (t?.matchExpressions ?? []).map(requirement), ...(fields.length > 0 ? { matchFields: fields } : {}) };
    },
  );
  const tolerations = intern.shared(`t/${JSON.stringify(f.tolerations)}`, () => f.tolerations);
  return {
    uid: f.uid,
    namespace: intern.string(f.namespace),
    name: f.name,
    ...(f.nodeName ? { nodeName: intern.string(f.nodeName) } : {}),
    ...(f.phase ? { phase: intern.string(f.phase) } : {}),
    requests,
    // Limits only decide the QoS class, and only when the API server did not state it.
    ...(f.declaredQos ? {} : { limits: f.limits }),
    ...(f.owner ? { ownerKind: intern.string(f.owner.kind), ownerName: intern.string(f.owner.name) } : {}),
    ...(f.workload ? { workload: intern.string(f.workload.name) } : {}),
    labels: intern.record(f.labels),
    annotations: intern.record(keep(f.annotations, SCORING_POD_ANNOTATIONS)),
    ...(spec.nodeSelector ? { nodeSelector: intern.record(spec.nodeSelector) } : {}),
    ...(required && required.length > 0 ? { requiredNodeAffinity: required } : {}),
    tolerations,
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
export function projectCachedPod(raw: Raw, intern: Interner = OWN): CachedPod {
  const pod = projectPod(raw, intern);
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
