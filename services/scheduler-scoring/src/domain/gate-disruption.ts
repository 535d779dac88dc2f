import type { ApprovalNode } from '@nodes-manager/contracts';
import { windowState, type ApprovalMode, type MaintenanceWindow, type PauseCheck } from '@nodes-manager/disruption';
import type { ConsolidationPlan, NodeRemoval } from '@nodes-manager/scoring';

/** A planned removal the window keeps back, with the reason recorded for it. */
export interface HeldBack {
  readonly node: string;
  readonly reason: 'outside_window';
  readonly detail: string;
}

/**
 * splitByWindow — the removals whose node pool is inside a maintenance window now (or governed by none), and the
 * others, each with the window and its next opening. See docs/approvals.md.
 */
export function splitByWindow<R extends { readonly node: string } = NodeRemoval>(
  removals: readonly R[],
  poolOf: (node: string) => string | undefined,
  windows: readonly MaintenanceWindow[],
  now: Date,
): { inside: R[]; outside: HeldBack[]; opensAt?: Date } {
  const inside: R[] = [];
  const outside: HeldBack[] = [];
  let opensAt: Date | undefined;
  for (const r of removals) {
    const pool = poolOf(r.node);
    const w = windowState(windows, pool, now);
    if (w.open) {
      inside.push(r);
      continue;
    }
    if (w.opensAt && (!opensAt || w.opensAt < opensAt)) opensAt = w.opensAt;
    const next = w.opensAt ? `; it opens at ${w.opensAt.toISOString()}` : '';
    outside.push({ node: r.node, reason: 'outside_window', detail: `${r.node}${pool ? ` (NodePool ${pool})` : ''} is outside its maintenance window ${w.window ? `"${w.window}"` : ''}${next}` });
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
 * gateDisruption — while the fleet is paused (or the pause is unknown) an `automatic` plan drains nothing
 * (docs/pause.md); approvals are still requested in `manual`: asking is not disrupting. Then: in `manual` the plan becomes an approval request (one open request at a time: while one is
 * pending, approved or executing, the cycle only says so); in `automatic` the nodes inside their window are drained
 * now and the others wait (nothing starts outside a window; when no node is inside, nothing runs).
 */
export function gateDisruption(input: {
  mode: ApprovalMode;
  removals: readonly NodeRemoval[];
  poolOf: (node: string) => string | undefined;
  windows: readonly MaintenanceWindow[];
  now: Date;
  openApproval?: { id: string; status: string };
  pause?: PauseCheck;
}): DisruptionGate {
  if (input.mode === 'manual') {
    return input.openApproval ? { action: 'approval_open', approvalId: input.openApproval.id, status: input.openApproval.status } : { action: 'request_approval' };
  }
  if (input.pause && !input.pause.go) return { action: 'paused', detail: input.pause.detail };
  const split = splitByWindow(input.removals, input.poolOf, input.windows, input.now);
  if (split.inside.length === 0) return { action: 'wait_for_window', heldBack: split.outside, ...(split.opensAt ? { opensAt: split.opensAt } : {}) };
  return { action: 'execute', removals: split.inside, heldBack: split.outside };
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
