import {
  FIELD_NODE_NAME,
  TAINT_UNSCHEDULABLE,
  type NodeResources,
  type NodeSelectorRequirement,
  type NodeSelectorTerm,
  type ResourceRequests,
  type ScoringNode,
  type ScoringPod,
  type Taint,
  type Toleration,
} from './types.js';
import { tolerates } from '@nodes-manager/kube';
import type { FilterReason } from '@nodes-manager/contracts';

/** FilterReason — why a node cannot take a pod; one per kube-scheduler filter plugin it mirrors (libs/contracts FILTER_REASONS). */
export type { FilterReason };

export interface FilterFailure {
  readonly reason: FilterReason;
  readonly detail: string;
}

/**
 * filterNode — every hard filter the node fails for this pod (empty when the pod fits), in kube-scheduler's
 * order: NodeUnschedulable, node readiness, NodeResourcesFit, TaintToleration, NodeAffinity (nodeSelector and
 * required terms), VolumeZone. `extra` is capacity already promised on this node (e.g. pods moved there by a
 * plan) and counts as requested.
 */
export function filterNode(pod: ScoringPod, node: ScoringNode, extra?: NodeResources): FilterFailure[] {
  const failures: FilterFailure[] = [];
  if (node.unschedulable && !toleratesUnschedulable(pod.tolerations)) {
    failures.push({ reason: 'node_unschedulable', detail: `${node.name} is cordoned` });
  }
  if (!node.ready) failures.push({ reason: 'node_not_ready', detail: `${node.name} is not Ready` });
  failures.push(...resourceFailures(pod.requests, node.allocatable, node.requested, extra));
  const taint = firstUntoleratedTaint(node.taints, pod.tolerations);
  if (taint) {
    failures.push({
      reason: 'untolerated_taint',
      detail: `taint ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect} not tolerated`,
    });
  }
  const selectorKey = nodeSelectorMismatch(pod.nodeSelector, node.labels);
  if (selectorKey !== undefined) {
    failures.push({ reason: 'node_selector_mismatch', detail: `nodeSelector ${selectorKey} does not match` });
  }
  if (pod.requiredNodeAffinity && !matchesNodeAffinity(pod.requiredNodeAffinity, node.labels, node.name)) {
    failures.push({ reason: 'node_affinity_mismatch', detail: 'no required node affinity term matches' });
  }
  if (!volumeZoneOk(pod.pvcZones, node.zone)) {
    failures.push({
      reason: 'volume_zone_conflict',
      detail: `volume in ${pod.pvcZones!.join(', ')}, node in ${node.zone}`,
    });
  }
  return failures;
}

/**
 * staticFiltersPass — whether the node passes every filter of {@link filterNode} but NodeResourcesFit (the filters
 * that pods coming and going do not change), answered without building the failures: what
 * `filterNode(pod, node)` says once its resource reasons are left out.
 */
export function staticFiltersPass(pod: ScoringPod, node: ScoringNode): boolean {
  if (node.unschedulable && !toleratesUnschedulable(pod.tolerations)) return false;
  if (!node.ready) return false;
  if (firstUntoleratedTaint(node.taints, pod.tolerations)) return false;
  if (nodeSelectorMismatch(pod.nodeSelector, node.labels) !== undefined) return false;
  if (pod.requiredNodeAffinity && !matchesNodeAffinity(pod.requiredNodeAffinity, node.labels, node.name)) return false;
  return volumeZoneOk(pod.pvcZones, node.zone);
}

/** resourceFailures — NodeResourcesFit: requested + extra + pod ≤ allocatable for cpu, memory, gpu and pod count. */
export function resourceFailures(
  req: ResourceRequests,
  allocatable: NodeResources,
  requested: NodeResources,
  extra?: NodeResources,
): FilterFailure[] {
  const failures: FilterFailure[] = [];
  const free = (d: keyof NodeResources): number => allocatable[d] - requested[d] - (extra?.[d] ?? 0);
  if (req.cpuMilli > free('cpuMilli')) {
    failures.push({ reason: 'insufficient_cpu', detail: `needs ${req.cpuMilli}m cpu, ${Math.max(0, free('cpuMilli'))}m free` });
  }
  if (req.memoryBytes > free('memoryBytes')) {
    failures.push({
      reason: 'insufficient_memory',
      detail: `needs ${mib(req.memoryBytes)} MiB memory, ${mib(Math.max(0, free('memoryBytes')))} MiB free`,
    });
  }
  if (req.gpu > free('gpu')) failures.push({ reason: 'insufficient_gpu', detail: `needs ${req.gpu} gpu, ${free('gpu')} free` });
  if ((req.pods ?? 1) > free('pods')) failures.push({ reason: 'too_many_pods', detail: 'no pod slot left' });
  return failures;
}

