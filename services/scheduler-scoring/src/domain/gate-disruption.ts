import type { ApprovalNode, ApprovalStatus } from '@nodes-manager/contracts';
import { admit, type Admission, type AdmissionFacts, type ApprovalPolicy, type MaintenanceWindow, type PauseCheck } from '@nodes-manager/disruption';
import type { ConsolidationPlan, NodeRemoval } from '@nodes-manager/scoring';

/** A planned removal the window keeps back, with the reason recorded for it. */
export interface HeldBack {
  readonly node: string;
  readonly reason: 'outside_window';
  readonly detail: string;
}

/** Refusal — why the disruption gate does not let an action start (libs/disruption `admit`). */
export type Refusal = Extract<Admission, { admit: false }>;

/** NodesAdmission — the gate over the nodes of one optimizer action: those inside their window, those outside, or a refusal. */
export interface NodesAdmission<R> {
  readonly inside: R[];
  readonly outside: HeldBack[];
  readonly opensAt?: Date;
  /** The pause or the approval refused the whole action (the same for every node): nothing is inside or outside. */
  readonly refused?: Refusal;
}

/**
 * admitNodes — the disruption gate (`admit('optimize', …)`, libs/disruption: the pause, then the approval, then the
 * window) over the nodes of one optimizer action. The pause and the approval are the same for every node, so the
 * first node's refusal by either is the action's; the window is each node's pool's: the nodes inside go, the others
 * are held back with the window and its next opening. See docs/approvals.md#one-gate.
 */
export function admitNodes<R extends { readonly node: string }>(removals: readonly R[], poolOf: (node: string) => string | undefined, facts: Omit<AdmissionFacts, 'nodePool'>): NodesAdmission<R> {
  const inside: R[] = [];
  const outside: HeldBack[] = [];
  let opensAt: Date | undefined;
  for (const r of removals) {
    const pool = poolOf(r.node);
    const a = admit('optimize', { ...facts, nodePool: pool });
    if (a.admit) {
      inside.push(r);
      continue;
    }
    if (a.reason !== 'outside_window') return { inside: [], outside: [], refused: a };
    if (a.opensAt && (!opensAt || a.opensAt < opensAt)) opensAt = a.opensAt;
    const next = a.opensAt ? `; it opens at ${a.opensAt.toISOString()}` : '';
    outside.push({ node: r.node, reason: 'outside_window', detail: `${r.node}${pool ? ` (NodePool ${pool})` : ''} is outside its maintenance window ${a.window ? `"${a.window}"` : ''}${next}` });
  }
  return { inside, outside, ...(opensAt ? { opensAt } : {}) };
}

/** DisruptionGate — what a cycle does with a plan that would drain nodes. */
export type DisruptionGate =
  | { readonly action: 'execute'; readonly removals: readonly NodeRemoval[]; readonly heldBack: readonly HeldBack[] }
  | { readonly action: 'wait_for_window'; readonly heldBack: readonly HeldBack[]; readonly opensAt?: Date }
  | { readonly action: 'request_approval' }
  | { readonly action: 'approval_open'; readonly approvalId: string; readonly status: string }
  | { readonly action: 'paused'; readonly detail: string };

/**
 * gateDisruption — what the optimisation cycle does with a plan, by {@link admitNodes}: paused (or the pause unknown)
 * nothing is drained nor asked for (docs/pause.md); in `manual` the plan becomes an approval request (one open
 * request at a time: while one is pending, approved or executing, the cycle only says so), whatever the hour; in
 * `automatic` the nodes inside their window are drained now and the others wait (when no node is inside, nothing runs).
 */
export function gateDisruption(input: {
  policy: ApprovalPolicy;
  removals: readonly NodeRemoval[];
  poolOf: (node: string) => string | undefined;
  windows: readonly MaintenanceWindow[];
  now: Date;
  openApproval?: { id: string; status: ApprovalStatus };
  pause: PauseCheck;
}): DisruptionGate {
  const open = input.openApproval;
  const n = admitNodes(input.removals, input.poolOf, {
    pause: input.pause,
    policy: input.policy,
    windows: input.windows,
    now: input.now,
    approval: open ? { kind: 'open', id: open.id, status: open.status } : { kind: 'none' },
  });
  if (n.refused) {
    const r = n.refused;
    if (r.reason === 'approval_open') return { action: 'approval_open', approvalId: r.approvalId, status: r.status };
    if (r.reason === 'request_approval' || r.reason === 'approval_rejected') return { action: 'request_approval' };
    return { action: 'paused', detail: r.detail };
  }
  if (n.inside.length === 0) return { action: 'wait_for_window', heldBack: n.outside, ...(n.opensAt ? { opensAt: n.opensAt } : {}) };
  return { action: 'execute', removals: n.inside, heldBack: n.outside };
}

/** approvalNodes — the plan's removals as an approval shows them: each node, its pool, why, the saving, where its pods go. */
export function approvalNodes(plan: ConsolidationPlan, poolOf: (node: string) => string | undefined): ApprovalNode[] {
  return plan.remove.map((r) => ({
    node: r.node,
    nodePool: poolOf(r.node) ?? null,
    reason: r.reason,
    utilization: r.utilization,
    savingsUsdPerHour: r.savingsUsdPerHour,
    pods: r.pods.map((p) => ({ pod: p.pod, to: p.to })),
  }));
}

/** approvalReason — why the optimizer asks: the plan in one sentence. */
export function approvalReason(plan: ConsolidationPlan, threshold: number): string {
  const empty = plan.remove.filter((r) => r.reason === 'empty').length;
  const under = plan.remove.length - empty;
  const parts = [empty ? `${empty} empty` : '', under ? `${under} under ${Math.round(threshold * 100)}% utilisation` : ''].filter(Boolean).join(' and ');
  return `Consolidation: drain ${plan.remove.length} node${plan.remove.length === 1 ? '' : 's'} (${parts}), their pods re-packed onto the nodes that stay, saving $${plan.hourlySavingsUsd.toFixed(4)}/h ($${plan.monthlySavingsUsd.toFixed(2)}/month).`;
}
