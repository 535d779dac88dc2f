import { describe, expect, it } from '@jest/globals';
import { knapsackMax } from './simulate/index.js';
import { mulberry32 } from './testing/prices.js';

/** bruteForce — every k vector, for tiny instances: the oracle knapsackMax must match exactly. */
function bruteForce(v: number[], q: number[][], c: number[], alloc: number[]): number {
  let best = 0;
  const k = new Array<number>(v.length).fill(0);
  const rec = (i: number, val: number, free: number[]): void => {
    if (i === v.length) {
      best = Math.max(best, val);
      return;
    }
    for (let n = 0; n <= c[i]!; n++) {
      const left = free.map((f, d) => f - n * q[i]![d]!);
      if (left.some((x) => x < -1e-9)) break;
      k[i] = n;
      rec(i + 1, val + n * v[i]!, left);
    }
  };
  rec(0, 0, alloc);
  return best;
}

describe('knapsackMax (exact pricing behind the Farley bound)', () => {
  it.each(Array.from({ length: 40 }, (_, i) => 7000 + i))('matches brute force on random instance %i', (seed) => {
    const rnd = mulberry32(seed);
    const n = 1 + Math.floor(rnd() * 4);
    const alloc = [1000 + Math.floor(rnd() * 3000), 1000 + Math.floor(rnd() * 3000), 0, 5 + Math.floor(rnd() * 10)];
    const q = Array.from({ length: n }, () => [100 + Math.floor(rnd() * 900), Math.floor(rnd() * 1500), 0, 1]);
    const v = Array.from({ length: n }, () => rnd());
    const c = Array.from({ length: n }, () => 1 + Math.floor(rnd() * 6));
    expect(knapsackMax(v, q, c, alloc, 1_000_000)).toBeCloseTo(bruteForce(v, q, c, alloc), 9);
  });

  it('gives up (undefined) rather than answer from an unfinished search', () => {
    const n = 12;
    expect(knapsackMax(new Array(n).fill(1), Array.from({ length: n }, (_, i) => [100 + i, 100 + i, 0, 1]), new Array(n).fill(5), [5000, 5000, 0, 40], 10)).toBeUndefined();
  });
});
