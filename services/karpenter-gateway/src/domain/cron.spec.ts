import { describe, expect, it } from '@jest/globals';
import { cronMatches, parseCron, windowActive } from './cron.js';
import { parseDuration } from './kube-syntax.js';

const H = 3_600_000;

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
  ])('%s fires at %s: %s', (expr, at, fires) => {
    expect(cronMatches(parseCron(expr), new Date(at))).toBe(fires);
  });

  it.each(['0 9 * *', '60 * * * *', '* * 0 * *', '*/0 * * * *', '5-1 * * * *', '@sometimes', 'a b c d e'])('refuses %s', (expr) => {
    expect(() => parseCron(expr)).toThrow();
  });

  it.each([
    ['inside the window', '2026-03-11T16:59:00Z', true],
    ['at its opening minute', '2026-03-11T09:00:00Z', true],
    ['at its end', '2026-03-11T17:00:00Z', false],
    ['before it opens', '2026-03-11T08:59:59Z', false],
  ])('a window 0 9 * * * for 8h: %s', (_what, at, active) => {
    expect(windowActive(parseCron('0 9 * * *'), 8 * H, new Date(at))).toBe(active);
  });
});

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000], ['5m', 300_000], ['1h30m', 5_400_000], ['720h', 720 * H], ['1h30m0s', 5_400_000],
    ['1d', undefined], ['5 m', undefined], ['30m1h', undefined], ['', undefined], ['m', undefined], ['1h1h', undefined],
  ])('%s → %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});
