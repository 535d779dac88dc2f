import type { ConsolidationPlan } from '@nodes-manager/scoring';

/** AnnouncedBlock — the budgets a node's last Event named, and when it was written. */
export interface AnnouncedBlock {
  readonly pdbs: readonly string[];
  readonly at: Date;
}

/** Why a node's Event is written now: newly kept, kept by other budgets than the Event said, or still kept at the refresh. */
export type BlockedEventWhy = 'blocked' | 'other_budgets' | 'still_blocked';

/** BlockedEvent — one `DisruptionBlockedByPDB` Event to write (or to count once more) on a node the plan keeps. */
export interface BlockedEvent {
  readonly node: string;
  /** The budgets that hold it (`namespace/name`), sorted. */
  readonly pdbs: readonly string[];
  readonly message: string;
  readonly why: BlockedEventWhy;
}

/** blockedEventMessage — the Event's words: the plan's own detail (each budget, what it allows, what the node needs). */
export function blockedEventMessage(node: string, detail: string, budgets: number): string {
  return `the consolidation plan keeps ${node}: ${detail}; planned again once ${budgets === 1 ? 'the budget allows' : 'the budgets allow'} it`;
}

/** budgetKept — the plan's nodes a used-up PodDisruptionBudget keeps (`pdb_exhausted`), each with the budgets that hold it (`pdbs`). */
export function budgetKept(blocked: ConsolidationPlan['blocked']): { node: string; pdbs: string[]; detail: string }[] {
  return blocked.flatMap((b) => {
    if (b.reason !== 'pdb_exhausted') return [];
    const pdbs = [...(b.pdbs ?? [])].sort();
    return pdbs.length > 0 ? [{ node: b.node, pdbs, detail: b.detail }] : [];
  });
}

/**
 * decideBlockedEvents — which nodes of a consolidation plan get a `DisruptionBlockedByPDB` Event now
 * (docs/pause.md#blocked): a node kept because a PodDisruptionBudget is used up (`pdb_exhausted`) that no Event
 * announced yet, or whose Event named other budgets, or whose Event is `refreshMs` old while it is still kept (so a
 * node blocked for a day keeps one live Event, its count growing, although the API server expires Events after an
 * hour); nothing while a node stays kept by the same budgets within that time. `forget`: announced nodes the plan no
 * longer keeps for a budget — kept again later, they are news (and the recorder counts them on the same Event).
 * At most `max` Events a plan (the API server's writes are bounded, as any action per pass): the others are still
 * news for the next plan.
 */
export function decideBlockedEvents(
  blocked: ConsolidationPlan['blocked'],
  announced: ReadonlyMap<string, AnnouncedBlock>,
  now: Date,
  opts: { readonly refreshMs: number; readonly max: number },
): { events: BlockedEvent[]; forget: string[] } {
  const events: BlockedEvent[] = [];
  const kept = new Set<string>();
  for (const b of budgetKept(blocked)) {
    const pdbs = b.pdbs;
    kept.add(b.node);
    const last = announced.get(b.node);
    const why: BlockedEventWhy | undefined = !last
      ? 'blocked'
      : last.pdbs.join('\n') !== pdbs.join('\n')
        ? 'other_budgets'
        : now.getTime() - last.at.getTime() >= opts.refreshMs
          ? 'still_blocked'
          : undefined;
    if (why && events.length < opts.max) events.push({ node: b.node, pdbs, message: blockedEventMessage(b.node, b.detail, pdbs.length), why });
  }
  return { events, forget: [...announced.keys()].filter((n) => !kept.has(n)) };
}
