/**
 * Contracts of the uncordon service: auto-uncordon verdicts (docs/auto-uncordon.md) and drain operations (docs/uncordon.md#drain).
 * Data only. Every string value here is stored in Postgres, logged and shown over the API: never rename one,
 * only add.
 */

/** Well-known keys the uncordon rule reads and writes. */
export const UNSCHEDULABLE_TAINT_KEY = 'node.kubernetes.io/unschedulable';
/** NTH's taint in `taintNode` mode for a Spot rebalance recommendation; removed together with the cordon. */
export const NTH_REBALANCE_TAINT_KEY = 'aws-node-termination-handler/rebalance-recommendation';
/** NTH's label naming the action it is taking on a node (an interruption in progress). */
export const NTH_ACTION_LABEL_KEY = 'aws-node-termination-handler/action';
export const KARPENTER_DISRUPTION_TAINT_KEYS = [
  'karpenter.sh/disrupted',
  'karpenter.sh/disruption',
  'karpenter.sh/unregistered',
] as const;
export const CLUSTER_AUTOSCALER_DELETION_TAINT_KEY = 'ToBeDeletedByClusterAutoscaler';
export const EXCLUDE_FROM_LOAD_BALANCERS_LABEL_KEY = 'node.kubernetes.io/exclude-from-external-load-balancers';
/** `nodes-manager/auto-uncordon: "disabled"` on a node opts it out of auto-uncordon. */
export const AUTO_UNCORDON_OPT_OUT_ANNOTATION = 'nodes-manager/auto-uncordon';
export const AUTO_UNCORDON_OPT_OUT_VALUE = 'disabled';
export const UNCORDONED_AT_ANNOTATION = 'nodes-manager/uncordoned-at';
export const UNCORDON_REASON_ANNOTATION = 'nodes-manager/uncordon-reason';
/** Field manager of every write nodes-manager makes to a Node (cordon, uncordon). */
export const NODES_MANAGER_FIELD_MANAGER = 'nodes-manager';
/** Default of `AUTO_UNCORDON_CORDON_MANAGERS`: NTH's client field manager (its binary name). */
export const DEFAULT_CORDON_MANAGERS: readonly string[] = ['node-termination-handler'];

/**
 * DRAIN_OPERATION_ANNOTATION — set on a Node (value: the drain operation id) by the uncordon service for as long
 * as its drain runs, and removed when the drain ends. node-sync reports such a node as `Draining`.
 */
export const DRAIN_OPERATION_ANNOTATION = 'nodes-manager/drain-operation';

/** Why auto-uncordon did, or did not, act on a node. */
export const UncordonReason = {
  /** Every clause of the rule (docs/auto-uncordon.md) holds: the node is (or would be) uncordoned. */
  UNCORDON: 'UNCORDON',
  /** Ours to reverse, but `now − T` is still below the (backed-off) grace period. */
  WAITING_GRACE_PERIOD: 'WAITING_GRACE_PERIOD',
  /** `spec.unschedulable` is not true. */
  NOT_CORDONED: 'NOT_CORDONED',
  /** Cordoned, but the `node.kubernetes.io/unschedulable:NoSchedule` taint is not (yet) there. */
  CORDON_TAINT_MISSING: 'CORDON_TAINT_MISSING',
  /** Taints beyond the cordon taint and NTH's rebalance taint. */
  EXTRA_TAINTS: 'EXTRA_TAINTS',
  /** The `f:spec.f:unschedulable` owner is not a configured cordon manager; see `evidence.cordonManager`. */
  CORDONED_BY_OTHER_MANAGER: 'CORDONED_BY_OTHER_MANAGER',
  /** No managedFields entry owns the cordon and NTH's rebalance taint is absent. */
  NO_PROVENANCE: 'NO_PROVENANCE',
  KARPENTER_DISRUPTION_TAINT: 'KARPENTER_DISRUPTION_TAINT',
  CLUSTER_AUTOSCALER_DELETION_TAINT: 'CLUSTER_AUTOSCALER_DELETION_TAINT',
  /** The Node has a `deletionTimestamp`. */
  BEING_DELETED: 'BEING_DELETED',
  EXCLUDED_FROM_LOAD_BALANCERS: 'EXCLUDED_FROM_LOAD_BALANCERS',
  NTH_ACTION_LABEL: 'NTH_ACTION_LABEL',
  /** Annotation `nodes-manager/auto-uncordon: "disabled"`. */
  OPTED_OUT: 'OPTED_OUT',
  /** No cordon time: no managedFields time and no observation recorded yet. */
  CORDON_TIME_UNKNOWN: 'CORDON_TIME_UNKNOWN',
  /** Ready is not `True` now (or there is no Ready condition). */
  NOT_READY: 'NOT_READY',
  /** Ready now, but its last transition is after T: it was not Ready continuously since the cordon. */
  NOT_READY_SINCE_CORDON: 'NOT_READY_SINCE_CORDON',
  /** Would uncordon, but this cycle's `AUTO_UNCORDON_MAX_PER_CYCLE` is used up; requeued. */
  BUDGET_EXHAUSTED: 'BUDGET_EXHAUSTED',
  /** Would uncordon, but `AUTO_UNCORDON_ENABLED=false`. */
  DISABLED: 'DISABLED',
  /** Would uncordon, but `AUTO_UNCORDON_DRY_RUN=true`: recorded, not patched. */
  DRY_RUN: 'DRY_RUN',
  /** A nodes-manager drain is running on the node ({@link DRAIN_OPERATION_ANNOTATION}): its cordon is ours. */
  DRAINING: 'DRAINING',
  /** Would uncordon, but the node's memory PSI `full avg10` is above PRESSURE_MEMORY_FULL_THRESHOLD (docs/pressure.md). */
  MEMORY_PRESSURE: 'MEMORY_PRESSURE',
  /** Would uncordon, but a fleet-wide pause of scope `all` holds auto-uncordon too (docs/pause.md). */
  PAUSED: 'PAUSED',
} as const;
export type UncordonReason = (typeof UncordonReason)[keyof typeof UncordonReason];
export const UNCORDON_REASONS: readonly UncordonReason[] = Object.values(UncordonReason);

