import { activeBudgets, allowedDisruptions, appliesTo, type ActiveBudget } from './disruption-budget.js';
import { DO_NOT_DISRUPT, type Budget, type DisruptionReason } from './nodepool.types.js';

/** ClaimCandidate — a NodeClaim of the pool as the selection needs it. */
export interface ClaimCandidate {
  readonly name: string;
  readonly nodeName?: string;
  readonly deleting: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** PlannedRemoval — one node the consolidation plan would remove (scheduler-scoring's `remove[]`). */
export interface PlannedRemoval {
  readonly node: string;
  readonly reason?: string;
}

export interface SelectionInput {
  readonly budgets: readonly Budget[] | undefined;
  readonly claims: readonly ClaimCandidate[];
  readonly planned: readonly PlannedRemoval[];
  /** Annotations of the planned nodes (absent when the node is gone). */
  readonly nodeAnnotations: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly now: Date;
}

export type SkipReason = 'no_nodeclaim' | 'already_deleting' | 'nodeclaim_do_not_disrupt' | 'node_do_not_disrupt' | 'pod_do_not_disrupt' | 'budget_exhausted' | 'duplicate' | 'paused';

export interface SelectedClaim {
  readonly nodeClaim: string;
  readonly node: string;
  readonly reason: DisruptionReason;
}

export interface ClaimSelection {
  readonly selected: readonly SelectedClaim[];
  readonly skipped: readonly { readonly node: string; readonly nodeClaim?: string; readonly reason: SkipReason }[];
  readonly budget: {
    readonly poolNodes: number;
    readonly disrupting: number;
    readonly active: readonly ActiveBudget[];
    /** Per reason, how many NodeClaims could go before this selection (null: no budget caps it). */
    readonly allowed: Readonly<Record<DisruptionReason, number | null>>;
  };
}

/** disruptionReason — the plan's removal reason as Karpenter's budget reason (`empty` → Empty, else Underutilized). */
export const disruptionReason = (r: string | undefined): DisruptionReason => (r === 'empty' ? 'Empty' : 'Underutilized');

/**
 * selectNodeClaims — which of the pool's NodeClaims to delete for the planned removals, in plan order:
 * a planned node needs a NodeClaim of the pool (`status.nodeName`) that is not already being deleted, and
 * neither that NodeClaim nor its node may carry `karpenter.sh/do-not-disrupt: "true"`. Every selection spends
 * one node from each budget in force that applies to its reason; a budget's room is its allowed nodes minus the
 * pool's NodeClaims already being deleted, so the selection never exceeds what the pool's budgets allow now.
 * Pure: `now` decides which scheduled budgets are in force.
 */
export function selectNodeClaims(input: SelectionInput): ClaimSelection {
  const poolNodes = input.claims.length;
  const disrupting = input.claims.filter((c) => c.deleting).length;
  const active = activeBudgets(input.budgets, poolNodes, input.now);
  const room = new Map(active.map((b) => [b.index, Math.max(0, b.allowed - disrupting)]));
  const byNode = new Map(input.claims.filter((c) => c.nodeName).map((c) => [c.nodeName!, c]));
  const selected: SelectedClaim[] = [];
  const skipped: { node: string; nodeClaim?: string; reason: SkipReason }[] = [];
  const seen = new Set<string>();
  for (const p of input.planned) {
    if (seen.has(p.node)) {
      skipped.push({ node: p.node, reason: 'duplicate' });
      continue;
    }
    seen.add(p.node);
    const claim = byNode.get(p.node);
    if (!claim) {
      skipped.push({ node: p.node, reason: 'no_nodeclaim' });
      continue;
    }
    const skip = (reason: SkipReason) => skipped.push({ node: p.node, nodeClaim: claim.name, reason });
    if (claim.deleting) {
      skip('already_deleting');
      continue;
    }
    if (claim.annotations?.[DO_NOT_DISRUPT] === 'true') {
      skip('nodeclaim_do_not_disrupt');
      continue;
    }
    if (input.nodeAnnotations.get(p.node)?.[DO_NOT_DISRUPT] === 'true') {
      skip('node_do_not_disrupt');
      continue;
    }
    const reason = disruptionReason(p.reason);
    const applying = active.filter((b) => appliesTo(b, reason));
    if (applying.some((b) => room.get(b.index)! <= 0)) {
      skip('budget_exhausted');
      continue;
    }
    for (const b of applying) room.set(b.index, room.get(b.index)! - 1);
    selected.push({ nodeClaim: claim.name, node: p.node, reason });
  }
  return { selected, skipped, budget: { poolNodes, disrupting, active, allowed: allowedDisruptions(active, disrupting) } };
}
