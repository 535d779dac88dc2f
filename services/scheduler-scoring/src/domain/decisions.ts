import {
  podBlockReason,
  ignoredForDrain,
  utilization,
  type ConsolidationPlan,
  type NodeRemoval,
  type PdbInfo,
  type SimulatePodGroup,
  type SimulateResult,
} from '@nodes-manager/scoring';
import { terminal, type ClusterSnapshot, type PriceSource } from './cluster.js';

/** Decision kinds in `scheduling_decisions`. */
export const DecisionKind = {
  scaleUp: 'scale_up',
  consolidation: 'consolidation',
  consolidationAction: 'consolidation_action',
} as const;
export type DecisionKind = (typeof DecisionKind)[keyof typeof DecisionKind];

/** DecisionDraft — a decision before it gets an id, a time and an actor. */
export interface DecisionDraft {
  readonly kind: DecisionKind;
  readonly subject: string;
  readonly outcome: string;
  readonly reason: string;
  readonly rationale: string;
  readonly score: number | null;
  readonly details: Record<string, unknown>;
}

const usd = (x: number): string => `$${x.toFixed(x < 1 ? 4 : 2)}/h`;
const priceWords = (s: PriceSource): string => (s === 'spot-advisor' ? 'prices from spot-advisor' : 'bundled On-Demand prices (Spot unknown: spot-advisor did not answer)');

/**
 * decideScaleUp — the scale-up recommendation for the pending pods: `none` (`no_pending_pods`),
 * `fits_existing` (free capacity holds them all), `add_nodes` (`pending_pods_need_capacity`) or, when some can
 * go nowhere, `unschedulable` with simulate's reason. The rationale names counts, node types and cost.
 */
export function decideScaleUp(groups: readonly SimulatePodGroup[], result: SimulateResult | undefined, source: PriceSource): DecisionDraft {
  const pending = groups.reduce((s, g) => s + g.count, 0);
  if (pending === 0 || !result) {
    return { kind: DecisionKind.scaleUp, subject: 'cluster', outcome: 'none', reason: 'no_pending_pods', rationale: 'No pending pods: no capacity to add.', score: null, details: { pendingPods: 0, priceSource: source } };
  }
  const newNodes = result.additions.reduce((s, a) => s + a.count, 0);
  const unplaced = result.unschedulable.reduce((s, u) => s + u.count, 0);
  const parts = [`${pending} pending pod${pending === 1 ? '' : 's'} in ${groups.length} group${groups.length === 1 ? '' : 's'}`];
  if (result.placedOnExistingCount > 0) parts.push(`${result.placedOnExistingCount} fit the free capacity of existing nodes`);
  if (newNodes > 0) {
    const list = result.additions.map((a) => `${a.count}× ${a.instanceType} ${a.capacityType} in ${a.zone}`).join(', ');
    parts.push(`add ${newNodes} node${newNodes === 1 ? '' : 's'} (${list}) for ${usd(result.hourlyCostUsd)} (${result.algorithm})`);
  }
  if (unplaced > 0) parts.push(`${unplaced} can go nowhere: ${result.unschedulable.map((u) => `${u.pod} ×${u.count} ${u.reason}`).join(', ')}`);
  const outcome = unplaced > 0 ? 'unschedulable' : newNodes > 0 ? 'add_nodes' : 'fits_existing';
  const reason = unplaced > 0 ? result.unschedulable[0]!.reason : newNodes > 0 ? 'pending_pods_need_capacity' : 'free_capacity_suffices';
  return {
    kind: DecisionKind.scaleUp,
    subject: 'cluster',
    outcome,
    reason,
    rationale: `${parts.join('; ')}; ${priceWords(source)}.`,
    score: null,
    details: {
      pendingPods: pending,
      groups: groups.map((g) => ({ name: g.name, count: g.count, class: g.class })),
      placedOnExisting: result.placedOnExistingCount,
      additions: result.additions,
      hourlyCostUsd: result.hourlyCostUsd,
      unschedulable: result.unschedulable,
      algorithm: result.algorithm,
      priceSource: source,
    },
  };
}

