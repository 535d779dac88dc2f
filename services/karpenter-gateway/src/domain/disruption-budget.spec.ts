import { describe, expect, it } from '@jest/globals';
import { budgetActive } from './disruption-budget.js';

describe('budgetActive', () => {
  it.each([
    ['inside the window', '2026-03-11T16:59:00Z', true],
    ['at its opening minute', '2026-03-11T09:00:00Z', true],
    ['at its end', '2026-03-11T17:00:00Z', false],
    ['before it opens', '2026-03-11T08:59:59Z', false],
  ])('a budget scheduled 0 9 * * * (UTC) for 8h: %s', (_what, at, active) => {
    expect(budgetActive({ nodes: '1', schedule: '0 9 * * *', duration: '8h' }, new Date(at))).toBe(active);
  });

  it.each([
    ['a budget without a schedule is always in force', { nodes: '1' }, true],
    ['a schedule that cannot be read is taken as in force (the tighter cap)', { nodes: '1', schedule: '0 9 * *', duration: '8h' }, true],
    ['a duration that cannot be read is taken as in force', { nodes: '1', schedule: '0 9 * * *', duration: '8 hours' }, true],
    ['a month-long window of every minute is in force', { nodes: '1', schedule: '* * * * *', duration: '720h' }, true],
  ])('%s', (_what, budget, active) => {
    expect(budgetActive(budget, new Date('2026-03-11T03:00:00Z'))).toBe(active);
  });
});
