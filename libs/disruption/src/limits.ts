/**
 * Two-number limits (docs/fencing.md#limits): a disruptive budget of nodes-manager is a count and a percentage, and
 * it is passed only when **both** are — more than the count *and* more than the percentage, as EKS node repair stops
 * at more than 5 nodes and more than 20%. The count keeps a small pool or zone working (2 of 3 nodes is 67%, but only
 * 2: Karpenter's fixed 20% alone means small pools never repair), the percentage keeps a large fleet's count from
 * being a cap that a real incident passes at once (6 of 1000 nodes is 0.6%).
 */

/** TwoNumberLimit — passed when more than `count` nodes and more than `percent` % of the set are concerned. */
export interface TwoNumberLimit {
  readonly count: number;
  readonly percent: number;
}

/** exceeds — `n` of `total` passes the limit: more than its count and more than its percentage of `total`. */
export function exceeds(limit: TwoNumberLimit, n: number, total: number): boolean {
  return n > limit.count && total > 0 && (n / total) * 100 > limit.percent;
}

/**
 * allowance — how many of `total` may be disrupted at once within the limit: the larger of the count and the
 * percentage of `total` rounded down (a percentage never rounds up to a node it does not allow).
 */
export function allowance(limit: TwoNumberLimit, total: number): number {
  return Math.max(0, limit.count, Math.floor((total * limit.percent) / 100));
}

/** limitWords — the limit in words, for reasons and logs: "more than 5 nodes and more than 20%". */
export function limitWords(limit: TwoNumberLimit): string {
  return `more than ${limit.count} node${limit.count === 1 ? '' : 's'} and more than ${limit.percent}%`;
}
