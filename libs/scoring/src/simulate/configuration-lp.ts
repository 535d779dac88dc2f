// The configuration LP (Gilmore–Gomory) by column generation: patterns of pods per node, priced by exact
// knapsacks, giving a proven lower bound (Farley) and the patterns patternPack rounds.
import { firstUntoleratedTaint, nodeSelectorMismatch, toleratesUnschedulable } from '../filters.js';
import { ColumnLp } from '../lp.js';
import type { ScoringNode } from '../types.js';
import { knapsackSolve } from './knapsack.js';
import { compatible } from './offerings.js';
import { DIMS, type Group, type Offering } from './types.js';
import { howMany, sizeOf } from './vectors.js';

/** A pattern: how many pods of each group one new node of `o` (or one existing node of bin class `bin`) holds. */
export interface Column {
  readonly o?: Offering;
  readonly bin?: number;
  readonly k: Int32Array;
}

/**
 * ExistingBin — free capacity of `count` existing nodes that look alike to every group (same free vector, same
 * groups allowed): a bin of cost 0 in the configuration LP, at most `count` of them.
 */
export interface ExistingBin {
  readonly free: readonly number[];
  readonly allows: readonly boolean[];
  readonly count: number;
}

export interface ConfigurationBound {
  /** A proven lower bound on the cost of any placement (see {@link configurationBound}). */
  readonly bound: number;
  /** The restricted master LP's value (an upper estimate of the configuration LP). */
  readonly value: number;
  /** True when exact pricing found no improving pattern: `value` is the configuration LP's optimum. */
  readonly certified: boolean;
  /** Per-pod prices (LP duals), by group. */
  readonly y: readonly number[];
  readonly columns: readonly Column[];
  /** Node count per column in the LP's optimum. */
  readonly x: readonly number[];
}

/** Effort limits of {@link configurationBound}: deterministic counts, never time. */
export interface ConfigurationEffort {
  /** Column-generation rounds. */
  readonly rounds: number;
  /** Search nodes of one pricing knapsack before it falls back to its LP relaxation. */
  readonly knapsackNodes: number;
  /** The same limit for the certifying round(s), once no pattern prices out within `knapsackNodes`. */
  readonly certifyKnapsackNodes: number;
  /** Search nodes of all pricing knapsacks together. */
  readonly totalKnapsackNodes: number;
}

/** For the bound: generate with cheap searches, then try to certify with deep ones. */
export const BOUND_EFFORT: ConfigurationEffort = { rounds: 60, knapsackNodes: 3000, certifyKnapsackNodes: 100_000, totalKnapsackNodes: 2_000_000 };
/** For packing: only the LP solution matters, not a certificate. */
export const PACKING_EFFORT: ConfigurationEffort = { rounds: 60, knapsackNodes: 3000, certifyKnapsackNodes: 3000, totalKnapsackNodes: 500_000 };

/**
 * Relative optimality tolerance of the pricing knapsacks: a search prunes branches that cannot beat the
 * incumbent by more than this, so a finished search proves optimum ≤ best·(1 + tolerance) — which is the
 * upper bound the Farley step then uses (the bound loses at most this fraction; it stays valid).
 */
const PRICING_TOLERANCE = 1e-4;

/** Existing bin classes beyond which bins are merged into super-bins (a relaxation, see {@link existingBins}). */
const MAX_BIN_CLASSES = 24;

/**
 * existingBins — the free capacity of existing nodes as bins for the bound. A group may use a node when
 * `placeOnExisting` would let it (Ready; schedulable or a toleration of the cordon; zone, selector, taints,
 * Spot aversion) and one pod fits. Identical bins are counted once with a multiplicity. Beyond
 * {@link MAX_BIN_CLASSES} classes, runs of classes (ordered by who they allow, then size) are merged into one
 * super-bin holding their summed free capacity and allowing any group one of them allowed: whatever fits the
 * original bins fits the super-bins, so the bound stays valid (only looser).
 */