const mib = (bytes: number): number => Math.round(bytes / 1048576);

/** tolerates — one toleration matches one taint: the shared Kubernetes model's rule. */
export { tolerates };

/** firstUntoleratedTaint — the first NoSchedule/NoExecute taint no toleration matches (PreferNoSchedule is a
 * preference, not a filter). */
export function firstUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  for (const taint of taints) {
    if (taint.effect === 'PreferNoSchedule') continue;
    if (!tolerations.some((t) => tolerates(t, taint))) return taint;
  }
  return undefined;
}

const UNSCHEDULABLE_TAINT: Taint = { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' };

/** toleratesUnschedulable — as kube-scheduler's NodeUnschedulable plugin: a cordon is ignored by pods that
 * tolerate `node.kubernetes.io/unschedulable:NoSchedule`. */
export function toleratesUnschedulable(tolerations: readonly Toleration[]): boolean {
  return tolerations.some((t) => tolerates(t, UNSCHEDULABLE_TAINT));
}

/** nodeSelectorMismatch — the first `key=value` of the nodeSelector the labels do not carry, else undefined. */
export function nodeSelectorMismatch(
  selector: Readonly<Record<string, string>> | undefined,
  labels: Readonly<Record<string, string>>,
): string | undefined {
  if (!selector) return undefined;
  for (const key in selector) {
    if (labels[key] !== selector[key]) return `${key}=${selector[key]}`;
  }
  return undefined;
}

/**
 * matchesNodeAffinity — terms ORed; within a term the label expressions and the field requirements (on the node
 * name) ANDed. As Kubernetes (`nodeaffinity.NodeSelector`): an empty list of terms matches nothing, and so does
 * an empty term — it is not a wildcard.
 */
export function matchesNodeAffinity(terms: readonly NodeSelectorTerm[], labels: Readonly<Record<string, string>>, nodeName: string): boolean {
  return terms.some((term) => matchesTerm(term, labels, nodeName));
}

function matchesTerm(term: NodeSelectorTerm, labels: Readonly<Record<string, string>>, nodeName: string): boolean {
  const fields = term.matchFields ?? [];
  if (term.matchExpressions.length === 0 && fields.length === 0) return false;
  return term.matchExpressions.every((e) => matchesRequirement(e, labels)) && fields.every((f) => matchesFieldRequirement(f, nodeName));
}

/** matchesFieldRequirement — `metadata.name` In/NotIn the values; any other field or operator matches nothing. */
export function matchesFieldRequirement(f: NodeSelectorRequirement, nodeName: string): boolean {
  if (f.key !== FIELD_NODE_NAME) return false;
  if (f.operator === 'In') return (f.values ?? []).includes(nodeName);
  if (f.operator === 'NotIn') return !(f.values ?? []).includes(nodeName);
  return false;
}

/** matchesRequirement — one match expression; Gt/Lt compare the label as an integer, a non-integer never matches. */
export function matchesRequirement(e: NodeSelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const value = labels[e.key];
  switch (e.operator) {
    case 'In':
      return value !== undefined && (e.values ?? []).includes(value);
    case 'NotIn':
      return value === undefined || !(e.values ?? []).includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = parseInteger(e.values?.[0]);
      const actual = parseInteger(value);
      if (bound === undefined || actual === undefined) return false;
      return e.operator === 'Gt' ? actual > bound : actual < bound;
    }
  }
}

function parseInteger(s: string | undefined): number | undefined {
  if (s === undefined || !/^-?\d+$/.test(s)) return undefined;
  return Number(s);
}

/**
 * volumeZoneOk — VolumeZone: every bound volume must be reachable from the node's zone, so each volume's zone
 * must be the node's (zonal volumes such as EBS attach only in their own zone); no volumes, no constraint.
 */
export function volumeZoneOk(pvcZones: readonly string[] | undefined, zone: string): boolean {
  return !pvcZones || pvcZones.every((z) => z === zone);
}