/** decidePlan — the consolidation plan as a decision: `remove_nodes` or `keep` with the reason nothing goes. */
export function decidePlan(plan: ConsolidationPlan, opts: { nodePool?: string; threshold: number; source: PriceSource; mode: string }): DecisionDraft {
  const subject = opts.nodePool ? `nodepool/${opts.nodePool}` : 'cluster';
  const blockedBy = new Map<string, number>();
  for (const b of plan.blocked) blockedBy.set(b.reason, (blockedBy.get(b.reason) ?? 0) + 1);
  const blockedWords = [...blockedBy].map(([r, n]) => `${n} ${r}`).join(', ');
  const details = {
    remove: plan.remove.map((r) => ({ node: r.node, reason: r.reason, utilization: r.utilization, pods: r.pods.length, savingsUsdPerHour: r.savingsUsdPerHour })),
    blocked: plan.blocked,
    pdbImpact: plan.pdbImpact.filter((p) => p.disruptionsUsed > 0),
    hourlySavingsUsd: plan.hourlySavingsUsd,
    monthlySavingsUsd: plan.monthlySavingsUsd,
    threshold: opts.threshold,
    mode: opts.mode,
    priceSource: opts.source,
    ...(opts.nodePool ? { nodePool: opts.nodePool } : {}),
  };
  if (plan.remove.length === 0) {
    const reason = plan.blocked.length > 0 ? 'candidates_blocked' : 'no_underutilized_nodes';
    const rationale =
      plan.blocked.length > 0
        ? `${plan.blocked.length} node${plan.blocked.length === 1 ? '' : 's'} under ${Math.round(opts.threshold * 100)}% utilisation, none removable (${blockedWords}).`
        : `No node under ${Math.round(opts.threshold * 100)}% utilisation: nothing to consolidate.`;
    return { kind: DecisionKind.consolidation, subject, outcome: 'keep', reason, rationale, score: null, details };
  }
  const names = plan.remove.map((r) => `${r.node} (${r.reason}, ${Math.round(r.utilization * 100)}%)`).join(', ');
  const moved = plan.remove.reduce((s, r) => s + r.pods.length, 0);
  const rationale =
    `Remove ${plan.remove.length} node${plan.remove.length === 1 ? '' : 's'}: ${names}; ${moved} pod${moved === 1 ? '' : 's'} re-pack onto the remaining nodes; ` +
    `saves ${usd(plan.hourlySavingsUsd)} ($${plan.monthlySavingsUsd.toFixed(2)}/month)` +
    (plan.blocked.length > 0 ? `; ${plan.blocked.length} other candidate${plan.blocked.length === 1 ? '' : 's'} kept (${blockedWords})` : '') +
    `; ${priceWords(opts.source)}.`;
  return { kind: DecisionKind.consolidation, subject, outcome: 'remove_nodes', reason: 'underutilized_nodes', rationale, score: plan.hourlySavingsUsd, details };
}

/** Why a planned removal is not carried out now. */
export type SkipReason = 'node_gone' | 'node_not_ready' | 'above_threshold' | 'new_blocking_pod' | 'pdb_exhausted' | 'max_disruptions' | 'not_leader' | 'drain_refused';

export type Recheck = { ok: true } | { ok: false; reason: SkipReason; detail: string };

/**
 * recheckRemoval — the plan is stale the moment it is made: just before draining, on a fresh snapshot, the node
 * must still exist and be Ready, still be under the threshold, carry no pod that blocks eviction (one that
 * arrived since, or changed), and every budget covering its pods must still allow those evictions.
 */
export function recheckRemoval(removal: NodeRemoval, now: ClusterSnapshot, threshold: number): Recheck {
  const node = now.nodes.find((n) => n.name === removal.node);
  if (!node) return { ok: false, reason: 'node_gone', detail: `${removal.node} is no longer in the cluster` };
  if (!node.ready) return { ok: false, reason: 'node_not_ready', detail: `${node.name} is not Ready` };
  const u = utilization(node);
  if (u >= threshold) return { ok: false, reason: 'above_threshold', detail: `${node.name} is at ${Math.round(u * 100)}% now, threshold ${Math.round(threshold * 100)}%` };
  const pods = now.pods.filter((p) => p.nodeName === node.name && !terminal(p) && !ignoredForDrain(p));
  for (const p of pods) {
    const r = podBlockReason(p);
    if (r) return { ok: false, reason: 'new_blocking_pod', detail: `pod ${p.namespace}/${p.name}: ${r}` };
  }
  const exhausted = budgetShortfall(pods, now.pdbs);
  if (exhausted) return { ok: false, reason: 'pdb_exhausted', detail: exhausted };
  return { ok: true };
}

function budgetShortfall(pods: readonly { namespace: string; labels: Readonly<Record<string, string>> }[], pdbs: readonly PdbInfo[]): string | undefined {
  for (const b of pdbs) {
    let need = 0;
    for (const p of pods) {
      if (p.namespace !== b.namespace) continue;
      let match = true;
      for (const k in b.selector) if (p.labels[k] !== b.selector[k]) match = false;
      if (match) need += 1;
    }
    if (need > b.disruptionsAllowed) return `PodDisruptionBudget ${b.namespace}/${b.name} allows ${b.disruptionsAllowed}, needs ${need}`;
  }
  return undefined;
}
