import type { Metrics } from '../health/metrics.js';

/** PDB_BLOCKED_EVENT_REASON — the reason of the Kubernetes Event on a Node a PodDisruptionBudget kept from being disrupted. */
export const PDB_BLOCKED_EVENT_REASON = 'DisruptionBlockedByPDB';

/**
 * PdbBlockedNodes — which nodes a plan or a drain could not disrupt because of a PodDisruptionBudget, and which
 * budgets (docs/pause.md#blocked): the gauge `nodes_manager_pdb_blocked_nodes{service,source,pdb}` (nodes per budget;
 * a node two budgets hold counts for each) is read from it at scrape time, and `block` answers true only when a node
 * is newly blocked, or by other budgets — when the caller writes its Kubernetes Event on the Node, so a budget that
 * holds a drain for an hour is one Event, not one per retry.
 */
export class PdbBlockedNodes {
  /** node → the budgets that hold it, sorted. */
  private readonly blocked = new Map<string, readonly string[]>();
  /** The budgets last reported, so one that no longer blocks is removed (not reset: other collectors share the gauge). */
  private reported = new Set<string>();

  constructor(metrics: Metrics, service: string, source: 'plan' | 'drain') {
    metrics.collectedGauge('nodes_manager_pdb_blocked_nodes', 'Nodes a plan or a drain could not disrupt because of a PodDisruptionBudget, per budget', ['source', 'pdb'], (g) => {
      const perPdb = new Map<string, number>();
      for (const pdbs of this.blocked.values()) for (const pdb of pdbs) perPdb.set(pdb, (perPdb.get(pdb) ?? 0) + 1);
      for (const pdb of this.reported) if (!perPdb.has(pdb)) g.remove({ service, source, pdb });
      for (const [pdb, n] of perPdb) g.set({ service, source, pdb }, n);
      this.reported = new Set(perPdb.keys());
    });
  }

  /** block — `node` is held by `pdb` (namespace/name, or several); true when this is news (not blocked, or by other budgets). */
  block(node: string, pdb: string | readonly string[]): boolean {
    const pdbs = typeof pdb === 'string' ? [pdb] : [...new Set(pdb)].sort();
    if (this.blocked.get(node)?.join('\n') === pdbs.join('\n')) return false;
    this.blocked.set(node, pdbs);
    return true;
  }

  /** clear — `node` is no longer held (disrupted, gone, or no longer planned). */
  clear(node: string): void {
    this.blocked.delete(node);
  }

  /** only — keeps only the nodes in `nodes` (a new plan: nodes it no longer blocks are cleared). */
  only(nodes: ReadonlySet<string>): void {
    for (const n of [...this.blocked.keys()]) if (!nodes.has(n)) this.blocked.delete(n);
  }

  nodes(): ReadonlyMap<string, readonly string[]> {
    return this.blocked;
  }
}
