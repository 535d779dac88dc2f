import type { ApprovalStatus, DisruptionKind, DisruptiveAction } from '@nodes-manager/contracts';
import { approvalModeFor, type ApprovalPolicy } from './approval-mode.js';
import type { PauseCheck } from './pause.js';
import { windowState, type MaintenanceWindow, type WindowState } from './windows.js';

/**
 * The one disruption gate (docs/approvals.md#one-gate): every disruptive action, before it starts, is admitted by
 * {@link admit} in one order — **the pause, then the approval, then the window**:
 *
 * 1. the fleet-wide pause (or its state unknown) holds the action, and asks for nothing: a freeze files no requests;
 * 2. under `manual` a new action becomes an approval request (or waits for the one in play); asking is not disrupting,
 *    so it is asked whatever the window: an operator approves by day what runs in the night's window;
 * 3. the maintenance window of the subject's node pool governs the start of an automatic action, and of an approved
 *    one when it is carried out.
 *
 * Which of the three apply to an action is {@link ACTION_GATES}.
 */

/** WindowRule — when the maintenance windows hold an action: always, only once approved (an automatic one goes at once), never. */
export type WindowRule = 'always' | 'when-approved' | 'never';

export interface ActionGates {
  /** The DISRUPTION_APPROVAL kind that approves it; null: never asked for (a manual drain is recorded, not gated). */
  readonly approval: DisruptionKind | null;
  readonly window: WindowRule;
  /** Whether a pause state that is unknown holds it: every disruptive action, but not restorative auto-uncordon. */
  readonly unknownHolds: boolean;
  /** What the action is, for the docs' table. */
  readonly what: string;
}

/**
 * ACTION_GATES — which gates each disruptive action passes, after the pause (which every one passes; auto-uncordon
 * only a pause of scope `all`). docs/approvals.md's order table is generated from it (test/architecture/docs-tables.spec.ts).
 */
export const ACTION_GATES: Readonly<Record<DisruptiveAction, ActionGates>> = {
  optimize: { approval: 'optimize', window: 'always', unknownHolds: true, what: "the optimizer's drains, and on-demand replacement (`optimize.replace`)" },
  consolidate: { approval: 'consolidate', window: 'always', unknownHolds: true, what: "a NodePool consolidation's NodeClaim deletions" },
  steer: { approval: 'steer', window: 'always', unknownHolds: true, what: "steering's NodePool requirements writes" },
  fence: { approval: 'fence', window: 'when-approved', unknownHolds: true, what: 'the fence of a hung node (an automatic fence is not held by windows: the node is down already)' },
  drain: { approval: null, window: 'never', unknownHolds: true, what: "a manual drain's evictions (recorded as an executed `drain` approval, not gated)" },
  pressure_relief: { approval: null, window: 'never', unknownHolds: true, what: "pressure relief's evictions" },
  uncordon: { approval: null, window: 'never', unknownHolds: false, what: 'auto-uncordon (restorative: held only by a pause of scope `all`, not while the pause is unknown)' },
};

/**
 * ApprovalInPlay — the subject's approval as the caller knows it:
 * - `none`: none in play (none yet, or the last one expired, failed or was carried out);
 * - `open`: one pending, approved or executing that this start waits for (one open request per subject);
 * - `rejected`: an operator said no to this subject (fencing: the node object is never asked for again);
 * - `approved`: the caller is carrying out this approved request.
 */
export type ApprovalInPlay =
  | { readonly kind: 'none' }
  | { readonly kind: 'open'; readonly id: string; readonly status: ApprovalStatus }
  | { readonly kind: 'rejected'; readonly id: string }
  | { readonly kind: 'approved'; readonly id: string };

