import { cronDayMatches, parseCron, type CronSchedule } from './cron.js';
import { addDays, instantOf, isTimeZone, steadyOffsetOn, wallTime } from './time-zone.js';

/**
 * MaintenanceWindow — a window opens at every firing of `schedule` read on the wall clock of `timeZone` and stays
 * open for `durationMs` of elapsed time (so a 3 h window that opens on the night clocks go back still closes 3 h
 * later). With `nodePool` it is that pool's window: a pool with windows of its own uses only those; every other
 * node uses the windows without a pool. See docs/approvals.md.
 */
export interface MaintenanceWindow {
  /** As written, for messages and the API. */
  readonly text: string;
  readonly schedule: CronSchedule;
  readonly durationMs: number;
  readonly timeZone: string;
  readonly nodePool?: string;
}

/** WindowState — whether disruption may start now for one node pool, and why. */
export type WindowState =
  | { readonly open: true; readonly reason: 'no_windows' }
  | { readonly open: true; readonly reason: 'inside_window'; readonly window: string; readonly closesAt: Date }
  | { readonly open: false; readonly reason: 'outside_window'; readonly opensAt?: Date; readonly window?: string };

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A window may last at most a week: beyond that it is no longer a window. */
export const MAX_WINDOW_MS = 7 * DAY;

