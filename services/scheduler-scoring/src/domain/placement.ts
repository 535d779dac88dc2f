import { LIST_CURSORS, type PlacementEntry } from '@nodes-manager/contracts';
import { classifyWorkload, scoreNode, type ScoringContext, type ScoringNode, type ScoringPod, type WorkloadClass } from '@nodes-manager/scoring';
import { terminal } from './cluster.js';

const PLACEMENT_CURSOR = LIST_CURSORS['workloads/placement'];

export interface PlacementFilter {
  readonly namespace?: string;
  readonly node?: string;
  readonly workloadClass?: string;
}

/** Placement — one pod's entry: `scored` on its node, or why not (`node_refuses`, `node_unknown`). */
export type Placement = PlacementEntry & { readonly workloadClass: WorkloadClass };

/** placementAfter — the `namespace/name` a placement cursor points after; throws InvalidCursorError (400 on `cursor`) when it is not one (docs/design.md#pagination). */
export const placementAfter = (cursor: string): string => PLACEMENT_CURSOR.decode(cursor)[0];

const keyOf = (p: ScoringPod): string => `${p.namespace}/${p.name}`;

/**
 * placementPage — the running (bound, not finished, not mirror) pods that match the filter, ordered by
 * `namespace/name`, one page after `after`; each scored on its own node as kube-scheduler would have scored it
 * (the node's requests without the pod itself). Only the page is scored, so a page costs O(limit) scores.
 */
export function placementPage(
  pods: readonly ScoringPod[],
  nodes: readonly ScoringNode[],
  ctx: ScoringContext,
  q: PlacementFilter & { readonly limit: number; readonly after?: string },
): { items: Placement[]; nextCursor?: string } {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const matches = pods.filter(
    (p) =>
      p.nodeName !== undefined &&
      !terminal(p) &&
      p.mirror !== true &&
      (q.namespace === undefined || p.namespace === q.namespace) &&
      (q.node === undefined || p.nodeName === q.node) &&
      (q.after === undefined || keyOf(p) > q.after) &&
      (q.workloadClass === undefined || classifyWorkload(p) === q.workloadClass),
  );
  matches.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const page = matches.slice(0, q.limit);
  const items = page.map((p) => placementOf(p, byName.get(p.nodeName!), ctx));
  return matches.length > q.limit ? { items, nextCursor: PLACEMENT_CURSOR.encode([keyOf(page[page.length - 1]!)]) } : { items };
}

/** placementOf — one pod's score on its node, with the node's requests minus its own. */
export function placementOf(pod: ScoringPod, node: ScoringNode | undefined, ctx: ScoringContext): Placement {
  const base = {
    pod: keyOf(pod),
    namespace: pod.namespace,
    ...(pod.workload ? { workload: pod.workload } : {}),
    node: pod.nodeName!,
    workloadClass: classifyWorkload(pod),
  };
  if (!node) return { ...base, fit: 'node_unknown', score: null, rationale: `node ${pod.nodeName} is not in the cache (deleted or not yet seen)` };
  const r = pod.requests;
  const without: ScoringNode = {
    ...node,
    // Scored as if placing it now: cordon does not count against a pod that is already there.
    unschedulable: false,
    requested: {
      cpuMilli: node.requested.cpuMilli - r.cpuMilli,
      memoryBytes: node.requested.memoryBytes - r.memoryBytes,
      gpu: node.requested.gpu - r.gpu,
      pods: node.requested.pods - (r.pods ?? 1),
    },
  };
  const s = scoreNode(pod, without, ctx);
  if (!s.feasible) {
    const refusedBy = s.reasons.map((x) => ({ reason: x.reason, detail: x.detail }));
    return { ...base, fit: 'node_refuses', score: null, refusedBy, rationale: `runs on ${node.name}, which now fails: ${refusedBy.map((x) => x.detail).join('; ')}` };
  }
  return { ...base, fit: 'scored', score: Math.round(s.total * 100) / 100, rationale: s.rationale, dimensions: s.dimensions };
}
