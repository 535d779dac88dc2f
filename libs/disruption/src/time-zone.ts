/**
 * Wall-clock arithmetic in IANA time zones through `Intl.DateTimeFormat` (the runtime's ICU data), with no
 * dependency. A wall time that a DST change skips or repeats is resolved as Temporal's `compatible`
 * disambiguation does: a skipped time moves forward by the gap, a repeated one takes its earlier instant.
 */
export interface WallTime {
  readonly year: number;
  /** 1–12. */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** isTimeZone — whether the runtime knows the IANA zone (`Europe/Berlin`, `UTC`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** wallTime — the wall clock in `timeZone` at the instant `t` (ms since the epoch), to the minute. */
export function wallTime(t: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(t))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts['year']!, month: parts['month']!, day: parts['day']!, hour: parts['hour']! % 24, minute: parts['minute']! };
}

const MINUTE = 60_000;
const asUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
/** offsetAt — the zone's offset from UTC at instant t, in ms (whole minutes). */
const offsetAt = (t: number, timeZone: string) => asUtc(wallTime(t, timeZone)) - Math.floor(t / MINUTE) * MINUTE;
const same = (a: WallTime, b: WallTime) => a.year === b.year && a.month === b.month && a.day === b.day && a.hour === b.hour && a.minute === b.minute;

/**
 * instantOf — the instant the wall clock in `timeZone` shows `w`. The offsets half a day either side of it are
 * the two candidates (a zone changes offset at most once in a day): the earlier valid one wins (a repeated hour);
 * when neither is valid the time was skipped, and the offset from before the change moves it forward by the gap.
 */
export function instantOf(w: WallTime, timeZone: string): number {
  const guess = asUtc(w);
  const before = offsetAt(guess - 12 * 3_600_000, timeZone);
  const after = offsetAt(guess + 12 * 3_600_000, timeZone);
  const candidates = [guess - before, guess - after].filter((t) => same(wallTime(t, timeZone), w)).sort((a, b) => a - b);
  return candidates[0] ?? guess - before;
}

/**
 * steadyOffsetOn — the zone's offset from UTC (ms) throughout the local day y-m-d when it does not change from half a
 * day before the day to half a day after it, else undefined. On such a day (every day but the few around a DST change)
 * `instantOf` of any time of the day is that time as UTC minus the offset: callers that need many times of one day
 * compute them without asking the zone again.
 */
export function steadyOffsetOn(y: number, m: number, d: number, timeZone: string): number | undefined {
  const start = Date.UTC(y, m - 1, d);
  const before = offsetAt(start - 12 * 3_600_000, timeZone);
  return before === offsetAt(start + 36 * 3_600_000, timeZone) ? before : undefined;
}

/** addDays — the calendar date `n` days after y-m-d (proleptic Gregorian, no zone involved). */
export function addDays(y: number, m: number, d: number, n: number): { year: number; month: number; day: number } {
  const t = new Date(Date.UTC(y, m - 1, d + n));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}
