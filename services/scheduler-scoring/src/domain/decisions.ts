import {
  planConsolidation,
  blockedWords,
  REMOVAL_WORDS,
  UNSCHEDULABLE_WORDS,
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
import type { CatalogSource } from './instance-catalog.js';

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
const catalogWords = (s: CatalogSource): string =>
  s === 'spot-advisor' ? 'instance types from EC2 through spot-advisor' : 'the bundled instance-type catalog (spot-advisor listed none)';

/**
 * decideScaleUp — the scale-up recommendation for the pending pods: `none` (`no_pending_pods`),
 * `fits_existing` (free capacity holds them all), `add_nodes` (`pending_pods_need_capacity`) or, when some can
 * go nowhere, `unschedulable` with simulate's reason. The rationale names counts, node types and cost, and
 * where prices and instance types (`catalog`) came from.
 */
export function decideScaleUp(groups: readonly SimulatePodGroup[], result: SimulateResult | undefined, source: PriceSource, catalog: CatalogSource): DecisionDraft {
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
  if (unplaced > 0) parts.push(`${unplaced} can go nowhere: ${result.unschedulable.map((u) => `${u.pod} ×${u.count} (${UNSCHEDULABLE_WORDS[u.reason]})`).join(', ')}`);
  const outcome = unplaced > 0 ? 'unschedulable' : newNodes > 0 ? 'add_nodes' : 'fits_existing';
  const reason = unplaced > 0 ? result.unschedulable[0]!.reason : newNodes > 0 ? 'pending_pods_need_capacity' : 'free_capacity_suffices';
  return {
    kind: DecisionKind.scaleUp,
    subject: 'cluster',
    outcome,
    reason,
    rationale: `${parts.join('; ')}; ${priceWords(source)}; ${catalogWords(catalog)}.`,
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
      catalogSource: catalog,
    },
  };
}

/** decidePlan — the consolidation plan as a decision: `remove_nodes` or `keep` with the reason nothing goes. */
export function decidePlan(plan: ConsolidationPlan, opts: { nodePool?: string; threshold: number; source: PriceSource; mode: string }): DecisionDraft {
  const subject = opts.nodePool ? `nodepool/${opts.nodePool}` : 'cluster';
  const blockedBy = new Map<string, number>();
  for (const b of plan.blocked) blockedBy.set(b.reason, (blockedBy.get(b.reason) ?? 0) + 1);
  const blockedList = [...blockedBy].map(([r, n]) => blockedWords(r, n)).join(', ');
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
        ? `${plan.blocked.length} node${plan.blocked.length === 1 ? '' : 's'} under ${Math.round(opts.threshold * 100)}% utilisation, none removable (${blockedList}).`
        : `No node under ${Math.round(opts.threshold * 100)}% utilisation: nothing to consolidate.`;
    return { kind: DecisionKind.consolidation, subject, outcome: 'keep', reason, rationale, score: null, details };
  }
  const names = plan.remove.map((r) => `${r.node} (${REMOVAL_WORDS[r.reason]}, ${Math.round(r.utilization * 100)}% used)`).join(', ');
  const moved = plan.remove.reduce((s, r) => s + r.pods.length, 0);
  const rationale =
    `Remove ${plan.remove.length} node${plan.remove.length === 1 ? '' : 's'}: ${names}; ${moved} pod${moved === 1 ? '' : 's'} re-pack onto the remaining nodes; ` +
    `saves ${usd(plan.hourlySavingsUsd)} ($${plan.monthlySavingsUsd.toFixed(2)}/month)` +
    (plan.blocked.length > 0 ? `; ${plan.blocked.length} other candidate${plan.blocked.length === 1 ? '' : 's'} kept (${blockedList})` : '') +
    `; ${priceWords(opts.source)}.`;
  return { kind: DecisionKind.consolidation, subject, outcome: 'remove_nodes', reason: 'underutilized_nodes', rationale, score: plan.hourlySavingsUsd, details };
}

/** Why a planned removal is not carried out now. */
export type SkipReason =
  | 'node_gone'
  | 'node_not_ready'
  | 'already_cordoned'
  | 'above_threshold'
  | 'new_blocking_pod'
  | 'pdb_exhausted'
  | 'pods_do_not_fit'
  | 'recheck_failed'
  | 'max_disruptions'
  | 'not_leader'
  | 'drain_refused'
  | 'not_in_nodepool'
  | 'not_on_demand';

/** pdbKey — a PodDisruptionBudget's `namespace/name`, the key of a run's used-budget map. */
export const pdbKey = (b: Pick<PdbInfo, 'namespace' | 'name'>): string => `${b.namespace}/${b.name}`;

/**
 * ExecutionRun — what one execution has done so far: the nodes it started draining (gone, though their pods may
 * still be bound there) and the evictions it has spent from each budget (keyed by {@link pdbKey}).
 */
export interface ExecutionRun {
  readonly gone: ReadonlySet<string>;
  readonly budgetUsed: ReadonlyMap<string, number>;
}

