/**
 * The content of an `optimize.planned` event — everything but the plan's id — and when it is news. The loop plans
 * every interval; like decisions, a plan is published when its content differs from the last plan recorded, so
 * consumers see changes, not the clock (docs/scoring.md, "Decisions recorded on change").
 */
export type PlannedMode = 'plan' | 'execute';

export interface PlannedRemoval {
  node: string;
  reason: string;
  utilization: number;
  savingsUsdPerHour: number;
}

export interface PlannedContent {
  mode: PlannedMode;
  dryRun: boolean;
  remove: PlannedRemoval[];
  blocked: number;
  hourlySavingsUsd: number;
  monthlySavingsUsd: number;
  priceSource: string;
}

/** The fields of a consolidation plan (as computed, or as stored in a plan row) the event is made of. */
export interface PlanFacts {
  remove: readonly PlannedRemoval[];
  blocked: readonly unknown[];
  hourlySavingsUsd: number;
  monthlySavingsUsd: number;
}

/** plannedContent — the event content of a plan made in `mode` with prices from `priceSource`. */
export function plannedContent(plan: PlanFacts, mode: PlannedMode, priceSource: string): PlannedContent {
  return {
    mode,
    dryRun: mode !== 'execute',
    remove: plan.remove.map((r) => ({ node: r.node, reason: r.reason, utilization: r.utilization, savingsUsdPerHour: r.savingsUsdPerHour })),
    blocked: plan.blocked.length,
    hourlySavingsUsd: plan.hourlySavingsUsd,
    monthlySavingsUsd: plan.monthlySavingsUsd,
    priceSource,
  };
}

export type PublishPlanReason = 'FIRST_PLAN' | 'CONTENT_CHANGED' | 'ASKED_BY_CALLER' | 'EXECUTING' | 'UNCHANGED';

/**
 * decidePublishPlan — publish when there is no previous plan, when the content differs from the previous plan's,
 * when a caller asked for the run (an answer they wait for), or when the plan is about to be executed (its
 * `optimize.executed` must name a plan subscribers have seen). Otherwise the plan is a repeat: recorded, not published.
 */
export function decidePublishPlan(next: PlannedContent, previous: PlannedContent | undefined, opts: { askedByCaller: boolean; executing: boolean }): { publish: boolean; reason: PublishPlanReason } {
  if (opts.askedByCaller) return { publish: true, reason: 'ASKED_BY_CALLER' };
  if (opts.executing) return { publish: true, reason: 'EXECUTING' };
  if (!previous) return { publish: true, reason: 'FIRST_PLAN' };
  if (canonical(previous) !== canonical(next)) return { publish: true, reason: 'CONTENT_CHANGED' };
  return { publish: false, reason: 'UNCHANGED' };
}

const canonical = (c: PlannedContent): string => JSON.stringify([c.mode, c.dryRun, c.remove.map((r) => [r.node, r.reason, r.utilization, r.savingsUsdPerHour]), c.blocked, c.hourlySavingsUsd, c.monthlySavingsUsd, c.priceSource]);
