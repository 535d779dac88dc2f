import type { ReplaceOutcome } from '@nodes-manager/contracts';
import { ignoredForDrain, podBlockReason } from '@nodes-manager/scoring';
import { terminal, type ClusterSnapshot } from './cluster.js';
import { budgetNeed, type ExecutionRun, type Recheck, type SkipReason } from './decisions.js';

/** A node an `optimize.replace` request asks to move off, and the NodePool it was asked for. */
export interface Replacement {
  readonly node: string;
  readonly nodePool: string;
}

/**
 * recheckReplacement — the re-check before a replacement's drain, on a fresh snapshot (the node and its pods read
 * from the API, budgets read once per run and spent across it): the node must still exist, be Ready and not cordoned,
 * still belong to the NodePool it was asked for and still be on-demand (a node already Spot has nothing to move
 * off), carry no pod that blocks eviction, and every budget covering its pods must still allow those evictions on top
 * of what this run has spent. Unlike a consolidation's removal there is no threshold and no fit on the nodes that
 * stay: the point is that Karpenter launches a (Spot) node for the pods, as it does for any pending pod.
 */
export function recheckReplacement(r: Replacement, now: ClusterSnapshot, run: ExecutionRun): Recheck {
  const node = now.nodes.find((n) => n.name === r.node);
  if (!node) return { ok: false, reason: 'node_gone', detail: `${r.node} is no longer in the cluster` };
  if (!node.ready) return { ok: false, reason: 'node_not_ready', detail: `${node.name} is not Ready` };
  if (node.unschedulable) return { ok: false, reason: 'already_cordoned', detail: `${node.name} is cordoned already (being drained)` };
  if (node.nodePool !== r.nodePool) return { ok: false, reason: 'not_in_nodepool', detail: `${node.name} belongs to ${node.nodePool ? `NodePool ${node.nodePool}` : 'no NodePool'}, not ${r.nodePool}` };
  if (node.capacityType !== 'on-demand') return { ok: false, reason: 'not_on_demand', detail: `${node.name} is ${node.capacityType}, not on-demand: nothing to move off` };
  const pods = now.pods.filter((p) => p.nodeName === node.name && !terminal(p) && !ignoredForDrain(p));
  for (const p of pods) {
    const why = podBlockReason(p);
    if (why) return { ok: false, reason: 'new_blocking_pod', detail: `pod ${p.namespace}/${p.name}: ${why}` };
  }
  const budget = budgetNeed(pods, now.pdbs, run.budgetUsed);
  if (!budget.ok) return { ok: false, reason: 'pdb_exhausted', detail: budget.detail };
  return { ok: true, budgetNeed: budget.need };
}

/** Reasons a node no longer qualifies: the caller stops asking for it. Every other skip is asked again next pass. */
const REFUSED: ReadonlySet<string> = new Set<SkipReason>(['node_gone', 'not_in_nodepool', 'not_on_demand']);

/** outcomeOf — a skipped node's outcome for the caller: `refused` when it no longer qualifies, else `queued`. */
export const outcomeOf = (reason: string): ReplaceOutcome => (REFUSED.has(reason) ? 'refused' : 'queued');