export function existingBins(groups: readonly Group[], nodes: readonly ScoringNode[]): ExistingBin[] {
  const classes = new Map<string, { free: number[]; allows: boolean[]; count: number }>();
  for (const n of nodes) {
    if (!n.ready) continue;
    const free = [
      n.allocatable.cpuMilli - n.requested.cpuMilli,
      n.allocatable.memoryBytes - n.requested.memoryBytes,
      n.allocatable.gpu - n.requested.gpu,
      n.allocatable.pods - n.requested.pods,
    ];
    const allows = groups.map((g) => {
      if (g.remaining <= 0) return false;
      const tolerations = g.src.tolerations ?? [];
      if (n.unschedulable && !toleratesUnschedulable(tolerations)) return false;
      if (g.src.zone !== undefined && n.zone !== g.src.zone) return false;
      if (nodeSelectorMismatch(g.src.nodeSelector, n.labels) !== undefined) return false;
      if (g.averse && n.capacityType === 'spot') return false;
      if (firstUntoleratedTaint(n.taints, tolerations)) return false;
      return howMany(g.req, free) >= 1;
    });
    if (!allows.some(Boolean)) continue;
    const key = `${free.join(',')}|${allows.map(Number).join('')}`;
    const c = classes.get(key);
    if (c) c.count += 1;
    else classes.set(key, { free, allows, count: 1 });
  }
  const all = [...classes.values()];
  if (all.length <= MAX_BIN_CLASSES) return all;
  const sig = (b: { allows: boolean[] }): string => b.allows.map(Number).join('');
  all.sort((a, b) => sig(a).localeCompare(sig(b)) || sizeOf(a.free) - sizeOf(b.free));
  const total = all.reduce((s, b) => s + b.count, 0);
  const out: ExistingBin[] = [];
  let acc: { free: number[]; allows: boolean[]; count: number } | undefined;
  let seen = 0;
  for (const b of all) {
    acc ??= { free: new Array<number>(DIMS).fill(0), allows: groups.map(() => false), count: 1 };
    for (let d = 0; d < DIMS; d++) acc.free[d]! += b.count * b.free[d]!;
    b.allows.forEach((x, g) => (acc!.allows[g] ||= x));
    seen += b.count;
    if (seen >= ((out.length + 1) * total) / MAX_BIN_CLASSES) {
      out.push(acc);
      acc = undefined;
    }
  }
  if (acc) out.push(acc);
  return out;
}

/**
 * dominantOfferings — drop every offering another one dominates: no dearer, at least as large in every
 * dimension, and allowing every remaining group the dominated one allows. Any pattern of the dominated
 * offering is a pattern of the dominating one at no higher price, so neither the LP optimum nor a pricing
 * bound changes (ties keep the first).
 */
function dominantOfferings(groups: readonly Group[], offerings: readonly Offering[]): Offering[] {
  const allows = offerings.map((o) => groups.map((g) => g.remaining > 0 && compatible(g, o)));
  const useful = offerings.map((_, i) => allows[i]!.some(Boolean));
  const dominates = (a: number, b: number): boolean => {
    const oa = offerings[a]!;
    const ob = offerings[b]!;
    if (oa.usdPerHour > ob.usdPerHour) return false;
    for (let d = 0; d < DIMS; d++) if (oa.alloc[d]! < ob.alloc[d]!) return false;
    for (let g = 0; g < groups.length; g++) if (allows[b]![g] && !allows[a]![g]) return false;
    return true;
  };
  const keep: Offering[] = [];
  for (let b = 0; b < offerings.length; b++) {
    if (!useful[b]) continue;
    let dominated = false;
    for (let a = 0; a < offerings.length && !dominated; a++) {
      if (a === b || !useful[a] || !dominates(a, b)) continue;
      // Mutual domination (identical offerings): the earlier one stays.
      dominated = !dominates(b, a) || a < b;
    }
    if (!dominated) keep.push(offerings[b]!);
  }
  return keep;
}

