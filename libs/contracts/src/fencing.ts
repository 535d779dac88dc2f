/**
 * Fencing of hung nodes through EC2 and node pressure (PSI): labels, reasons and the API's views. Data only.
 * The rules are in docs/fencing.md and docs/pressure.md.
 */

/** A node is fenced only when it carries this label with the value `enabled`. */
export const FENCING_LABEL = 'nodes-manager/fencing';
export const FENCING_LABEL_ENABLED = 'enabled';
/** PSI is read for nodes labelled `watch` or `relieve`; `relieve` also allows relief evictions. */
export const PRESSURE_LABEL = 'nodes-manager/pressure';
export const PRESSURE_MODES = ['watch', 'relieve'] as const;
export type PressureMode = (typeof PRESSURE_MODES)[number];
/** Kubernetes' non-graceful node shutdown taint: the control plane force-deletes the pods and detaches volumes. */
export const OUT_OF_SERVICE_TAINT = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' } as const;
/** The namespace of the kubelets' node Leases. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export const FENCING_ACTIONS = ['stop', 'terminate'] as const;
export type FencingAction = (typeof FENCING_ACTIONS)[number];

/** FencingReason — why a dead-looking node was, or was not, fenced. */
export const FencingReason = {
  /** Opted in, NotReady/Unknown, its Lease not renewed for leaseDuration + FENCING_LEASE_TIMEOUT_SECONDS. */
  FENCE: 'FENCE',
  NOT_OPTED_IN: 'NOT_OPTED_IN',
  /** The Lease was renewed recently: the kubelet still runs; look again when the timeout would pass. */
  LEASE_FRESH: 'LEASE_FRESH',
  /** No Lease in kube-node-lease: nothing proves the kubelet stopped. */
  LEASE_MISSING: 'LEASE_MISSING',
  /** Too many opted-in nodes look dead at once (per zone or overall): the control plane or network is suspect. */
  PARTITION_SUSPECTED: 'PARTITION_SUSPECTED',
  /** This node object (uid) was fenced, or a fence of it is under way: one fence per node, ever. */
  ALREADY_FENCED: 'ALREADY_FENCED',
  /** The providerID names no EC2 instance. */
  NO_INSTANCE_ID: 'NO_INSTANCE_ID',
  /** FENCING_ENABLED=false. */
  DISABLED: 'DISABLED',
  /** Disruptive actions are paused fleet-wide (docs/pause.md): it would be fenced, and is once the pause ends. */
  PAUSED: 'PAUSED',
} as const;
export type FencingReason = (typeof FencingReason)[keyof typeof FencingReason];
export const FENCING_REASONS = Object.values(FencingReason);

/** FencingStatus — the steps of one fence, each recorded before the next. */
export const FencingStatus = {
  /** The intent is recorded; the Lease is read once more before anything is done. */
  PENDING: 'pending',
  /** StopInstances/TerminateInstances was asked of EC2 (through spot-advisor); waiting for EC2 to confirm. */
  EC2_REQUESTED: 'ec2_requested',
  /** EC2 says stopped/terminated; the out-of-service taint comes next. */
  CONFIRMED: 'confirmed',
  /** The node carries the out-of-service taint; pods still bound to it are deleted after a short wait. */
  TAINTED: 'tainted',
  COMPLETED: 'completed',
  FAILED: 'failed',
  /** Nothing was done: the node renewed its Lease (or went away) before the EC2 call. */
  ABANDONED: 'abandoned',
} as const;
export type FencingStatus = (typeof FencingStatus)[keyof typeof FencingStatus];
export const FENCING_ACTIVE_STATUSES: readonly FencingStatus[] = ['pending', 'ec2_requested', 'confirmed', 'tainted'];

export const FencingFailureReason = {
  /** EC2 refused the stop/terminate (unauthorized, invalid state, not configured): the cluster was not touched. */
  EC2_REFUSED: 'EC2_REFUSED',
  /** EC2 never reported stopped/terminated within FENCING_CONFIRM_TIMEOUT_SECONDS: the cluster was not touched. */
  EC2_NOT_CONFIRMED: 'EC2_NOT_CONFIRMED',
  /** The out-of-service taint could not be set within the confirm timeout. */
  TAINT_FAILED: 'TAINT_FAILED',
  LEASE_RENEWED: 'LEASE_RENEWED',
  NODE_GONE: 'NODE_GONE',
} as const;
export type FencingFailureReason = (typeof FencingFailureReason)[keyof typeof FencingFailureReason];

