import { describe, expect, it } from '@jest/globals';
import { allowance, exceeds } from './limits.js';

describe('two-number limits: a count and a percentage, both must hold', () => {
  it.each<[string, number, number, number, number, boolean]>([
    ['5 of 100 under at most 5 and 20%', 5, 20, 5, 100, false],
    ['6 of 1000 passes the count though only 0.6%', 5, 20, 6, 1000, true],
    ['3 of 6 passes 20% though under the count', 5, 20, 3, 6, true],
    ['1 of 5 (exactly 20%) holds', 5, 20, 1, 5, false],
    ['nothing of nothing holds', 5, 20, 0, 0, false],
  ])('%s', (_t, count, percent, n, total, over) => {
    expect(exceeds({ count, percent }, n, total)).toBe(over);
  });

  it.each<[string, number, number, number, number]>([
    ['a large fleet: the count caps it', 5, 20, 1000, 5],
    ['a small pool: the percentage caps it', 5, 20, 10, 2],
    ['a percentage never rounds up to a node it does not allow', 5, 20, 4, 0],
    ['100% of 3 with a count of 10: 3', 10, 100, 3, 3],
  ])('allowance — %s', (_t, count, percent, total, n) => {
    expect(allowance({ count, percent }, total)).toBe(n);
  });
});
