/**
 * Five-field cron schedules (minute hour day-of-month month day-of-week) or a macro (`@daily`, `@weekly`, …), read
 * against a wall clock — the time zone is the caller's (see windows.ts). Fields accept `*`, numbers, ranges `a-b`,
 * steps `*\/s` and `a-b/s`, lists, and month/day names (JAN, MON); 7 is Sunday too. As in Vixie cron, when both
 * day-of-month and day-of-week are restricted a day matches either.
 */
export interface CronSchedule {
  /** Ascending. */
  readonly minutes: readonly number[];
  /** Ascending. */
  readonly hours: readonly number[];
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
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  readonly namesFrom?: number;
}
const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, namesFrom: 1 },
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
  const asc = (s: Set<number>) => [...s].sort((a, b) => a - b);
  return {
    minutes: asc(m!),
    hours: asc(h!),
    daysOfMonth: dom!,
    months: mon!,
    daysOfWeek: dow!,
    domStar: parts[2]!.startsWith('*'),
    dowStar: parts[4]!.startsWith('*'),
  };
}

/** cronDayMatches — whether the schedule fires on the calendar day y-m-d (m 1–12); its weekday from the date itself. */
export function cronDayMatches(s: CronSchedule, y: number, m: number, d: number): boolean {
  if (!s.months.has(m)) return false;
  const dom = s.daysOfMonth.has(d);
  const dow = s.daysOfWeek.has(new Date(Date.UTC(y, m - 1, d)).getUTCDay());
  if (s.domStar || s.dowStar) return dom && dow;
  return dom || dow;
}
