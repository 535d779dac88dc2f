import { cronDayMatches, parseCron, type CronSchedule } from '@nodes-manager/disruption';

/**
 * Cron schedules as Karpenter's disruption budgets read them: the one parser of libs/disruption (five fields or a
 * macro; docs/approvals.md), read in UTC here — Karpenter's budgets have no time zone.
 */
export { parseCron, type CronSchedule };

/** cronMatches — whether the schedule fires at the UTC minute containing `t`. */
export function cronMatches(s: CronSchedule, t: Date): boolean {
  if (!s.minutes.includes(t.getUTCMinutes()) || !s.hours.includes(t.getUTCHours())) return false;
  return cronDayMatches(s, t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate());
}

const MINUTE = 60_000;

/**
 * windowActive — whether `now` lies inside a window that opens at a firing of the schedule and lasts
 * `durationMs`: some firing t with t ≤ now < t + duration. Scans minute by minute back over the duration
 * (a budget window is at most days long, so this stays cheap).
 */
export function windowActive(s: CronSchedule, durationMs: number, now: Date): boolean {
  const start = Math.floor(now.getTime() / MINUTE) * MINUTE;
  for (let t = start; t > now.getTime() - durationMs; t -= MINUTE) {
    if (cronMatches(s, new Date(t))) return true;
  }
  return false;
}
