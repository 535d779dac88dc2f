import { parseCron, scheduleOpenAt } from '@nodes-manager/disruption';
import { parseDuration } from './kube-syntax.js';
import { DISRUPTION_REASONS, type Budget, type DisruptionReason } from './nodepool.types.js';

/** Karpenter's default when a NodePool names no budgets (its CRD default): 10% of the pool's nodes. */
export const DEFAULT_BUDGETS: readonly Budget[] = [{ nodes: '10%' }];

/** ActiveBudget — a budget in force at `now`, with how many nodes it lets go in total. */
export interface ActiveBudget {
  readonly index: number;
  readonly nodes: string;
  readonly reasons?: readonly DisruptionReason[];
  /** Nodes this budget allows disrupted at once: the count, or ⌈percent × pool nodes⌉ (Karpenter rounds up). */
  readonly allowed: number;
}

/**
 * scaledBudget — a budget's `nodes` against a pool of `poolNodes`: "5" → 5, "10%" → ⌈0.1 × poolNodes⌉.
 * Anything unreadable allows 0 (a budget we cannot read must not be taken as permission).
 */
export function scaledBudget(nodes: string, poolNodes: number): number {
  const pct = /^(\d{1,3})%$/.exec(nodes);
  if (pct) return Math.ceil((Math.min(100, Number(pct[1])) * poolNodes) / 100);
  return /^\d+$/.test(nodes) ? Number(nodes) : 0;
}

/**
 * budgetActive — a budget without a schedule is always in force; one with `schedule` + `duration` only inside
 * the window that opens at each firing of the (UTC) cron and lasts `duration`. A schedule we cannot read is
 * taken as in force, which only ever makes the cap tighter.
 */
export function budgetActive(b: Budget, now: Date): boolean {
  if (b.schedule === undefined && b.duration === undefined) return true;
  try {
    const ms = parseDuration(String(b.duration));
    if (ms === undefined) return true;
    return scheduleOpenAt(parseCron(String(b.schedule)), ms, 'UTC', now) !== undefined;
  } catch {
    return true;
  }
}

/** activeBudgets — the pool's budgets in force at `now` (the default 10% when it names none). */
export function activeBudgets(budgets: readonly Budget[] | undefined, poolNodes: number, now: Date): ActiveBudget[] {
  return (budgets ?? DEFAULT_BUDGETS).flatMap((b, index) =>
    budgetActive(b, now)
      ? [{ index, nodes: b.nodes, ...(b.reasons ? { reasons: b.reasons } : {}), allowed: scaledBudget(String(b.nodes), poolNodes) }]
      : [],
  );
}

/** appliesTo — a budget without `reasons` caps every reason; one with reasons caps only those. */
export const appliesTo = (b: ActiveBudget, reason: DisruptionReason): boolean => !b.reasons || b.reasons.includes(reason);

/**
 * allowedDisruptions — per reason, how many more nodes may go now: the tightest budget that applies, minus the
 * nodes already being disrupted (every disrupting node counts against every budget), never below 0; null when
 * no budget applies (no cap).
 */
export function allowedDisruptions(active: readonly ActiveBudget[], disrupting: number): Record<DisruptionReason, number | null> {
  const out = {} as Record<DisruptionReason, number | null>;
  for (const r of DISRUPTION_REASONS) {
    const caps = active.filter((b) => appliesTo(b, r)).map((b) => Math.max(0, b.allowed - disrupting));
    out[r] = caps.length ? Math.min(...caps) : null;
  }
  return out;
}
