/**
 * A running pod's placement on its node (`placement.list`, `GET /api/v1/workloads/placement`): how well the node fits
 * it now, or why it cannot say. Data only.
 */

/**
 * FILTER_REASONS — why a node cannot take a pod: one code per hard filter of kube-scheduler that libs/scoring mirrors
 * (NodeUnschedulable, node readiness, NodeResourcesFit, TaintToleration, NodeAffinity, VolumeZone), in its order.
 */
export const FILTER_REASONS = [
  'node_unschedulable',
  'node_not_ready',
  'insufficient_cpu',
  'insufficient_memory',
  'insufficient_gpu',
  'too_many_pods',
  'untolerated_taint',
  'node_selector_mismatch',
  'node_affinity_mismatch',
  'volume_zone_conflict',
] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

/** FILTER_REASON_WORDS — each filter reason as a person reads it (the entry's `detail` says which taint, how much). */
export const FILTER_REASON_WORDS: Readonly<Record<FilterReason, string>> = {
  node_unschedulable: 'the node is cordoned',
  node_not_ready: 'the node is not Ready',
  insufficient_cpu: 'not enough CPU left',
  insufficient_memory: 'not enough memory left',
  insufficient_gpu: 'not enough GPUs left',
  too_many_pods: 'no pod slot left',
  untolerated_taint: 'a taint the pod does not tolerate',
  node_selector_mismatch: 'its nodeSelector does not match the node',
  node_affinity_mismatch: 'its required node affinity does not match the node',
  volume_zone_conflict: 'its volume is in another zone',
};

/**
 * PLACEMENT_FITS — what a placement entry says about the pod's node: `scored` (a score and its dimensions),
 * `node_refuses` (the node now fails a hard filter for it — a taint added after the pod was placed, such as the
 * termination handler's rebalance taint: `refusedBy` says which), `node_unknown` (the node is not in the cache:
 * deleted, or not yet seen).
 */
export const PLACEMENT_FITS = ['scored', 'node_refuses', 'node_unknown'] as const;
export type PlacementFit = (typeof PLACEMENT_FITS)[number];

/** PlacementRefusal — one hard filter the node fails for the pod: its code, and the specifics in a sentence. */
export interface PlacementRefusal {
  readonly reason: FilterReason;
  readonly detail: string;
}

interface PlacementBase {
  /** `namespace/name`. */
  readonly pod: string;
  readonly namespace: string;
  readonly workload?: string;
  readonly node: string;
  readonly workloadClass: string;
  /** The fit in a sentence. */
  readonly rationale: string;
}

/** PlacementEntry — one pod of `placement.list`; `fit` says which fields it carries. */
export type PlacementEntry =
  | (PlacementBase & { readonly fit: 'scored'; readonly score: number; readonly dimensions: Readonly<Record<string, number>> })
  | (PlacementBase & { readonly fit: 'node_refuses'; readonly score: null; readonly refusedBy: readonly PlacementRefusal[] })
  | (PlacementBase & { readonly fit: 'node_unknown'; readonly score: null });
