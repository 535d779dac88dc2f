// The bounded multi-dimensional integer knapsack: the exact pricing problem of column generation.
import { maximizeLp } from '../lp.js';
import { DIMS, UNIT } from './types.js';
import { dominantShare } from './vectors.js';

/** gcd — of two non-negative integers; 0 as soon as either is not an integer (no rounding then). */
function gcd(a: number, b: number): number {
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0) return 0;
  while (b > 0) [a, b] = [b, a % b];
  return a;
}

/**
 * knapsackLp — the LP relaxation of {@link knapsackSolve} (fractional counts, all dimensions and caps), solved once:
 * its value is an upper bound on the integer optimum (used when the search does not finish), and the duals of its
 * dimension rows, per raw unit, are surrogate weights λ ≥ 0 (any λ ≥ 0 gives a valid surrogate relaxation; these
 * make it as tight as the LP).
 */
function knapsackLp(values: readonly number[], reqs: readonly (readonly number[])[], caps: readonly number[], alloc: readonly number[]): { value: number; lambda: number[] } {
  const n = values.length;
  if (n === 0) return { value: 0, lambda: new Array<number>(DIMS).fill(0) };
  const A: number[][] = [];
  const b: number[] = [];
  for (let d = 0; d < DIMS; d++) {
    A.push(reqs.map((q) => q[d]! / UNIT[d]!));
    b.push(Math.max(0, alloc[d]!) / UNIT[d]!);
  }
  for (let i = 0; i < n; i++) {
    const row = new Array<number>(n).fill(0);
    row[i] = 1;
    A.push(row);
    b.push(caps[i]!);
  }
  const r = maximizeLp([...values], A, b);
  // Unbounded cannot happen (every count is capped); Infinity keeps the bound valid if it ever did.
  if (r.status !== 'optimal') return { value: Infinity, lambda: new Array<number>(DIMS).fill(0) };
  return { value: r.value * (1 + 1e-9), lambda: Array.from({ length: DIMS }, (_, d) => Math.max(0, r.dual[d]!) / UNIT[d]!) };
}

/**
 * knapsackMax — max Σ v_i·k_i over integers 0 ≤ k_i ≤ cap_i with Σ k_i·req_i ≤ alloc in every dimension (see
 * {@link knapsackSolve}); undefined when `limit` search nodes were not enough.
 */
export function knapsackMax(
  values: readonly number[],
  reqs: readonly (readonly number[])[],
  caps: readonly number[],
  alloc: readonly number[],
  limit: number,
): number | undefined {
  const r = knapsackSolve(values, reqs, caps, alloc, limit);
  return r.complete ? r.best : undefined;
}

/**
 * knapsackSolve — the exact pricing problem of one offering or bin: max Σ v_i·k_i over integers
 * 0 ≤ k_i ≤ cap_i with Σ k_i·req_i ≤ alloc in every dimension (cpu, memory, GPU, pod slots). Depth-first
 * branch and bound, items by value density, largest count first; the bound at a node is the smallest over
 * dimensions of the fractional knapsack on that dimension alone (each relaxes the real problem, so the
 * minimum is a valid upper bound). `complete` is false when `limit` nodes were not enough: `best`/`k` are
 * then only the best pattern found (still a real pattern), not a proven optimum.
 */
