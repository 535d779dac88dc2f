import type { ApprovalStatus, FencingVerdict } from '@nodes-manager/contracts';
import type { ApprovalMode, WindowState } from '@nodes-manager/disruption';
import type { FenceCandidate } from './decide-fencing.js';

/** FenceApprovalFacts — what the gate needs of one earlier fence approval of the same node object. */
export interface FenceApprovalFacts {
  readonly id: string;
  readonly status: ApprovalStatus;
}

/** FenceGate — what a `FENCE` verdict does now, under DISRUPTION_APPROVAL for `fence` (docs/fencing.md#approval). */
export type FenceGate =
  | { readonly action: 'fence' }
  | { readonly action: 'request_approval' }
  | { readonly action: 'approval_open'; readonly approvalId: string; readonly status: ApprovalStatus }
  | { readonly action: 'rejected'; readonly approvalId: string };

const OPEN: readonly ApprovalStatus[] = ['pending', 'approved', 'executing'];

/**
 * gateFence — the approval gate of one node that the fencing rule would fence. `automatic`: fence now, as before
 * (maintenance windows do not hold an automatic fence: the node is down already, the fence only proves it).
 * `manual`: an approval request instead — unless one for this node object is still in play (pending, approved or
 * executing: wait for it), or one was rejected (an operator said no to fencing this node object: never asked again).
 * An expired request, or one that failed its re-check, is asked again while the node stays hung. `approvals` are the
 * earlier fence approvals of this node object (its uid), in any order.
 */
export function gateFence(mode: ApprovalMode, approvals: readonly FenceApprovalFacts[]): FenceGate {
  if (mode === 'automatic') return { action: 'fence' };
  const open = approvals.find((a) => OPEN.includes(a.status));
  if (open) return { action: 'approval_open', approvalId: open.id, status: open.status };
  const rejected = approvals.find((a) => a.status === 'rejected');
  if (rejected) return { action: 'rejected', approvalId: rejected.id };
  return { action: 'request_approval' };
}

/** The approved fence as it was asked: which node object. */
export interface ApprovedFence {
  readonly node: string;
  readonly nodeUid: string;
}

/** What the current cycle knows of the node: its candidate (absent when the cache has no such node) and its verdict. */
export interface FenceNow {
  /** Absent: no node of that name in the cache now. */
  readonly candidate?: FenceCandidate;
  /** This cycle's verdict of the node; absent for a Ready node. */
  readonly verdict?: FencingVerdict;
  /** DISRUPTION_WINDOWS for the node's pool, now. */
  readonly window: WindowState;
}

export type FenceRecheck =
  | { readonly go: true; readonly candidate: FenceCandidate }
  /** Outside its window: the approval is not claimed; it waits for the window. */
  | { readonly go: false; readonly wait: true; readonly opensAt?: Date }
  /** No longer holds: the approval ends with the node skipped for this reason. */
  | { readonly go: false; readonly wait: false; readonly reason: string; readonly detail: string };

/**
 * recheckApprovedFence — an approved fence is never run blindly: at execution the node must still be inside a
 * maintenance window of its pool (else the approval waits), still the same node object, still not Ready, and the
 * fencing rule must still say `FENCE` for it now (its Lease still stale, no suspected partition, not fenced since,
 * still opted in). What no longer holds is the reason the node is skipped.
 */
export function recheckApprovedFence(approved: ApprovedFence, now: FenceNow): FenceRecheck {
  if (!now.window.open) return { go: false, wait: true, ...(now.window.opensAt ? { opensAt: now.window.opensAt } : {}) };
  const c = now.candidate;
  if (!c) return { go: false, wait: false, reason: 'node_gone', detail: `node ${approved.node} is gone` };
  if (c.uid !== approved.nodeUid) return { go: false, wait: false, reason: 'node_replaced', detail: `node ${approved.node} is another node object now (${c.uid}), not the one approved (${approved.nodeUid})` };
  if (c.ready === 'True' || !now.verdict) return { go: false, wait: false, reason: 'ready_again', detail: `node ${approved.node} is Ready again` };
  if (now.verdict.decision !== 'fence') return { go: false, wait: false, reason: now.verdict.reason.toLowerCase(), detail: now.verdict.message };
  return { go: true, candidate: c };
}
