/**
 * Two-number limits (docs/fencing.md#limits): every disruptive budget of nodes-manager is a count and a percentage,
 * and both must hold — an absolute cap protects a large fleet from a percentage that is many nodes, a percentage
 * protects a small pool from a count that is all of it (EKS node repair stops at more than 5 nodes and more than 20%;
 * Karpenter's fixed 20% alone means small pools never repair).
 */

/** TwoNumberLimit — at most `count` nodes and at most `percent` % of the set, both. */
export interface TwoNumberLimit {
  readonly count: number;
  readonly percent: number;
}

/** exceeds — `n` of `total` passes the limit: more than its count, or more than its percentage of `total`. */
export function exceeds(limit: TwoNumberLimit, n: number, total: number): boolean {
  if (n > limit.count) return true;
  return total > 0 && (n / total) * 100 > limit.percent;
}

/**
 * allowance — how many of `total` may be disrupted at once under the limit: the smaller of the count and the
 * percentage of `total` rounded down (a percentage never rounds up to a node it does not allow).
 */
export function allowance(limit: TwoNumberLimit, total: number): number {
  return Math.max(0, Math.min(limit.count, Math.floor((total * limit.percent) / 100)));
}

/** limitWords — the limit in words, for reasons and logs: "at most 5 nodes and 20%". */
export function limitWords(limit: TwoNumberLimit): string {
  return `at most ${limit.count} node${limit.count === 1 ? '' : 's'} and ${limit.percent}%`;
}
