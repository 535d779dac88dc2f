import type { ApprovalStatus } from '@nodes-manager/contracts';

/**
 * An approval's life: `pending` → `approved` | `rejected` | `expired`; `approved` → `executing` (claimed by one
 * replica with a conditional update) → `executed` (at least one node acted on) | `failed` (none: every node skipped
 * with its reason, or the run broke off). See docs/approvals.md.
 */
export const FINAL_APPROVAL_STATUSES: readonly ApprovalStatus[] = ['rejected', 'expired', 'executed', 'failed'];

export interface ApprovalFacts {
  readonly status: ApprovalStatus;
  readonly requestedBy: string;
  readonly expiresAt: Date;
}

export interface ApprovalRules {
  /** APPROVAL_DISTINCT_APPROVER: the approver must not be who requested it. */
  readonly distinctApprover: boolean;
}

/** The answer to approve/reject: the new status, or why not (with the error code the API answers). */
export type ApprovalVerdict =
  | { readonly ok: true; readonly status: 'approved' | 'rejected' }
  | { readonly ok: false; readonly code: 'CONFLICT' | 'FORBIDDEN'; readonly reason: 'not_pending' | 'expired' | 'approver_is_requester'; readonly message: string; readonly expire?: true };

/**
 * decideApproval — may `actor` approve (or reject) this approval at `now`? Only a pending one, and only before it
 * expires (an expired one is then marked expired); with `distinctApprover`, nobody approves their own request (a
 * requester may still withdraw it by rejecting).
 */
export function decideApproval(a: ApprovalFacts, action: 'approve' | 'reject', actor: string, now: Date, rules: ApprovalRules): ApprovalVerdict {
  if (a.status !== 'pending') return { ok: false, code: 'CONFLICT', reason: 'not_pending', message: `the approval is ${a.status}, not pending` };
  if (now.getTime() >= a.expiresAt.getTime()) {
    return { ok: false, code: 'CONFLICT', reason: 'expired', message: `the approval expired at ${a.expiresAt.toISOString()}`, expire: true };
  }
  if (action === 'approve' && rules.distinctApprover && actor === a.requestedBy) {
    return { ok: false, code: 'FORBIDDEN', reason: 'approver_is_requester', message: `${actor} requested this action and may not approve it (APPROVAL_DISTINCT_APPROVER)` };
  }
  return { ok: true, status: action === 'approve' ? 'approved' : 'rejected' };
}

/** isExpired — a pending approval past its deadline; only pending ones expire (an approved one waits for its window). */
export const isExpired = (a: ApprovalFacts, now: Date): boolean => a.status === 'pending' && now.getTime() >= a.expiresAt.getTime();

/** executionStatus — `executed` when at least one node was acted on, else `failed`. */
export const executionStatus = (acted: number): 'executed' | 'failed' => (acted > 0 ? 'executed' : 'failed');

/**
 * ApprovalStep — what an owner's approvals controller does with one approval now (docs/approvals.md#the-approvals-controller):
 * - `expire`: pending and at or past its deadline;
 * - `wait`: pending before its deadline — look again exactly when it falls due (`requeueAfterMs`), unless decided;
 * - `execute`: approved, and the controller carries out this owner's approvals;
 * - `fail_interrupted`: executing, seen by a controller that carries them out — under the lock every run holds, a
 *   run still marked executing is one that died;
 * - `none`: nothing to do (a final status, or approved/executing ones the owner runs elsewhere).
 */
export type ApprovalStep =
  | { readonly step: 'expire' }
  | { readonly step: 'wait'; readonly requeueAfterMs: number }
  | { readonly step: 'execute' }
  | { readonly step: 'fail_interrupted' }
  | { readonly step: 'none' };

/** nextApprovalStep — see {@link ApprovalStep}; `executes`: the controller carries out approved requests. */
export function nextApprovalStep(a: Pick<ApprovalFacts, 'status' | 'expiresAt'>, now: Date, executes: boolean): ApprovalStep {
  switch (a.status) {
    case 'pending': {
      const left = a.expiresAt.getTime() - now.getTime();
      return left <= 0 ? { step: 'expire' } : { step: 'wait', requeueAfterMs: left };
    }
    case 'approved':
      return executes ? { step: 'execute' } : { step: 'none' };
    case 'executing':
      return executes ? { step: 'fail_interrupted' } : { step: 'none' };
    default:
      return { step: 'none' };
  }
}