export function knapsackSolve(
  values: readonly number[],
  reqs: readonly (readonly number[])[],
  caps: readonly number[],
  alloc: readonly number[],
  limit: number,
  tolerance = 1e-12,
  threshold = 0,
): { best: number; k: Int32Array; complete: boolean; nodes: number; relaxation: number } {
  const n = values.length;
  const dens = (i: number): number => values[i]! / Math.max(1e-12, dominantShare(reqs[i]!, alloc));
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => dens(b) - dens(a));
  const v = order.map((i) => values[i]!);
  const q = order.map((i) => reqs[i]!);
  const c = order.map((i) => caps[i]!);
  // Per dimension, items by value per unit of that dimension (items that need none of it come first).
  const byDim = Array.from({ length: DIMS }, (_, d) =>
    Array.from({ length: n }, (_, i) => i).sort((a, b) => (q[b]![d]! === 0 ? Infinity : v[b]! / q[b]![d]!) - (q[a]![d]! === 0 ? Infinity : v[a]! / q[a]![d]!)),
  );
  // The surrogate constraint Σ_d λ_d·(k·req)_d ≤ Σ_d λ_d·alloc_d with λ the root LP relaxation's duals: its
  // fractional knapsack equals the LP relaxation at the root and keeps the bound tight below it.
  const { value: relaxation, lambda } = knapsackLp(v, q, c, alloc);
  const sw = q.map((r) => lambda.reduce((acc, l, d) => acc + l * r[d]!, 0));
  const byRatio = Array.from({ length: n }, (_, i) => i).sort((a, b) => (sw[b]! <= 0 ? Infinity : v[b]! / sw[b]!) - (sw[a]! <= 0 ? Infinity : v[a]! / sw[a]!));
  // Any completion uses a multiple of the requests' gcd in each dimension, so the room a bound may fill
  // is the free amount rounded down to that multiple (what proves that 3,920m holds at most 3,900m of
  // 50m-multiple pods).
  const grain = Array.from({ length: DIMS }, (_, d) => q.reduce((g, r) => gcd(g, r[d]!), 0));
  const usable = (d: number, x: number): number => (grain[d]! > 0 ? Math.floor(x / grain[d]! + 1e-9) * grain[d]! : x);
  const free = [...alloc];
  let best = 0;
  const cur = new Int32Array(n);
  const bestK = new Int32Array(n);
  let nodes = 0;
  // fill — the fractional knapsack over items from `from` on, taken in `order` (best value per weight first), with
  // weights `w` and capacity `room`; items that weigh nothing are taken whole.
  const fill = (order: readonly number[], w: readonly number[], from: number, room: number): number => {
    let val = 0;
    for (const i of order) {
      if (i < from) continue;
      const wi = w[i]!;
      if (wi <= 0) {
        val += c[i]! * v[i]!;
        continue;
      }
      if (room <= 0) break;
      const k = Math.min(c[i]!, room / wi);
      val += k * v[i]!;
      room -= k * wi;
    }
    return val;
  };
  const weightsOf = Array.from({ length: DIMS }, (_, d) => q.map((r) => r[d]!));
  const surrogate = lambda.some((l) => l > 0);
  const bound = (from: number): number => {
    let ub = Infinity;
    let surrogateUsable = 0;
    for (let d = 0; d < DIMS; d++) {
      const room = usable(d, free[d]!);
      surrogateUsable += lambda[d]! * room;
      ub = Math.min(ub, fill(byDim[d]!, weightsOf[d]!, from, room));
    }
    if (surrogate) ub = Math.min(ub, fill(byRatio, sw, from, surrogateUsable));
    return ub;
  };
  const dfs = (i: number, val: number): boolean => {
    if (++nodes > limit) return false;
    if (val > best) {
      best = val;
      bestK.set(cur);
    }
    if (i === n || val + bound(i) <= Math.max(best, threshold) * (1 + tolerance)) return true;
    let kMax = c[i]!;
    for (let d = 0; d < DIMS; d++) if (q[i]![d]! > 0) kMax = Math.min(kMax, Math.floor(free[d]! / q[i]![d]! + 1e-9));
    for (let k = kMax; k >= 0; k--) {
      for (let d = 0; d < DIMS; d++) free[d]! -= k * q[i]![d]!;
      cur[i] = k;
      const ok = dfs(i + 1, val + k * v[i]!);
      cur[i] = 0;
      for (let d = 0; d < DIMS; d++) free[d]! += k * q[i]![d]!;
      if (!ok) return false;
    }
    return true;
  };
  const complete = n === 0 || dfs(0, 0);
  const k = new Int32Array(n);
  order.forEach((orig, pos) => (k[orig] = bestK[pos]!));
  return { best, k, complete, nodes: Math.min(nodes, limit), relaxation };
}