/** parseWindowDuration — `3h`, `90m`, `1h30m`, `2d` → ms, or undefined. */
export function parseWindowDuration(text: string): number | undefined {
  const m = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$/.exec(text);
  if (!m || text === '') return undefined;
  return ((Number(m[1] ?? 0) * 24 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * MINUTE;
}

/**
 * parseWindows — DISRUPTION_WINDOWS: windows separated by `;`, each `<cron> <duration> <time zone> [nodePool=<name>]`
 * where `<cron>` is five fields or a macro, e.g. `0 2 * * 1-5 3h Europe/Berlin; 0 22 * * * 8h UTC nodePool=batch`.
 * Empty means no windows (disruption may start at any time). Every problem is listed, each naming its window.
 */
export function parseWindows(raw: string | undefined): { ok: true; windows: MaintenanceWindow[] } | { ok: false; problems: string[] } {
  const windows: MaintenanceWindow[] = [];
  const problems: string[] = [];
  const entries = (raw ?? '').split(';').map((s) => s.trim()).filter((s) => s !== '');
  entries.forEach((text, i) => {
    const where = `window ${i + 1} ("${text}")`;
    const words = text.split(/\s+/);
    let nodePool: string | undefined;
    const last = words[words.length - 1]!;
    if (last.startsWith('nodePool=')) {
      nodePool = last.slice('nodePool='.length);
      words.pop();
      if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(nodePool)) problems.push(`${where}: nodePool "${nodePool}" is not a NodePool name`);
    }
    const cronWords = words[0]?.startsWith('@') ? 1 : 5;
    if (words.length !== cronWords + 2) {
      problems.push(`${where}: expected "<cron: 5 fields or @macro> <duration> <time zone> [nodePool=<name>]"`);
      return;
    }
    const [durationText, timeZone] = words.slice(cronWords) as [string, string];
    let schedule: CronSchedule | undefined;
    try {
      schedule = parseCron(words.slice(0, cronWords).join(' '));
    } catch (err) {
      problems.push(`${where}: schedule: ${(err as Error).message}`);
    }
    const durationMs = parseWindowDuration(durationText);
    if (durationMs === undefined || durationMs <= 0) problems.push(`${where}: duration "${durationText}" must be like 3h, 90m, 1h30m or 1d`);
    else if (durationMs > MAX_WINDOW_MS) problems.push(`${where}: duration "${durationText}" is longer than 7 days`);
    if (!isTimeZone(timeZone)) problems.push(`${where}: "${timeZone}" is not an IANA time zone (e.g. Europe/Berlin, UTC)`);
    if (schedule && durationMs && durationMs <= MAX_WINDOW_MS && isTimeZone(timeZone)) {
      windows.push({ text, schedule, durationMs, timeZone, ...(nodePool ? { nodePool } : {}) });
    }
  });
  return problems.length ? { ok: false, problems } : { ok: true, windows };
}

/** Schedule — a cron schedule read on the wall clock of a time zone. */
type Schedule = Pick<MaintenanceWindow, 'schedule' | 'timeZone'>;

/** firingsOn — the instants the schedule fires on one local calendar day in its zone, ascending. */
function firingsOn(w: Schedule, y: number, m: number, d: number): number[] {
  if (!cronDayMatches(w.schedule, y, m, d)) return [];
  const steady = steadyOffsetOn(y, m, d, w.timeZone);
  const out: number[] = [];
  for (const hour of w.schedule.hours) {
    for (const minute of w.schedule.minutes) {
      out.push(steady !== undefined ? Date.UTC(y, m - 1, d, hour, minute) - steady : instantOf({ year: y, month: m, day: d, hour, minute }, w.timeZone));
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * scheduleOpenAt — the close of the window that opens at each firing of `schedule` (read on the wall clock of
 * `timeZone`) and lasts `durationMs`, if `now` is inside one (some firing t with t ≤ now < t + duration); else
 * undefined: the latest firing at or before `now` decides, looked for over the local days back to the longest
 * possible window. The one window check: maintenance windows
 * ({@link openAt}) and Karpenter's scheduled disruption budgets (read in UTC) both ask it.
 */
export function scheduleOpenAt(schedule: CronSchedule, durationMs: number, timeZone: string, now: Date): Date | undefined {
  const t = now.getTime();
  const today = wallTime(t, timeZone);
  const days = Math.ceil(durationMs / DAY) + 1;
  // The latest firing at or before now decides: an earlier one closes earlier still. Days go back from today.
  for (let back = 0; back <= days; back++) {
    const day = addDays(today.year, today.month, today.day, -back);
    const firings = firingsOn({ schedule, timeZone }, day.year, day.month, day.day);
    for (let i = firings.length - 1; i >= 0; i--) {
      const f = firings[i]!;
      if (f <= t) return t < f + durationMs ? new Date(f + durationMs) : undefined;
    }
  }
  return undefined;
}

/** openAt — the close of the window `w` if `now` is inside one of its openings, else undefined ({@link scheduleOpenAt}). */
export const openAt = (w: MaintenanceWindow, now: Date): Date | undefined => scheduleOpenAt(w.schedule, w.durationMs, w.timeZone, now);

/** nextOpening — the first firing of `w` after `now`, looked for over a year and a day (a schedule may fire yearly). */
export function nextOpening(w: MaintenanceWindow, now: Date): Date | undefined {
  const t = now.getTime();
  const today = wallTime(t, w.timeZone);
  for (let ahead = 0; ahead <= 366; ahead++) {
    const day = addDays(today.year, today.month, today.day, ahead);
    const next = firingsOn(w, day.year, day.month, day.day).find((f) => f > t);
    if (next !== undefined) return new Date(next);
  }
  return undefined;
}

/** windowsFor — the windows that govern a node of `nodePool`: the pool's own if it has any, else the general ones. */
export function windowsFor(windows: readonly MaintenanceWindow[], nodePool: string | undefined): MaintenanceWindow[] {
  const own = nodePool ? windows.filter((w) => w.nodePool === nodePool) : [];
  return own.length ? own : windows.filter((w) => w.nodePool === undefined);
}

/**
 * windowState — may a disruptive action start now on a node of `nodePool`? Open when no window governs it, or when
 * `now` is inside one of its windows (with the latest close among them); otherwise closed, with the next opening.
 * An action already running is not stopped by a window closing: this is asked only before starting.
 */
export function windowState(windows: readonly MaintenanceWindow[], nodePool: string | undefined, now: Date): WindowState {
  const governing = windowsFor(windows, nodePool);
  if (governing.length === 0) return { open: true, reason: 'no_windows' };
  let best: { window: string; closesAt: Date } | undefined;
  for (const w of governing) {
    const closesAt = openAt(w, now);
    if (closesAt && (!best || closesAt > best.closesAt)) best = { window: w.text, closesAt };
  }
  if (best) return { open: true, reason: 'inside_window', ...best };
  let next: { window: string; opensAt: Date } | undefined;
  for (const w of governing) {
    const opensAt = nextOpening(w, now);
    if (opensAt && (!next || opensAt < next.opensAt)) next = { window: w.text, opensAt };
  }
  return { open: false, reason: 'outside_window', ...(next ?? {}) };
}
