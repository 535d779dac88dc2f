import { describe, expect, it } from '@jest/globals';
import { instantOf, wallTime } from './time-zone.js';
import { parseWindows, windowState, type MaintenanceWindow } from './windows.js';

function windows(raw: string): MaintenanceWindow[] {
  const parsed = parseWindows(raw);
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  return parsed.windows;
}

const WEEKDAYS_BERLIN = '0 2 * * 1-5 3h Europe/Berlin';

describe('windowState', () => {
  it.each([
    ['a weekday night in Berlin winter (02:30 CET) is inside', WEEKDAYS_BERLIN, '2026-03-10T01:30:00Z', true],
    ['Berlin winter 05:00 CET is the close, outside', WEEKDAYS_BERLIN, '2026-03-10T04:00:00Z', false],
    ['Berlin winter 01:59 CET is before the opening', WEEKDAYS_BERLIN, '2026-03-10T00:59:00Z', false],
    ['a Saturday night in Berlin is outside', WEEKDAYS_BERLIN, '2026-03-14T01:30:00Z', false],
    ['Berlin summer 02:30 CEST (00:30 UTC) is inside', WEEKDAYS_BERLIN, '2026-07-07T00:30:00Z', true],
    ['Berlin summer 02:30 UTC is 04:30 CEST, inside', WEEKDAYS_BERLIN, '2026-07-07T02:30:00Z', true],
    ['Berlin summer 03:00 UTC is 05:00 CEST, outside', WEEKDAYS_BERLIN, '2026-07-07T03:00:00Z', false],
    // DST starts 2026-03-29: 02:00–03:00 does not exist, a 02:30 opening moves to 03:30 CEST (01:30 UTC).
    ['on the spring-forward night a skipped 02:30 opens at 03:30 CEST', '30 2 * * * 1h Europe/Berlin', '2026-03-29T01:45:00Z', true],
    ['on the spring-forward night 01:45 CET is before it', '30 2 * * * 1h Europe/Berlin', '2026-03-29T00:45:00Z', false],
    ['on the spring-forward night it closes an hour after 03:30 CEST', '30 2 * * * 1h Europe/Berlin', '2026-03-29T02:30:00Z', false],
    // DST ends 2026-10-25: 02:00 happens twice; the window opens at the first (00:00 UTC) and lasts 3 elapsed hours.
    ['on the fall-back night the window opens at the first 02:00 (CEST)', '0 2 * * * 3h Europe/Berlin', '2026-10-25T00:10:00Z', true],
    ['on the fall-back night it is still open at 03:30 CET', '0 2 * * * 3h Europe/Berlin', '2026-10-25T02:30:00Z', true],
    ['on the fall-back night 3 elapsed hours end at 04:00 CET', '0 2 * * * 3h Europe/Berlin', '2026-10-25T03:00:00Z', false],
    ['an overnight window is open before midnight', '0 22 * * * 8h UTC', '2026-03-11T23:00:00Z', true],
    ['an overnight window is open the next morning', '0 22 * * * 8h UTC', '2026-03-12T05:59:00Z', true],
    ['an overnight window closes at 06:00', '0 22 * * * 8h UTC', '2026-03-12T06:00:00Z', false],
    ['a Friday-night window in New York is open early on Saturday', '0 22 * * fri 10h America/New_York', '2026-03-14T07:00:00Z', true],
    ['a Friday-night window in New York is closed on Saturday noon', '0 22 * * fri 10h America/New_York', '2026-03-14T17:00:00Z', false],
    ['a quarter-hour zone (Kathmandu 03:00 = 21:15 UTC) is honoured', '0 3 * * * 1h Asia/Kathmandu', '2026-03-11T21:20:00Z', true],
    ['Kathmandu 03:00 is not 21:00 UTC', '0 3 * * * 1h Asia/Kathmandu', '2026-03-11T21:10:00Z', false],
    ['a macro opens at midnight', '@daily 1h UTC', '2026-03-11T00:30:00Z', true],
    ['either of two windows is enough', '0 2 * * * 1h UTC; 0 14 * * * 1h UTC', '2026-03-11T14:30:00Z', true],
  ])('%s', (_, raw, at, open) => {
    expect(windowState(windows(raw), undefined, new Date(at)).open).toBe(open);
  });

  it('is open at any time when no window is configured', () => {
    expect(windowState([], 'batch', new Date('2026-03-11T12:00:00Z'))).toEqual({ open: true, reason: 'no_windows' });
  });

  const perPool = windows('0 2 * * * 3h UTC; 0 12 * * * 1h UTC nodePool=batch');
  it.each([
    ['a batch node is outside at night: its own window replaces the general one', 'batch', '2026-03-11T02:30:00Z', false],
    ['a batch node is inside its own noon window', 'batch', '2026-03-11T12:30:00Z', true],
    ['a web node is outside at noon', 'web', '2026-03-11T12:30:00Z', false],
    ['a web node uses the general night window', 'web', '2026-03-11T02:30:00Z', true],
    ['a node without a pool uses the general window', undefined, '2026-03-11T02:30:00Z', true],
  ])('per pool: %s', (_, pool, at, open) => {
    expect(windowState(perPool, pool, new Date(at)).open).toBe(open);
  });

  it('says when it closes and when the next one opens', () => {
    const w = windows(WEEKDAYS_BERLIN);
    expect(windowState(w, undefined, new Date('2026-03-10T01:30:00Z'))).toMatchObject({ open: true, closesAt: new Date('2026-03-10T04:00:00Z') });
    // Friday 06:00 Berlin → the next opening is Monday 02:00 CET.
    expect(windowState(w, undefined, new Date('2026-03-13T05:00:00Z'))).toMatchObject({ open: false, opensAt: new Date('2026-03-16T01:00:00Z'), window: WEEKDAYS_BERLIN });
  });
});

