/**
 * Contracts of the rebalance ledger (owned by the uncordon service): what happened to each node after a Spot
 * rebalance recommendation, and the figures per Spot pool. Data only. Every string value is stored in Postgres,
 * logged and shown over the API: never rename one, only add. See docs/rebalance-ledger.md.
 */

/** NTH's taint in `taintNode` mode for a Spot interruption notice (the two-minute warning). */
export const NTH_SPOT_ITN_TAINT_KEY = 'aws-node-termination-handler/spot-itn';
/** Reasons of the Kubernetes Events NTH emits on a Node (`emitKubernetesEvents`). */
export const NTH_REBALANCE_EVENT_REASON = 'RebalanceRecommendation';
export const NTH_SPOT_INTERRUPTION_EVENT_REASON = 'SpotInterruption';
/**
 * Karpenter's own interruption handling (aws/karpenter-provider-aws, pkg/controllers/interruption/events/events.go):
 * each Event is recorded on the NodeClaim and, when it has one, on its Node. Rebalance is `Normal`, the rest `Warning`.
 */
export const KARPENTER_REBALANCE_EVENT_REASON = 'SpotRebalanceRecommendation';
export const KARPENTER_SPOT_INTERRUPTED_EVENT_REASON = 'SpotInterrupted';
export const KARPENTER_INSTANCE_TERMINATING_EVENT_REASON = 'InstanceTerminating';
export const KARPENTER_INSTANCE_STOPPING_EVENT_REASON = 'InstanceStopping';
export const KARPENTER_TERMINATING_ON_INTERRUPTION_EVENT_REASON = 'TerminatingOnInterruption';
/** Karpenter's taint on a node it is disrupting, whatever the reason (kubernetes-sigs/karpenter, pkg/apis/v1/taints.go). */
export const KARPENTER_DISRUPTED_TAINT_KEY = 'karpenter.sh/disrupted';
/** Every Event reason the ledger reads: NTH's and Karpenter's. */
export const LEDGER_EVENT_REASONS: readonly string[] = [
  'RebalanceRecommendation', 'SpotInterruption', KARPENTER_REBALANCE_EVENT_REASON, KARPENTER_SPOT_INTERRUPTED_EVENT_REASON,
];

/**
 * The systems a ledger signal comes from: Karpenter's interruption controller (Events on the Node and the NodeClaim),
 * NTH in IMDS mode (a DaemonSet reading instance metadata) or in queue mode (a Deployment reading an SQS queue) —
 * told apart by the Event's involved object (queue mode reads the Node and so sets its uid; IMDS mode names it
 * only) and by the taint value (queue mode's event ids end `-event-<id>`) — NTH in a mode that cannot be told (a
 * cordon), and EC2's own instance state. Counted per source (`nodes_manager_rebalance_signals_total`).
 */
export const LEDGER_SOURCES = ['karpenter', 'nth-imds', 'nth-queue', 'nth', 'ec2'] as const;
export type LedgerSource = (typeof LEDGER_SOURCES)[number];

/** EC2's state reason of an instance that Spot reclaimed. */
export const EC2_SPOT_TERMINATION_REASON = 'Server.SpotInstanceTermination';

/** What told us a node had a rebalance recommendation. */
export const REBALANCE_SIGNALS = ['rebalance-taint', 'nth-cordon', 'nth-event', 'karpenter-event'] as const;
export type RebalanceSignal = (typeof REBALANCE_SIGNALS)[number];

/** Where the time the rebalance was seen comes from. */
export const REBALANCE_TIME_SOURCES = ['taint-time-added', 'managed-fields', 'event-time', 'first-seen'] as const;
export type RebalanceTimeSource = (typeof REBALANCE_TIME_SOURCES)[number];

/** What told us the node was interrupted. */
export const INTERRUPTION_SOURCES = ['spot-itn-taint', 'nth-event', 'ec2-state-reason', 'karpenter-event'] as const;
export type InterruptionSource = (typeof INTERRUPTION_SOURCES)[number];

/**
 * A ledger row's outcome. `observed`, `uncordoned` and `recordoned` are on the way (the row is open); `interrupted`,
 * `removed` and `survived` are final (the row is resolved, `rebalance.resolved` is published).
 */
export const REBALANCE_OUTCOMES = ['observed', 'uncordoned', 'recordoned', 'interrupted', 'removed', 'survived'] as const;
export type RebalanceOutcome = (typeof REBALANCE_OUTCOMES)[number];
export const FINAL_REBALANCE_OUTCOMES: readonly RebalanceOutcome[] = ['interrupted', 'removed', 'survived'];

