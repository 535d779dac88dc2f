import { describe, expect, it } from '@jest/globals';
import { allowance, exceeds } from './limits.js';

describe('two-number limits: passed only when more than the count and more than the percentage', () => {
  it.each<[string, number, number, number, number, boolean]>([
    ['6 of 10 (60%) passes 5 and 20%', 5, 20, 6, 10, true],
    ['2 of 3 (67%) in a small pool is within the count of 5: not passed', 5, 20, 2, 3, false],
    ['6 of 1000 (0.6%) is within 20%: not passed', 5, 20, 6, 1000, false],
    ['5 of 5 is exactly the count: not passed', 5, 20, 5, 5, false],
    ['201 of 1000 passes both', 5, 20, 201, 1000, true],
    ['nothing of nothing', 5, 20, 0, 0, false],
  ])('%s', (_t, count, percent, n, total, over) => {
    expect(exceeds({ count, percent }, n, total)).toBe(over);
  });

  it.each<[string, number, number, number, number]>([
    ['a large fleet: the percentage allows more than the count', 5, 20, 1000, 200],
    ['a small pool: the count allows what the percentage would not', 5, 20, 10, 5],
    ['no percentage: the count alone', 1, 0, 400, 1],
    ['a percentage never rounds up to a node it does not allow', 0, 20, 4, 0],
  ])('allowance — %s', (_t, count, percent, total, n) => {
    expect(allowance({ count, percent }, total)).toBe(n);
  });
});