/** `uncordon`: patch now. `wait`: ours, retry after `requeueAfterMs`. `skip`: not ours / not now; re-read next cycle. */
export type UncordonDecision = 'uncordon' | 'wait' | 'skip';

/** Who owns `f:spec.f:unschedulable`, classified from the managedFields manager name. */
export type CordonManagerKind =
  | 'node-termination-handler'
  | 'kubectl-cordon'
  | 'karpenter'
  | 'cluster-autoscaler'
  | 'nodes-manager'
  | 'ancient-changes'
  | 'unknown';

/** Where T (cordoned since) came from. */
export type CordonTimeSource = 'managed-fields' | 'first-seen';

/** Why the cordon counts as NTH's: its managedFields owner, or (no owner known) NTH's rebalance taint. */
export type CordonProvenance = 'managed-fields' | 'rebalance-taint';

/** UncordonEvidence — what a verdict was based on; stored with `scaling_events` rows and shown over the API. */
export interface UncordonEvidence {
  /** T, ISO 8601. */
  readonly cordonedSince?: string;
  readonly cordonedSinceSource?: CordonTimeSource;
  /** The managedFields manager owning `f:spec.f:unschedulable`, verbatim. */
  readonly cordonManager?: string;
  readonly cordonManagerKind?: CordonManagerKind;
  readonly provenance?: CordonProvenance;
  readonly rebalanceTaint?: boolean;
  readonly ready?: boolean;
  /** Ready condition's lastTransitionTime, ISO 8601. */
  readonly readySince?: string;
  /** `gracePeriodMinutes × 2^flapCount`. */
  readonly effectiveGraceMinutes?: number;
  /** k: uncordons of this node by us in the 24 h before now. */
  readonly flapCount?: number;
  readonly cordonedForMs?: number;
  /** The taints (`key:effect`) or the label/annotation that decided a skip. */
  readonly blockingTaints?: readonly string[];
  readonly blockingKey?: string;
  /** Memory PSI `full avg10` (percent) that held an uncordon back (reason MEMORY_PRESSURE). */
  readonly memoryFullAvg10?: number;
}

/** UncordonVerdict — a node's current auto-uncordon verdict, as the API returns it (`GET /api/v1/cordons`). */
export interface UncordonVerdict {
  readonly node: string;
  readonly decision: UncordonDecision;
  readonly reason: UncordonReason;
  readonly evidence: UncordonEvidence;
  readonly requeueAfterMs?: number;
  /** ISO 8601: the `now` the verdict was computed for. */
  readonly evaluatedAt: string;
}

/** DrainOptions — `kubectl drain` flags, as `POST /api/v1/nodes/{id}/drain` accepts them. */
export interface DrainOptions {
  /** Passed to each Eviction's deleteOptions; the pod's own grace period when absent. */
  readonly gracePeriodSeconds?: number;
  /** The whole drain fails when not done within this; default {@link DEFAULT_DRAIN_TIMEOUT_SECONDS}. */
  readonly timeoutSeconds: number;
  /** Evict pods without a controller (they are not recreated anywhere). */
  readonly force: boolean;
  /** Evict pods with emptyDir volumes (their data is lost). */
  readonly deleteEmptyDirData: boolean;
  /** Leave DaemonSet pods in place instead of refusing the drain. */
  readonly ignoreDaemonSets: boolean;
}
export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 600;
/** A 429 from a PodDisruptionBudget is retried this often until the drain timeout. */
export const DRAIN_PDB_RETRY_SECONDS = 5;
export const DEFAULT_DRAIN_OPTIONS: DrainOptions = {
  timeoutSeconds: DEFAULT_DRAIN_TIMEOUT_SECONDS,
  force: false,
  deleteEmptyDirData: false,
  ignoreDaemonSets: true,
};

export const DrainStatus = {
  PENDING: 'pending',
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
} as const;
export type DrainStatus = (typeof DrainStatus)[keyof typeof DrainStatus];

