import { cronDayMatches, parseCron, type CronSchedule } from '@nodes-manager/disruption';

/**
 * NodePool disruption budgets, as kubernetes-sigs/karpenter computes them (pkg/apis/v1/nodepool.go
 * `GetAllowedDisruptionsByReason`, `Budget.GetAllowedDisruptions`, `Budget.IsActive`; the per-pool subtraction in
 * pkg/controllers/disruption/helpers.go `BuildDisruptionBudgetMapping`). See docs/karpenter-simulator.md.
 */

/** DisruptionReason — the reasons a budget can name (pkg/apis/v1/nodepool.go). */
export type DisruptionReason = 'Drifted' | 'Underutilized' | 'Empty';
export const DISRUPTION_REASONS: readonly DisruptionReason[] = ['Drifted', 'Underutilized', 'Empty'];

export interface DisruptionBudget {
  /** `"10%"` or `"3"`; a percentage of the NodePool's nodes, rounded up. */
  readonly nodes: string;
  /** Absent: the budget applies to every reason. */
  readonly reasons?: readonly string[];
  /** Cron (UTC); with `duration`, the budget is active for `duration` after each hit. */
  readonly schedule?: string;
  /** Go duration of minutes and hours: `8h`, `30m`, `1h30m`, `10m0s`. */
  readonly duration?: string;
}

export interface NodePoolBudgets {
  readonly spec?: { readonly disruption?: { readonly budgets?: readonly DisruptionBudget[] | null } };
}

/** DEFAULT_BUDGETS — the CRD's default when `budgets` is absent: one budget of 10% for every reason. */
export const DEFAULT_BUDGETS: readonly DisruptionBudget[] = [{ nodes: '10%' }];

/** UNBOUNDED — Karpenter's "no active budget limits this" (math.MaxInt32). */
export const UNBOUNDED = 2_147_483_647;

export interface BudgetCounts {
  /** The NodePool's initialized nodes that are not already terminating their instance. */
  readonly nodes: number;
  /** Of those, the ones NotReady or marked for deletion: they use up budget. */
  readonly disrupting: number;
}

export interface AllowedDisruptions {
  /** How many more nodes of the pool may start disruption for `reason` now: max(limit − disrupting, 0). */
  readonly allowed: number;
  /** The most restrictive active budget's value for `reason` (UNBOUNDED when none is active). */
  readonly limit: number;
  /** Misconfigured budgets (bad `nodes`, cron or duration): Karpenter then allows nothing at all ("fail closed"). */
  readonly errors: readonly string[];
}

/**
 * allowedDisruptions — the nodes of `nodePool` that may be disrupted for `reason` now. Each budget whose `reasons`
 * is absent or names `reason`, and that is active, limits it to `nodes` (a percentage of `counts.nodes` rounded up,
 * as intstr with roundUp, so 10% of 5 nodes is 1); the smallest limit wins; nodes already disrupting are taken off.
 * An inactive budget limits nothing. Any misconfigured budget — even one for another reason — makes it 0, as
 * `MustGetAllowedDisruptions` does.
 */
export function allowedDisruptions(nodePool: NodePoolBudgets, reason: DisruptionReason, counts: BudgetCounts, now: Date): AllowedDisruptions {
  const budgets = nodePool.spec?.disruption?.budgets ?? DEFAULT_BUDGETS;
  let limit = UNBOUNDED;
  const errors: string[] = [];
  for (const [i, b] of budgets.entries()) {
    const value = budgetValue(b, counts.nodes, now);
    if (typeof value === 'string') errors.push(`budgets[${i}]: ${value}`);
    const applies = b.reasons === undefined || b.reasons === null || b.reasons.includes(reason);
    if (applies) limit = Math.min(limit, typeof value === 'string' ? 0 : value);
  }
  if (errors.length > 0) return { allowed: 0, limit: 0, errors };
  return { allowed: Math.max(limit - counts.disrupting, 0), limit, errors };
}

/** budgetActive — `Budget.IsActive`: no schedule and no duration is always active; else a hit within the last `duration`. */
export function budgetActive(b: DisruptionBudget, now: Date): boolean | string {
  if (b.schedule === undefined && b.duration === undefined) return true;
  if (b.schedule === undefined || b.duration === undefined) return "'schedule' must be set with 'duration'";
  const ms = parseGoDuration(b.duration);
  if (ms === undefined) return `duration "${b.duration}" is not hours and minutes`;
  let schedule: CronSchedule;
  try {
    schedule = parseCron(b.schedule);
  } catch (e) {
    return `schedule "${b.schedule}": ${(e as Error).message}`;
  }
  return hitWithin(schedule, new Date(now.getTime() - ms), now);
}

/**
 * hitWithin — whether the schedule (UTC: Karpenter parses it with `TZ=UTC`) fires at some minute in (from, to]: robfig
 * cron's `Next(from)` not after `to`.
 */
export function hitWithin(s: CronSchedule, from: Date, to: Date): boolean {
  const MIN = 60_000;
  for (let t = Math.floor(from.getTime() / MIN) * MIN + MIN; t <= to.getTime(); t += MIN) {
    const d = new Date(t);
    if (s.minutes.includes(d.getUTCMinutes()) && s.hours.includes(d.getUTCHours()) && cronDayMatches(s, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())) return true;
  }
  return false;
}

function budgetValue(b: DisruptionBudget, nodes: number, now: Date): number | string {
  const active = budgetActive(b, now);
  if (typeof active === 'string') return active;
  if (!active) return UNBOUNDED;
  const m = /^(?:(100|[0-9]{1,2})%|([0-9]+))$/.exec(String(b.nodes));
  if (!m) return `nodes "${b.nodes}" is neither a count nor a percentage`;
  return m[1] !== undefined ? Math.ceil((Number(m[1]) * nodes) / 100) : Number(m[2]);
}

/** parseGoDuration — `1h30m`, `30m`, `8h`, `10m0s` (the budget CRD's pattern) in milliseconds, or undefined. */
export function parseGoDuration(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:0s)?$/.exec(text);
  if (!m || (m[1] === undefined && m[2] === undefined)) return undefined;
  return (Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60_000;
}
