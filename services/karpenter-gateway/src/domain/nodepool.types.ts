/**
 * The parts of Karpenter's `karpenter.sh/v1` NodePool and NodeClaim that nodes-manager reads. Objects from the
 * API server carry more; these types name only what the domain uses.
 */
export const KARPENTER_GROUP = 'karpenter.sh';
export const KARPENTER_VERSION = 'v1';
export const KARPENTER_API_VERSION = `${KARPENTER_GROUP}/${KARPENTER_VERSION}`;
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
export const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
export const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';

export const DISRUPTION_REASONS = ['Underutilized', 'Empty', 'Drifted'] as const;
export type DisruptionReason = (typeof DISRUPTION_REASONS)[number];
export const CONSOLIDATION_POLICIES = ['WhenEmpty', 'WhenEmptyOrUnderutilized'] as const;

export interface ObjectMeta {
  name: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface Budget {
  nodes: string;
  schedule?: string;
  duration?: string;
  reasons?: DisruptionReason[];
}

export interface Disruption {
  consolidationPolicy?: string;
  consolidateAfter?: string;
  budgets?: Budget[];
}

export interface NodePool {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: {
    template: { metadata?: Record<string, unknown>; spec: Record<string, unknown> & { nodeClassRef?: { group: string; kind: string; name: string } } };
    disruption?: Disruption;
    limits?: Record<string, string | number>;
    weight?: number;
  };
  status?: Record<string, unknown> & { resources?: Record<string, string>; conditions?: { type: string; status: string }[] };
}

export interface NodeClaim {
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: { nodeName?: string; providerID?: string; conditions?: { type: string; status: string }[] } & Record<string, unknown>;
}