/**
 * configurationBound — the configuration LP (Gilmore–Gomory) and a proven lower bound from it.
 *
 *   min Σ_j p_j·x_j  s.t.  Σ_j k_jg·x_j ≥ n_g (every group g),  Σ_{j ∈ bin e} x_j ≤ m_e (every existing bin class e),  x ≥ 0
 *
 * over patterns j: one new node of an offering (price p_j) or one existing node of bin class e (price 0), and
 * how many pods k_jg of each group it holds. Unlike a resource LP it knows that two 1-core pods do not fit in
 * 1.9 free cores, or 18 pods in 17 slots. Patterns are generated: single-group patterns first, then rounds of
 * exact pricing — for every offering and bin, the integer knapsack max Σ_g y_g·k_g over its capacity at the
 * current duals y (`knapsackSolve`) — adding the patterns that price out, re-solving the master warm.
 *
 * Bound (valid after any round, finished or not): with U_o ≥ the best pattern value of offering o at y (the
 * exact knapsack, or its LP relaxation when the search hit its node limit) and U_e likewise for bin e, put
 * ρ = max(1, max_o U_o / p_o). Then (y/ρ, z_e = U_e/ρ) is feasible for the LP's dual
 * (max Σ n_g·y_g − Σ m_e·z_e s.t. k·y ≤ p_j on new-node patterns, k·y ≤ z_e on bin patterns, y, z ≥ 0), so
 *
 *   bound = (Σ_g n_g·y_g − Σ_e m_e·U_e) / ρ
 *
 * is at most the LP optimum, which is at most the cost of any integer placement. This is Farley's bound
 * extended to zero-cost bins; when exact pricing finds nothing improving, ρ = 1 and it equals the LP optimum.
 * The best bound over all rounds is returned. Groups that no offering can hold are ignored (`remaining` 0).
 */
