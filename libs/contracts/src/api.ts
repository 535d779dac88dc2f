/**
 * Command request bodies (`data` of a CommandRequest) that the gateway validates and the owning service trusts.
 * Data only.
 */
export const NODE_STATES = ['Ready', 'NotReady', 'Cordoned', 'Draining', 'Deleted'] as const;
export type NodeState = (typeof NODE_STATES)[number];
export const CAPACITY_TYPES = ['spot', 'on-demand'] as const;
export type CapacityType = (typeof CAPACITY_TYPES)[number];

export interface Page<T> {
  items: T[];
  /** Opaque cursor of the next page; absent on the last page. */
  nextCursor?: string;
}

/** NodeView — a node as node-sync projects it and the API shows it (`nodes.list`). */
export interface NodeView {
  id: string;
  name: string;
  uid: string;
  providerId: string | null;
  instanceId: string | null;
  instanceType: string | null;
  zone: string | null;
  capacityType: string | null;
  nodePool: string | null;
  state: string;
  ready: boolean;
  unschedulable: boolean;
  taints: unknown[];
  labels: Record<string, string>;
  conditions: unknown[];
  allocatable: { cpuMilli: number; memoryBytes: number; gpu: number; pods: number };
  requested: { cpuMilli: number; memoryBytes: number; gpu: number };
  podCount: number;
  createdAt: string | null;
  firstSeenAt: string;
  lastSeenAt: string;
  changedAt: string;
  deletedAt: string | null;
}

export interface PodView {
  uid: string;
  namespace: string;
  name: string;
  phase: string | null;
  ownerKind: string | null;
  ownerName: string | null;
  workloadClass: string | null;
  qos: string | null;
  requests: { cpuMilli: number; memoryBytes: number; gpu: number };
  hasPvc: boolean;
  hasLocalStorage: boolean;
  mirror: boolean;
  daemonset: boolean;
  createdAt: string | null;
}

/** NodeDetail — one node with its annotations and running pods (`node.get`). */
export interface NodeDetail extends NodeView {
  annotations: Record<string, string>;
  pods: PodView[];
}

export interface NodesListQuery {
  state?: NodeState;
  zone?: string;
  instanceType?: string;
  capacityType?: CapacityType;
  nodePool?: string;
  includeDeleted?: boolean;
  limit: number;
  cursor?: string;
  sort: 'name' | '-name' | 'created' | '-created';
}

export interface NodeGetQuery {
  /** A node's name or its id (uuid). */
  id: string;
}

export interface DrainRequest {
  node: string;
  gracePeriodSeconds?: number;
  /** Absent: the uncordon service's DRAIN_TIMEOUT_SECONDS. */
  timeoutSeconds?: number;
  force: boolean;
  deleteEmptyDirData: boolean;
  /**
   * Set by the gateway for `POST /api/v1/nodes/{id}/drain`: an operator's drain, recorded as an executed approval of
   * kind `drain` with the operator as requester and approver (docs/approvals.md). Absent for the optimizer's drains,
   * which carry out an approval of their own.
   */
  manual?: boolean;
}

export interface PageQuery {
  limit: number;
  cursor?: string;
}

export interface EventsListQuery extends PageQuery {
  node?: string;
  action?: string;
}

export interface DecisionsListQuery extends PageQuery {
  kind?: string;
  subject?: string;
}

export interface PlacementListQuery extends PageQuery {
  namespace?: string;
  node?: string;
  workloadClass?: string;
}

export interface OptimizeTriggerRequest {
  dryRun: boolean;
}

export interface SimulatePodGroup {
  name?: string;
  count: number;
  cpu: string;
  memory: string;
  gpu?: number;
  workloadClass?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: { key?: string; operator?: 'Exists' | 'Equal'; value?: string; effect?: string }[];
  zone?: string;
}
export interface SimulateRequest {
  pods: SimulatePodGroup[];
}

export interface NodePoolNameQuery {
  name: string;
}
export interface NodePoolCreateRequest {
  nodePool: Record<string, unknown>;
}
export interface NodePoolUpdateRequest {
  name: string;
  patch: Record<string, unknown>;
}
export interface ConsolidateRequest {
  name: string;
  dryRun: boolean;
}

export interface SpotMarketQuery {
  region?: string;
  instanceTypes?: string[];
  zones?: string[];
}

export interface ProvisionRequest {
  instanceType: string;
  count: number;
  clientToken: string;
  dryRun: boolean;
  zone?: string;
  tags?: Record<string, string>;
}

/**
 * InstanceTypeFacts — one item of spot-advisor's `instancetypes.list` reply: what EC2 DescribeInstanceTypes says of a
 * type (GPUs and Neuron devices counted together in `gpus`, `gpuNames` as EC2 names them).
 */
export interface InstanceTypeFacts {
  readonly name: string;
  readonly vcpu: number;
  readonly memoryMiB: number;
  readonly gpus: number;
  readonly gpuNames: readonly string[];
  readonly architectures: readonly string[];
  readonly supportsSpot: boolean;
}