/** FencingVerdict — the fencing rule's answer for one NotReady/Unknown node. */
export interface FencingVerdict {
  node: string;
  zone: string | null;
  decision: 'fence' | 'wait' | 'skip';
  reason: FencingReason;
  message: string;
  optedIn: boolean;
  ready: 'False' | 'Unknown';
  notReadySince: string | null;
  leaseRenewedAt: string | null;
  /** Seconds since the Lease's last renewal, when known. */
  leaseStaleSeconds: number | null;
  evaluatedAt: string;
}

/** PartitionShare — how many opted-in nodes look dead, overall or in one zone. */
export interface PartitionShare {
  zone?: string;
  /** Set on a share per node pool. */
  nodePool?: string;
  dead: number;
  total: number;
  percent: number;
  suspended: boolean;
}

export interface FencingStep {
  status: FencingStatus;
  at: string;
  detail?: string;
}

/** FencingOperation — one fence of one node, as the API shows it. */
export interface FencingOperation {
  id: string;
  node: string;
  nodeUid: string;
  instanceId: string;
  zone: string | null;
  action: FencingAction;
  dryRun: boolean;
  status: FencingStatus;
  reason?: string;
  message?: string;
  instanceState?: string;
  podsDeleted: number;
  actor: string;
  steps: FencingStep[];
  startedAt: string;
  updatedAt: string;
  finishedAt?: string;
}

/** FencingView — `GET /api/v1/fencing`. */
export interface FencingView {
  enabled: boolean;
  dryRun: boolean;
  action: FencingAction;
  leaseTimeoutSeconds: number;
  maxUnhealthyPercent: number;
  /** FENCING_MAX_UNHEALTHY_COUNT: fencing stops where more than this many and more than the percentage look dead (docs/fencing.md#limits). */
  maxUnhealthyCount: number;
  /** True while a suspected partition keeps fencing from starting anywhere or in some zone. */
  suspended: boolean;
  overall: PartitionShare;
  zones: PartitionShare[];
  /** Per node pool. */
  pools: PartitionShare[];
  verdicts: FencingVerdict[];
  operations: FencingOperation[];
  evaluatedAt: string | null;
}

/** PsiAverages — the share of wall time stalled, in percent, over the last 10 s and 60 s. */
export interface PsiAverages {
  avg10: number;
  avg60: number;
}

export interface PsiResource {
  some: PsiAverages;
  full: PsiAverages;
}

/** NodePressure — the last PSI reading of an opted-in node (`GET /api/v1/pressure`, and on the node view). */
export interface NodePressure {
  node: string;
  mode: PressureMode;
  /** `ok`: PSI read; `unknown`: the kubelet answers but reports no PSI; `unreachable`: the Summary API failed. */
  status: 'ok' | 'unknown' | 'unreachable';
  cpu: PsiResource | null;
  memory: PsiResource | null;
  io: PsiResource | null;
  /** Consecutive readings with memory `full avg10` above PRESSURE_MEMORY_FULL_THRESHOLD. */
  highSamples: number;
  sampledAt: string;
  lastRelief: { pod: string; at: string; outcome: string } | null;
}

/** PressureReliefOutcome — what one relief attempt did. */
export const PressureReliefOutcome = {
  EVICTED: 'evicted',
  /** A PodDisruptionBudget refused the eviction (429): nothing else is tried this interval. */
  PDB_BLOCKED: 'pdb_blocked',
  NO_CANDIDATE: 'no_candidate',
  FAILED: 'failed',
} as const;
export type PressureReliefOutcome = (typeof PressureReliefOutcome)[keyof typeof PressureReliefOutcome];

/** instance.fence — spot-advisor stops (Force) or terminates one instance. */
export interface InstanceFenceRequest {
  instanceId: string;
  action: FencingAction;
  force: boolean;
}
export interface InstanceFenceReply {
  instanceId: string;
  previousState: string;
  currentState: string;
}
/** instances.describe — the state (and state reason) of instances, by id. */
export interface InstancesDescribeRequest {
  instanceIds: string[];
}
export interface InstanceStateView {
  instanceId: string;
  state: string;
  stateReasonCode: string | null;
  instanceType: string | null;
  zone: string | null;
}
export interface InstancesDescribeReply {
  instances: InstanceStateView[];
  /** Ids EC2 does not know. */
  missing: string[];
}