describe('parseWindows', () => {
  it.each([
    ['an unknown time zone', '0 2 * * * 3h Mars/Olympus', /"Mars\/Olympus" is not an IANA time zone/],
    ['a bad duration', '0 2 * * * 3x UTC', /duration "3x"/],
    ['a zero duration', '0 2 * * * 0h UTC', /duration "0h"/],
    ['a duration over a week', '0 2 * * * 8d UTC', /longer than 7 days/],
    ['a bad cron field', '0 25 * * * 3h UTC', /hour: 25 is outside 0-23/],
    ['too few fields', '0 2 * * 3h UTC', /expected "<cron/],
    ['a bad pool name', '0 2 * * * 3h UTC nodePool=Bad_Pool', /nodePool "Bad_Pool"/],
  ])('refuses %s, naming the window', (_, raw, problem) => {
    const parsed = parseWindows(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join('; ')).toMatch(problem);
  });

  it('lists every bad window, numbered', () => {
    const parsed = parseWindows('0 2 * * * 3h UTC; 0 2 * * * 3h Nowhere; bad');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.map((p) => p.slice(0, 8))).toEqual(['window 2', 'window 3']);
  });

  it('reads an empty value as no windows', () => {
    expect(parseWindows('  ')).toEqual({ ok: true, windows: [] });
  });
});

describe('instantOf', () => {
  it.each([
    ['an ordinary Berlin winter time', { year: 2026, month: 1, day: 5, hour: 2, minute: 0 }, '2026-01-05T01:00:00Z'],
    ['a time the spring change skips moves forward by the gap', { year: 2026, month: 3, day: 29, hour: 2, minute: 30 }, '2026-03-29T01:30:00Z'],
    ['a time the autumn change repeats takes the earlier instant', { year: 2026, month: 10, day: 25, hour: 2, minute: 30 }, '2026-10-25T00:30:00Z'],
  ])('%s', (_, w, iso) => {
    expect(new Date(instantOf(w, 'Europe/Berlin')).toISOString()).toBe(new Date(iso).toISOString());
  });

  it('round-trips through wallTime', () => {
    const t = Date.parse('2026-07-01T10:17:00Z');
    expect(instantOf(wallTime(t, 'Australia/Lord_Howe'), 'Australia/Lord_Howe')).toBe(t);
  });
});
