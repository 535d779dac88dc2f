import { describe, expect, it } from '@jest/globals';
import { parseCron } from './cron.js';
import { scheduleOpenAt } from './windows.js';

const MINUTE = 60_000;
/** fires — whether the schedule fires in the UTC minute of `at`: a one-minute window opening then is open at it. */
const fires = (expr: string, at: string): boolean => scheduleOpenAt(parseCron(expr), MINUTE, 'UTC', new Date(at)) !== undefined;

describe('cron', () => {
  it.each([
    ['0 9 * * *', '2026-03-11T09:00:00Z', true],
    ['0 9 * * *', '2026-03-11T09:01:00Z', false],
    ['*/15 * * * *', '2026-03-11T10:45:00Z', true],
    ['0 9 * * mon-fri', '2026-03-14T09:00:00Z', false], // Saturday
    ['0 9 * * MON-FRI', '2026-03-13T09:00:00Z', true],
    ['0 0 1 jan *', '2026-01-01T00:00:00Z', true],
    ['0 0 * * 7', '2026-03-15T00:00:00Z', true], // 7 is Sunday
    ['0 0 13 * 5', '2026-03-13T00:00:00Z', true], // both restricted: day 13 OR Friday
    ['0 0 13 * 5', '2026-03-20T00:00:00Z', true],
    ['0 0 13 * 5', '2026-03-19T00:00:00Z', false],
    ['@hourly', '2026-03-11T10:00:00Z', true],
    ['@weekly', '2026-03-15T00:00:00Z', true],
  ])('%s fires at %s: %s', (expr, at, expected) => {
    expect(fires(expr, at)).toBe(expected);
  });

  it.each(['0 9 * *', '60 * * * *', '* * 0 * *', '*/0 * * * *', '5-1 * * * *', '@sometimes', 'a b c d e'])('refuses %s', (expr) => {
    expect(() => parseCron(expr)).toThrow();
  });
});
