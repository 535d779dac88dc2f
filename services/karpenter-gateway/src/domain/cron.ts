/**
 * Cron schedules as Karpenter's disruption budgets take them: five fields (minute hour day-of-month month
 * day-of-week, UTC) or one of the macros `@yearly @annually @monthly @weekly @daily @midnight @hourly`.
 * Fields accept `*`, numbers, ranges `a-b`, steps `*\/s` and `a-b/s`, lists, and month/day names (JAN, MON).
 * As in Vixie cron, when both day-of-month and day-of-week are restricted a day matches either.
 */
export interface CronSchedule {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
  readonly domStar: boolean;
  readonly dowStar: boolean;
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
  namesFrom?: number;
}
const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  // 7 is Sunday too, as in most crons.
  { name: 'day of week', min: 0, max: 7, names: DAYS, namesFrom: 0 },
];

function value(token: string, f: FieldSpec): number {
  const named = f.names?.indexOf(token.toUpperCase()) ?? -1;
  if (named >= 0) return named + (f.namesFrom ?? 0);
  if (!/^\d+$/.test(token)) throw new Error(`${f.name}: "${token}" is not a number`);
  const n = Number(token);
  if (n < f.min || n > f.max) throw new Error(`${f.name}: ${n} is outside ${f.min}-${f.max}`);
  return n;
}

function parseField(text: string, f: FieldSpec): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined || range === undefined || range === '') throw new Error(`${f.name}: "${part}" is malformed`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0) throw new Error(`${f.name}: step "${stepText}" must be a positive number`);
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (range === '*') {
      lo = f.min;
      hi = f.max;
    } else if (range.includes('-')) {
      const [a, b, more] = range.split('-');
      if (more !== undefined || !a || !b) throw new Error(`${f.name}: "${range}" is malformed`);
      lo = value(a, f);
      hi = value(b, f);
      if (lo > hi) throw new Error(`${f.name}: range "${range}" runs backwards`);
    } else {
      lo = value(range, f);
      hi = stepText !== undefined ? f.max : lo;
    }
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** parseCron — the schedule, or throws an Error whose message names the bad field. */
export function parseCron(expr: string): CronSchedule {
  const text = MACROS[expr.trim()] ?? expr.trim();
  if (text.startsWith('@')) throw new Error(`unknown macro "${expr}"`);
  const parts = text.split(/\s+/);
  if (parts.length !== 5) throw new Error(`expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  const [m, h, dom, mon, dow] = parts.map((p, i) => parseField(p, FIELDS[i]!));
  if (dow!.has(7)) dow!.add(0);
  return {
    minutes: m!,
    hours: h!,
    daysOfMonth: dom!,
    months: mon!,
    daysOfWeek: dow!,
    domStar: parts[2]!.startsWith('*'),
    dowStar: parts[4]!.startsWith('*'),
  };
}

/** cronMatches — whether the schedule fires at the UTC minute containing `t`. */
export function cronMatches(s: CronSchedule, t: Date): boolean {
  if (!s.minutes.has(t.getUTCMinutes()) || !s.hours.has(t.getUTCHours()) || !s.months.has(t.getUTCMonth() + 1)) return false;
  const dom = s.daysOfMonth.has(t.getUTCDate());
  const dow = s.daysOfWeek.has(t.getUTCDay());
  if (s.domStar || s.dowStar) return dom && dow;
  return dom || dow;
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