/** Kinds of evidence kept on a ledger row, each with its time. */
export const REBALANCE_EVIDENCE_KINDS = [
  'rebalance-taint',
  'nth-cordon',
  'nth-event',
  'uncordoned-by-nodes-manager',
  'uncordoned-by-other',
  'recordoned',
  'spot-itn-taint',
  'nth-interruption-event',
  'node-gone',
  'ec2-state-reason',
  'ec2-unanswered',
  'horizon-passed',
  'karpenter-rebalance-event',
  'karpenter-interruption-event',
] as const;
export type RebalanceEvidenceKind = (typeof REBALANCE_EVIDENCE_KINDS)[number];

/** RebalanceEvidence — one fact behind a ledger row's outcome. */
export interface RebalanceEvidence {
  readonly kind: RebalanceEvidenceKind;
  /** ISO 8601. */
  readonly at: string;
  readonly detail?: string;
  /** The system it came from, for a rebalance or interruption signal: one row can hold the same rebalance seen by two. */
  readonly source?: LedgerSource;
}

/** LedgerNodeIdentity — the Node object a ledger row or an interruption is about, as recorded when it was seen. */
export interface LedgerNodeIdentity {
  readonly id: string;
  readonly node: string;
  readonly nodeUid: string;
  readonly instanceId: string | null;
  readonly instanceType: string | null;
  readonly zone: string | null;
  readonly capacityType: string | null;
  readonly nodePool: string | null;
}

/** RebalanceView — one ledger row as `GET /api/v1/rebalances` and the events show it. Times ISO 8601. */
export interface RebalanceView extends LedgerNodeIdentity {
  readonly seenAt: string;
  readonly seenSignal: RebalanceSignal;
  readonly seenTimeSource: RebalanceTimeSource;
  readonly outcome: RebalanceOutcome;
  readonly resolved: boolean;
  readonly resolvedAt: string | null;
  readonly uncordonedAt: string | null;
  readonly recordonedAt: string | null;
  readonly interruptedAt: string | null;
  readonly interruptionSource: InterruptionSource | null;
  /** Rebalance seen → interruption, when interrupted. */
  readonly leadTimeMs: number | null;
  /** Time uncordoned by nodes-manager and serving before the node ended, was cordoned again or the horizon passed. */
  readonly givenBackMs: number;
  readonly evidence: readonly RebalanceEvidence[];
}

export type RebalanceObservedData = Pick<
  RebalanceView,
  'id' | 'node' | 'nodeUid' | 'instanceId' | 'instanceType' | 'zone' | 'capacityType' | 'nodePool' | 'seenAt' | 'seenSignal' | 'seenTimeSource' | 'evidence'
>;
export type RebalanceResolvedData = RebalanceView;

export interface RebalancesListQuery {
  limit: number;
  cursor?: string;
  outcome?: RebalanceOutcome;
  instanceType?: string;
  zone?: string;
  nodePool?: string;
  /** ISO 8601: rebalances seen at or after. */
  from?: string;
  /** ISO 8601: rebalances seen before. */
  to?: string;
}

export interface RebalancesSummaryQuery {
  from?: string;
  to?: string;
}

/** RebalanceFigures — what one group of rebalances came to (a pool, a type, a zone, a node pool, the cluster). */
export interface RebalanceFigures {
  /** Every rebalance in the group, open or resolved. */
  readonly rebalances: number;
  readonly open: number;
  readonly outcomes: Readonly<Record<RebalanceOutcome, number>>;
  /** interrupted + survived: the rebalances whose follow-up within the horizon is known (removed ones are censored). */
  readonly samples: number;
  readonly interrupted: number;
  /** interrupted / samples; null with no samples. */
  readonly interruptedShare: number | null;
  /** 95% Wilson score interval of the share. */
  readonly interval95: readonly [number, number] | null;
  readonly leadTimeMinutes: { readonly samples: number; readonly median: number; readonly p90: number } | null;
  readonly nodeHoursGivenBack: number;
}

/** PoolFigures — one Spot pool: instance type × zone. */
export interface PoolFigures extends RebalanceFigures {
  readonly instanceType: string | null;
  readonly zone: string | null;
}

export interface RebalancesSummary {
  readonly horizonHours: number;
  readonly from: string | null;
  readonly to: string;
  readonly cluster: RebalanceFigures;
  readonly byPool: readonly PoolFigures[];
  readonly byInstanceType: readonly (RebalanceFigures & { readonly instanceType: string | null })[];
  readonly byZone: readonly (RebalanceFigures & { readonly zone: string | null })[];
  readonly byNodePool: readonly (RebalanceFigures & { readonly nodePool: string | null })[];
}

/** InstanceState — what the ledger takes of an EC2 instance (from spot-advisor's `instances.describe`). */
export interface InstanceState {
  readonly instanceId: string;
  /** pending | running | shutting-down | terminated | stopping | stopped; `unknown` when EC2 no longer knows the id. */
  readonly state: string;
  readonly stateReasonCode: string | null;
  readonly stateReasonMessage: string | null;
}
