const Z95 = 1.959963984540054;

/**
 * wilsonInterval — the 95% Wilson score interval of k successes in n trials: centre (p̂ + z²/2n) / (1 + z²/n),
 * half-width z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n). It stays inside [0, 1] and is honest for a few dozen samples and
 * shares near 0 or 1. The rebalance ledger's figures use it too (docs/rebalance-ledger.md#figures).
 */
export function wilsonInterval(k: number, n: number, z = Z95): [number, number] | null {
  if (n <= 0) return null;
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** quantile — linear interpolation between closest ranks (R type 7) of an ascending list; q in [0, 1]. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** round — x to `digits` decimals (figures kept and published, never shown raw: sentences format their own). */
export const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** pct — a share as a whole percentage for a sentence ("73%"); below 1% one decimal ("0.4%"). */
export function pct(share: number): string {
  const p = share * 100;
  if (p > 0 && p < 1) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

/** duration — milliseconds in words for a sentence: "45 s", "12 min", "6 h", "2 h 30 min", "3 days". */
export function duration(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const m = min % 60;
  if (h >= 48 && m === 0 && h % 24 === 0) return `${h / 24} days`;
  if (h >= 48) return `${Math.round(h / 24)} days`;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}