export interface AdmissionFacts {
  /** The service's pause gate's answer for this action: required (docs/pause.md#required). */
  readonly pause: PauseCheck;
  /** DISRUPTION_APPROVAL. */
  readonly policy: ApprovalPolicy;
  /** DISRUPTION_WINDOWS. */
  readonly windows: readonly MaintenanceWindow[];
  /** The node pool of the subject (a NodePool, a node's pool), whose windows govern it. */
  readonly nodePool: string | undefined;
  readonly now: Date;
  /** Default `none`. */
  readonly approval?: ApprovalInPlay;
  /**
   * The action is under way (a consolidation's next NodeClaim, a fence's EC2 call): admitted when it started, so only
   * the pause can hold its next step — a window closing does not stop it, and its approval was given.
   */
  readonly running?: boolean;
}

export type Admission =
  /** `window`: the subject's window, when the action is held by windows and was not running already. */
  | { readonly admit: true; readonly window?: WindowState }
  | { readonly admit: false; readonly reason: 'paused' | 'pause_unknown'; readonly detail: string }
  | { readonly admit: false; readonly reason: 'request_approval'; readonly detail: string }
  | { readonly admit: false; readonly reason: 'approval_open'; readonly detail: string; readonly approvalId: string; readonly status: ApprovalStatus }
  | { readonly admit: false; readonly reason: 'approval_rejected'; readonly detail: string; readonly approvalId: string }
  | { readonly admit: false; readonly reason: 'outside_window'; readonly detail: string; readonly opensAt?: Date; readonly window?: string };

/** PauseOnlyActions — the actions only the pause holds: no approval kind, no window ({@link ACTION_GATES}). */
export const PauseOnlyActions = ['drain', 'pressure_relief', 'uncordon'] as const satisfies readonly DisruptiveAction[];
export type PauseOnlyAction = (typeof PauseOnlyActions)[number];

/** What an action that only the pause holds is admitted on. */
export interface PauseOnlyFacts {
  readonly pause: PauseCheck;
}

/** GateFacts — the facts but the pause, which the service's pause gate adds (libs/platform `PauseGate.admit`). */
export type GateFacts = Omit<AdmissionFacts, 'pause'>;

/** admit — may `action` start now on its subject? The pause, then the approval, then the window (see above). */
export function admit(action: PauseOnlyAction, facts: PauseOnlyFacts): Admission;
export function admit(action: DisruptiveAction, facts: AdmissionFacts): Admission;
export function admit(action: DisruptiveAction, input: AdmissionFacts | PauseOnlyFacts): Admission {
  const gates = ACTION_GATES[action];
  // A pause-only action has no approval kind and no window: only `pause` is read.
  const facts = input as AdmissionFacts;
  const p = facts.pause;
  if (!p.go && (p.reason === 'paused' || gates.unknownHolds)) return { admit: false, reason: p.reason, detail: p.detail };
  if (facts.running) return { admit: true };
  const approval = facts.approval ?? { kind: 'none' };
  const manual = gates.approval !== null && approvalModeFor(facts.policy, gates.approval) === 'manual';
  if (manual && approval.kind !== 'approved') {
    if (approval.kind === 'open') return { admit: false, reason: 'approval_open', detail: `approval ${approval.id} is ${approval.status}`, approvalId: approval.id, status: approval.status };
    if (approval.kind === 'rejected') return { admit: false, reason: 'approval_rejected', detail: `approval ${approval.id} was rejected`, approvalId: approval.id };
    return { admit: false, reason: 'request_approval', detail: `DISRUPTION_APPROVAL: ${gates.approval} is manual` };
  }
  const windowed = gates.window === 'always' || (gates.window === 'when-approved' && approval.kind === 'approved');
  if (!windowed) return { admit: true };
  const w = windowState(facts.windows, facts.nodePool, facts.now);
  if (w.open) return { admit: true, window: w };
  const pool = facts.nodePool ? `NodePool ${facts.nodePool}` : 'it';
  return {
    admit: false,
    reason: 'outside_window',
    detail: `${pool} is outside its maintenance window${w.window ? ` "${w.window}"` : ''}${w.opensAt ? `; it opens at ${w.opensAt.toISOString()}` : ''}`,
    ...(w.opensAt ? { opensAt: w.opensAt } : {}),
    ...(w.window ? { window: w.window } : {}),
  };
}