/** Pods a drain leaves alone. `ALREADY_TERMINATED`: the pod already has a deletionTimestamp (still awaited). */
export type DrainSkipReason = 'DAEMONSET' | 'MIRROR' | 'ALREADY_TERMINATED';
/** Pods that make a drain refuse to start (as `kubectl drain` does, before evicting anything). */
export type DrainRefuseReason = 'NO_CONTROLLER' | 'EMPTYDIR_DATA' | 'DAEMONSET_NOT_IGNORED';

/** What happened to one pod in a drain; stored per pod on the operation. */
export const DrainPodOutcome = {
  EVICTED: 'EVICTED',
  /** A finished (Succeeded/Failed) pod, deleted without an Eviction. */
  DELETED: 'DELETED',
  SKIPPED_DAEMONSET: 'SKIPPED_DAEMONSET',
  SKIPPED_MIRROR: 'SKIPPED_MIRROR',
  SKIPPED_ALREADY_TERMINATED: 'SKIPPED_ALREADY_TERMINATED',
  REFUSED_NO_CONTROLLER: 'REFUSED_NO_CONTROLLER',
  REFUSED_EMPTYDIR_DATA: 'REFUSED_EMPTYDIR_DATA',
  REFUSED_DAEMONSET_NOT_IGNORED: 'REFUSED_DAEMONSET_NOT_IGNORED',
  /** Its Eviction was still refused by a PodDisruptionBudget (429) at the timeout. */
  BLOCKED_BY_PDB: 'BLOCKED_BY_PDB',
  /** Evicted, but still present at the timeout. */
  NOT_GONE: 'NOT_GONE',
  /** The Eviction failed with an error other than 429/404. */
  EVICTION_FAILED: 'EVICTION_FAILED',
} as const;
export type DrainPodOutcome = (typeof DrainPodOutcome)[keyof typeof DrainPodOutcome];

/** Why a drain operation failed (its final result). */
export const DrainFailureReason = {
  /** Some pods are refused (no controller, emptyDir, DaemonSet) and the options do not allow them. */
  PODS_REFUSED: 'PODS_REFUSED',
  /** Timeout while a PodDisruptionBudget still refused some evictions. */
  TIMEOUT_BLOCKED_BY_PDB: 'TIMEOUT_BLOCKED_BY_PDB',
  /** Timeout while evicted pods were still terminating. */
  TIMEOUT_PODS_NOT_GONE: 'TIMEOUT_PODS_NOT_GONE',
  EVICTION_FAILED: 'EVICTION_FAILED',
  /** The node does not exist (any more). */
  NODE_NOT_FOUND: 'NODE_NOT_FOUND',
  /** The cordon write failed; nothing was evicted. */
  CORDON_FAILED: 'CORDON_FAILED',
} as const;
export type DrainFailureReason = (typeof DrainFailureReason)[keyof typeof DrainFailureReason];

/** NodeUncordonedData — `data` of a `node.uncordoned` event. */
export interface NodeUncordonedData {
  readonly node: string;
  readonly reason: UncordonReason;
  /** Plain-language summary of the evidence. */
  readonly description: string;
  readonly evidence: UncordonEvidence;
  /** ISO 8601. */
  readonly uncordonedAt: string;
  readonly rebalanceTaintRemoved: boolean;
}

/** DrainProgress — what a drain operation reports while it runs and after it ends (`drain.get`). */
export interface DrainProgress {
  readonly podsTotal: number;
  readonly podsLeft: number;
  /** Evictions refused by a PodDisruptionBudget (429), each retry counted. */
  readonly pdbWaits: number;
  readonly errors: readonly string[];
  /** How often a restarted leader picked the operation up again. */
  readonly resumed: number;
  readonly pods: ReadonlyArray<{ readonly pod: string; readonly phase: string; readonly attempts: number; readonly lastMessage?: string }>;
  readonly skipped: ReadonlyArray<{ readonly pod: string; readonly reason: string }>;
  readonly refused: ReadonlyArray<{ readonly pod: string; readonly reason: string }>;
  /** Set while a fleet-wide pause holds the drain at a safe point (no new eviction): since when (docs/pause.md). */
  readonly pausedSince?: string;
  /** Per-pod results, set when the drain ends. */
  readonly outcomes?: ReadonlyArray<{ readonly pod: string; readonly outcome: DrainPodOutcome }>;
}

/** DrainOperation — a drain as the API returns it (`POST /api/v1/nodes/{id}/drain`, `GET /api/v1/drains/{id}`). */
export interface DrainOperation {
  readonly id: string;
  readonly node: string;
  readonly status: DrainStatus;
  readonly reason?: string;
  readonly message?: string;
  readonly actor: string;
  readonly options: DrainOptions;
  readonly progress: DrainProgress | Record<string, never>;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly finishedAt?: string;
}

/** NodeDrainEventData — `data` of `node.drain.started|completed|failed`. */
export interface NodeDrainEventData {
  readonly operationId: string;
  readonly node: string;
  readonly status: DrainStatus;
  readonly reason?: string;
  readonly message?: string;
  readonly progress?: DrainProgress;
}