const emptyRun: ExecutionRun = { gone: new Set(), budgetUsed: new Map() };

/** `budgetNeed`: the evictions draining the node takes from each budget, to add to the run's `budgetUsed`. */
export type Recheck = { ok: true; budgetNeed: ReadonlyMap<string, number> } | { ok: false; reason: SkipReason; detail: string };

/**
 * recheckRemoval — the plan is stale the moment it is made: just before draining, on a fresh snapshot (the node,
 * its pods and the budgets read from the API; the rest of the cluster from the cache), the node must still exist,
 * be Ready and not cordoned (a cordoned node is already being drained), still be under the threshold, carry no
 * pod that blocks eviction (one that arrived since, or changed); every budget covering its pods must still allow
 * those evictions on top of what this run has already spent (`run.budgetUsed`, as planConsolidation shares
 * budgets across the plan); and its pods must still fit on the nodes that stay — planConsolidation re-run with
 * this node the only candidate, the nodes drained earlier in the run gone and their pods not yet moved needing
 * room as well.
 */
export function recheckRemoval(removal: NodeRemoval, now: ClusterSnapshot, threshold: number, run: ExecutionRun = emptyRun): Recheck {
  const node = now.nodes.find((n) => n.name === removal.node);
  if (!node) return { ok: false, reason: 'node_gone', detail: `${removal.node} is no longer in the cluster` };
  if (!node.ready) return { ok: false, reason: 'node_not_ready', detail: `${node.name} is not Ready` };
  if (node.unschedulable) return { ok: false, reason: 'already_cordoned', detail: `${node.name} is cordoned already (being drained)` };
  const u = utilization(node);
  if (u >= threshold) return { ok: false, reason: 'above_threshold', detail: `${node.name} is at ${Math.round(u * 100)}% now, threshold ${Math.round(threshold * 100)}%` };
  const pods = now.pods.filter((p) => p.nodeName === node.name && !terminal(p) && !ignoredForDrain(p));
  for (const p of pods) {
    const r = podBlockReason(p);
    if (r) return { ok: false, reason: 'new_blocking_pod', detail: `pod ${p.namespace}/${p.name}: ${r}` };
  }
  const budget = budgetNeed(pods, now.pdbs, run.budgetUsed);
  if (!budget.ok) return { ok: false, reason: 'pdb_exhausted', detail: budget.detail };
  const unfit = fitProblem(node.name, now, run.gone);
  if (unfit) return { ok: false, reason: 'pods_do_not_fit', detail: unfit };
  return { ok: true, budgetNeed: budget.need };
}

/** budgetNeed — the evictions `pods` take from each budget on top of `used`, or why a budget does not allow them. */
export function budgetNeed(
  pods: readonly { namespace: string; labels: Readonly<Record<string, string>> }[],
  pdbs: readonly PdbInfo[],
  used: ReadonlyMap<string, number>,
): { ok: true; need: Map<string, number> } | { ok: false; detail: string } {
  const need = new Map<string, number>();
  for (const b of pdbs) {
    let k = 0;
    for (const p of pods) {
      if (p.namespace !== b.namespace) continue;
      let match = true;
      for (const key in b.selector) if (p.labels[key] !== b.selector[key]) match = false;
      if (match) k += 1;
    }
    if (k === 0) continue;
    const spent = used.get(pdbKey(b)) ?? 0;
    if (spent + k > b.disruptionsAllowed) {
      return { ok: false, detail: `PodDisruptionBudget ${pdbKey(b)} allows ${b.disruptionsAllowed}${spent > 0 ? ` (${spent} used by this run)` : ''}, needs ${k}` };
    }
    need.set(pdbKey(b), k);
  }
  return { ok: true, need };
}

/**
 * fitProblem — why the pods of `name` (plus those still bound to the `gone` nodes) would not re-pack onto the
 * nodes that stay, or undefined. The gone nodes leave the fleet and their pods are counted as the candidate's,
 * so they need room too; threshold and budgets are checked by the caller, so neither limits this run.
 */
function fitProblem(name: string, now: ClusterSnapshot, gone: ReadonlySet<string>): string | undefined {
  const nodes = now.nodes.filter((n) => !gone.has(n.name));
  const pods =
    gone.size === 0
      ? now.pods
      : now.pods.flatMap((p) => {
          if (p.nodeName === undefined || !gone.has(p.nodeName)) return [p];
          // A pod the drain cannot evict stays where it is: it needs no room elsewhere.
          return podBlockReason(p) === undefined ? [{ ...p, nodeName: name }] : [];
        });
  const plan = planConsolidation({ nodes, pods, pdbs: [], threshold: Number.POSITIVE_INFINITY, candidates: (n) => n.name === name });
  if (plan.remove.some((r) => r.node === name)) return undefined;
  const why = plan.blocked.find((b) => b.node === name);
  return why ? `${why.detail}${gone.size > 0 ? ` (with the pods of ${[...gone].join(', ')}, drained earlier in this run)` : ''}` : `${name} is no longer a candidate`;
}