export function configurationBound(
  groups: readonly Group[],
  offeringsIn: readonly Offering[],
  bins: readonly ExistingBin[] = [],
  effort: ConfigurationEffort = BOUND_EFFORT,
): ConfigurationBound | undefined {
  const G = groups.length;
  const E = bins.length;
  const active = groups.map((g) => g.remaining > 0);
  if (!active.some(Boolean)) return { bound: 0, value: 0, certified: true, y: new Array<number>(G).fill(0), columns: [], x: [] };
  const offerings = dominantOfferings(groups, offeringsIn);
  const cap = (g: Group, o: Offering): number => (compatible(g, o) ? Math.min(g.remaining, howMany(g.req, o.alloc)) : 0);
  const binCap = (g: number, e: number): number => (bins[e]!.allows[g] ? Math.min(groups[g]!.remaining, howMany(groups[g]!.req, bins[e]!.free)) : 0);
  // Rows: one per group (inactive ones ask for 0), then one per bin class.
  const lp = new ColumnLp([...groups.map(() => '>=' as const), ...bins.map(() => '<=' as const)], [...groups.map((g) => g.remaining), ...bins.map((b) => b.count)]);
  const columns: Column[] = [];
  const seen = new Set<string>();
  const addColumn = (c: Column): boolean => {
    const key = `${c.o ? `${c.o.spec.name}/${c.o.zone}/${c.o.capacityType}` : `bin${c.bin}`}/${c.k.join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    columns.push({ ...c, k: Int32Array.from(c.k) });
    const a = new Float64Array(G + E);
    for (let g = 0; g < G; g++) a[g] = c.k[g]!;
    if (c.bin !== undefined) a[G + c.bin] = 1;
    lp.addColumn(c.o ? c.o.usdPerHour : 0, a);
    return true;
  };
  for (let g = 0; g < G; g++) {
    if (!active[g]) continue;
    const ranked = offerings
      .map((o) => ({ o, k: cap(groups[g]!, o) }))
      .filter((c) => c.k > 0)
      .sort((a, b) => a.o.usdPerHour / a.k - b.o.usdPerHour / b.k)
      .slice(0, 3);
    if (ranked.length === 0) return undefined;
    for (const c of ranked) {
      const k = new Int32Array(G);
      k[g] = c.k;
      addColumn({ o: c.o, k });
    }
  }
  let budget = effort.totalKnapsackNodes;
  // price — the best pattern at values y over capacity `alloc` (groups allowed by `ok`): exact when the search
  // finishes within the budget, else the incumbent pattern and the LP relaxation's value as the upper bound.
  const price = (y: ArrayLike<number>, alloc: readonly number[], capOf: (g: number) => number, threshold: number): { upper: number; best: number; k: Int32Array } => {
    const idx: number[] = [];
    for (let g = 0; g < G; g++) if (active[g] && y[g]! > 1e-12 && capOf(g) > 0) idx.push(g);
    const k = new Int32Array(G);
    if (idx.length === 0) return { upper: 0, best: 0, k };
    const values = idx.map((g) => y[g]!);
    const reqs = idx.map((g) => groups[g]!.req);
    const caps = idx.map((g) => capOf(g));
    const limit = Math.max(0, Math.min(searchNodes, budget));
    const r = knapsackSolve(values, reqs, caps, alloc, limit, PRICING_TOLERANCE, threshold);
    budget -= r.nodes;
    idx.forEach((g, i) => (k[g] = r.k[i]!));
    if (r.complete) return { upper: Math.max(r.best, threshold) * (1 + PRICING_TOLERANCE), best: r.best, k };
    return { upper: Math.max(r.best, r.relaxation), best: r.best, k };
  };
  let searchNodes = effort.knapsackNodes;
  let bestBound = 0;
  let sol = lp.solve();
  let certified = false;
  for (let round = 0; round < effort.rounds && sol.status === 'optimal'; round++) {
    const y = Array.from({ length: G }, (_, g) => Math.max(0, sol.duals[g]!));
    const z = Array.from({ length: E }, (_, e) => Math.max(0, -sol.duals[G + e]!));
    let rho = 1;
    let exact = true;
    let added = 0;
    for (const o of offerings) {
      const p = price(y, o.alloc, (g) => cap(groups[g]!, o), o.usdPerHour);
      if (p.upper > Math.max(p.best, o.usdPerHour) * (1 + PRICING_TOLERANCE)) exact = false;
      rho = Math.max(rho, p.upper / o.usdPerHour);
      if (p.best > o.usdPerHour * (1 + 1e-9) && addColumn({ o, k: p.k })) added += 1;
    }
    let binTerm = 0;
    for (let e = 0; e < E; e++) {
      const p = price(y, bins[e]!.free, (g) => binCap(g, e), z[e]!);
      if (p.upper > Math.max(p.best, z[e]!) * (1 + PRICING_TOLERANCE)) exact = false;
      binTerm += bins[e]!.count * p.upper;
      if (p.best > z[e]! + 1e-9 * Math.max(1, p.best) && addColumn({ bin: e, k: p.k })) added += 1;
    }
    let ny = 0;
    for (let g = 0; g < G; g++) if (active[g]) ny += groups[g]!.remaining * y[g]!;
    // A hair below the exact value, for the floating-point sums above.
    bestBound = Math.max(bestBound, ((ny - binTerm) / rho) * (1 - 1e-9));
    if (added === 0) {
      certified = exact;
      if (exact || searchNodes >= effort.certifyKnapsackNodes || budget <= 0) break;
      // Nothing prices out, but some searches stopped early: price the same duals again, deeper.
      searchNodes = effort.certifyKnapsackNodes;
      continue;
    }
    sol = lp.solve();
  }
  if (sol.status !== 'optimal') return undefined;
  return { bound: bestBound, value: sol.value, certified, y: Array.from({ length: G }, (_, g) => Math.max(0, sol.duals[g]!)), columns, x: Array.from(sol.x) };
}
