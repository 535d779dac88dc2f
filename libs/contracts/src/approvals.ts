import type { ServiceName } from './events.js';

/**
 * Approvals of disruptive actions (docs/approvals.md). Data only: the kinds, the statuses, who owns each kind's
 * approvals, and the shapes the API answers.
 */

/** The disruptive actions that pass the approval and maintenance-window gate (DISRUPTION_APPROVAL names these). */
export const DisruptionKinds = ['optimize', 'consolidate', 'fence', 'steer'] as const;
export type DisruptionKind = (typeof DisruptionKinds)[number];

/**
 * ApprovalKinds — every kind an approval record has: the gated kinds, and `drain`, the record of a manual drain
 * through the API (immediate: the operator who asks is its approver, so it is recorded already executed).
 */
export const ApprovalKinds = [...DisruptionKinds, 'drain'] as const;
export type ApprovalKind = (typeof ApprovalKinds)[number];

/**
 * APPROVAL_OWNERS — the service that owns the approvals of a kind (its table, its events, its execution); the
 * gateway routes an approval id to it by the id's `<kind>-` prefix.
 */
export const APPROVAL_OWNERS: Readonly<Record<ApprovalKind, ServiceName>> = {
  optimize: 'scheduler-scoring',
  consolidate: 'karpenter-gateway',
  fence: 'uncordon',
  steer: 'karpenter-gateway',
  drain: 'uncordon',
};

export const ApprovalStatuses = ['pending', 'approved', 'rejected', 'expired', 'executing', 'executed', 'failed'] as const;
export type ApprovalStatus = (typeof ApprovalStatuses)[number];

/** approvalId — `<kind>-<uuid>`: the kind tells the gateway which service owns it. */
export const approvalId = (kind: ApprovalKind, uuid: string): string => `${kind}-${uuid}`;

/** approvalKindOf — the kind an approval id names, or undefined for an id no service issued. */
export function approvalKindOf(id: string): ApprovalKind | undefined {
  const m = /^(optimize|consolidate|fence|steer|drain)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.exec(id);
  return m ? (m[1] as ApprovalKind) : undefined;
}

/** ApprovalNode — one node the action would disrupt: why, what it saves, where its pods go. */
export interface ApprovalNode {
  node: string;
  nodePool: string | null;
  reason: string;
  utilization?: number;
  savingsUsdPerHour?: number;
  /** `namespace/name` → the node it re-packs onto. */
  pods?: { pod: string; to: string }[];
  nodeClaim?: string;
  /** The EC2 instance, for a fence. */
  instanceId?: string;
  /** Why it looks dead, for a fence: the fencing verdict's evidence when the request was made. */
  evidence?: { ready: string; notReadySince: string | null; leaseRenewedAt: string | null; leaseStaleSeconds: number | null; message: string };
}

/** ApprovalResult — what became of one node at execution. */
export interface ApprovalResult {
  node: string;
  outcome: 'started' | 'skipped' | 'failed';
  reason: string;
  detail: string;
  operationId?: string;
  nodeClaim?: string;
}

/** ApprovalView — an approval request as the API shows it. */
export interface ApprovalView {
  id: string;
  kind: ApprovalKind;
  service: ServiceName;
  status: ApprovalStatus;
  /** `cluster` for the optimizer; the NodePool for a consolidation; the node for a fence or a manual drain. */
  subject: string;
  /** Why: the plan's own words (how many nodes under which threshold, the savings). */
  reason: string;
  planId: string | null;
  nodes: ApprovalNode[];
  pdbImpact: { pdb: string; disruptionsUsed: number; disruptionsAllowed: number }[];
  hourlySavingsUsd: number | null;
  monthlySavingsUsd: number | null;
  requestedBy: string;
  requestedAt: string;
  expiresAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  comment: string | null;
  executedAt: string | null;
  results: ApprovalResult[];
  correlationId: string | null;
}

/** ApprovalsListQuery — `GET /api/v1/approvals`; `after` is the keyset (requestedAt, id) the gateway decoded from its cursor. */
export interface ApprovalsListQuery {
  limit: number;
  status?: ApprovalStatus;
  kind?: ApprovalKind;
  after?: { requestedAt: string; id: string };
}

/** ApprovalDecisionRequest — approve or reject one approval; the actor comes from the command's meta. */
export interface ApprovalDecisionRequest {
  id: string;
  comment?: string;
}
