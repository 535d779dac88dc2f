import type { ApprovalStatus, FencingVerdict } from '@nodes-manager/contracts';
import type { Admission, ApprovalInPlay, WindowState } from '@nodes-manager/disruption';
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
  | { readonly action: 'rejected'; readonly approvalId: string }
  /** Not admitted for another reason (the pause): nothing is fenced or asked. */
  | { readonly action: 'held'; readonly detail: string };

const OPEN: readonly ApprovalStatus[] = ['pending', 'approved', 'executing'];

/**
 * fenceApprovalInPlay — the earlier fence approvals of one node object (its uid, in any order) as the disruption gate
 * reads them: one still in play (pending, approved or executing: wait for it), else one rejected (an operator said no
 * to fencing this node object: never asked again), else none — an expired request, or one that failed its re-check,
 * is asked again while the node stays hung.
 */
export function fenceApprovalInPlay(approvals: readonly FenceApprovalFacts[]): ApprovalInPlay {
  const open = approvals.find((a) => OPEN.includes(a.status));
  if (open) return { kind: 'open', id: open.id, status: open.status };
  const rejected = approvals.find((a) => a.status === 'rejected');
  return rejected ? { kind: 'rejected', id: rejected.id } : { kind: 'none' };
}

/**
 * gateFence — what a FENCE verdict does, from the disruption gate's admission (`admit('fence', …)`, libs/disruption):
 * `automatic` fences now, as before (maintenance windows do not hold an automatic fence: the node is down already,
 * the fence only proves it); `manual` asks for an approval, or waits for the one in play, or — rejected — never asks
 * again.
 */
export function gateFence(a: Admission): FenceGate {
  if (a.admit) return { action: 'fence' };
  switch (a.reason) {
    case 'request_approval':
      return { action: 'request_approval' };
    case 'approval_open':
      return { action: 'approval_open', approvalId: a.approvalId, status: a.status };
    case 'approval_rejected':
      return { action: 'rejected', approvalId: a.approvalId };
    default:
      return { action: 'held', detail: a.detail };
  }
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
