/**
 * maximizeLp — a small dense simplex for `max cᵀy s.t. A·y ≤ b, y ≥ 0` with b ≥ 0 (so y = 0 is a feasible
 * start), Bland's rule against cycling. Sized for the lower-bound duals here (≈ 8 variables × ≈ 100
 * constraints); not a general solver. Returns `unbounded` when the objective grows without limit, else y and
 * the constraints' duals (the solution of the minimisation this problem is the dual of).
 */
export function maximizeLp(
  c: readonly number[],
  A: readonly (readonly number[])[],
  b: readonly number[],
): { status: 'optimal'; value: number; y: number[]; dual: number[] } | { status: 'unbounded' } {
  const m = A.length;
  const n = c.length;
  const width = n + m + 1;
  // Row i < m: constraint i with slack n+i; row m: objective (−c), reduced costs.
  const t: Float64Array[] = [];
  for (let i = 0; i < m; i++) {
    const row = new Float64Array(width);
    for (let j = 0; j < n; j++) row[j] = A[i]![j]!;
    row[n + i] = 1;
    row[width - 1] = b[i]!;
    t.push(row);
  }
  const obj = new Float64Array(width);
  for (let j = 0; j < n; j++) obj[j] = -c[j]!;
  t.push(obj);
  const basis = Array.from({ length: m }, (_, i) => n + i);
  const EPS = 1e-12;
  for (let iter = 0; iter < 50 * (m + n); iter++) {
    let enter = -1;
    for (let j = 0; j < width - 1; j++) {
      if (obj[j]! < -EPS) {
        enter = j;
        break;
      }
    }
    if (enter < 0) break;
    let leave = -1;
    let best = Infinity;
    for (let i = 0; i < m; i++) {
      const a = t[i]![enter]!;
      if (a > EPS) {
        const ratio = t[i]![width - 1]! / a;
        if (ratio < best - EPS || (Math.abs(ratio - best) <= EPS && leave >= 0 && basis[i]! < basis[leave]!)) {
          best = ratio;
          leave = i;
        }
      }
    }
    if (leave < 0) return { status: 'unbounded' };
    const pivotRow = t[leave]!;
    const p = pivotRow[enter]!;
    for (let j = 0; j < width; j++) pivotRow[j]! /= p;
    for (let i = 0; i <= m; i++) {
      if (i === leave) continue;
      const row = t[i]!;
      const f = row[enter]!;
      if (f === 0) continue;
      for (let j = 0; j < width; j++) row[j]! -= f * pivotRow[j]!;
    }
    basis[leave] = enter;
  }
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < m; i++) if (basis[i]! < n) y[basis[i]!] = t[i]![width - 1]!;
  // The dual of constraint i is the reduced cost of its slack.
  const dual = Array.from({ length: m }, (_, i) => obj[n + i]!);
  return { status: 'optimal', value: obj[width - 1]!, y, dual };
}

/** Row sense of a {@link ColumnLp}: `>=` covers a demand, `<=` caps a supply. */
export type RowSense = '>=' | '<=';

export interface ColumnLpSolution {
  readonly status: 'optimal' | 'infeasible' | 'unbounded' | 'iteration_limit';
  readonly value: number;
  /** Value of each column added, in order. */
  readonly x: Float64Array;
  /** Row duals π (cost = π·a at optimality): ≥ 0 on `>=` rows, ≤ 0 on `<=` rows. */
  readonly duals: Float64Array;
}

/**
 * ColumnLp — `min cᵀx s.t. A·x (≥|≤) b, x ≥ 0` with b ≥ 0, few rows and a growing set of columns: the
 * restricted master of column generation. A revised primal simplex with an explicit basis inverse (rows ≤ a
 * few dozen), Dantzig pricing with Bland's rule after degenerate steps, refactorised every 64 pivots. The
 * basis survives `addColumn`, so each re-solve after new columns starts where the last one ended. `>=` rows
 * start on artificial columns of cost `bigM` (callers add a cheap column per row first, so they leave fast).
 * Deterministic; bounded by an iteration limit, never by time.
 */
export class ColumnLp {
  private readonly m: number;
  private readonly cols: Float64Array[] = [];
  private readonly cost: number[] = [];
  /** Column index of each basic variable; columns ≥ `cols.length` are not used — see `kind`. */
  private basis: number[];
  /** Basic variables: 's' slack/surplus of row i, 'a' artificial of row i, 'c' structural column. */
  private basisKind: ('s' | 'a' | 'c')[];
  private binv: Float64Array[];
  private xb: Float64Array;
  private pivots = 0;

  constructor(
    private readonly sense: readonly RowSense[],
    private readonly rhs: readonly number[],
    private readonly bigM = 1e7,
  ) {
    this.m = sense.length;
    this.basis = sense.map((_, i) => i);
    this.basisKind = sense.map((s) => (s === '<=' ? 's' : 'a'));
    this.binv = sense.map((s, i) => {
      const row = new Float64Array(this.m);
      row[i] = s === '<=' ? 1 : 1; // slack +e_i, artificial +e_i
      return row;
    });
    this.xb = Float64Array.from(rhs);
  }

  get columnCount(): number {
    return this.cols.length;
  }

  /** addColumn — a new variable with cost `c` and coefficients `a` (one per row); returns its index. */
  addColumn(c: number, a: ArrayLike<number>): number {
    this.cols.push(Float64Array.from(a));
    this.cost.push(c);
    return this.cols.length - 1;
  }

  private basicCost(i: number): number {
    const k = this.basisKind[i]!;
    if (k === 'c') return this.cost[this.basis[i]!]!;
    return k === 'a' ? this.bigM : 0;
  }

  /** The entering direction of a nonbasic variable: its column of A (slack ±e_i). */
  private column(kind: 's' | 'a' | 'c', j: number): Float64Array {
    if (kind === 'c') return this.cols[j]!;
    const e = new Float64Array(this.m);
    e[j] = kind === 's' ? (this.sense[j] === '<=' ? 1 : -1) : 1;
    return e;
  }

  private refactor(): void {
    // Gauss–Jordan on the basis matrix with partial pivoting.
    const m = this.m;
    const B = Array.from({ length: m }, () => new Float64Array(2 * m));
    for (let i = 0; i < m; i++) {
      const col = this.column(this.basisKind[i]!, this.basis[i]!);
      for (let r = 0; r < m; r++) B[r]![i] = col[r]!;
      B[i]![m + i] = 1;
    }
    for (let c = 0; c < m; c++) {
      let p = c;
      for (let r = c + 1; r < m; r++) if (Math.abs(B[r]![c]!) > Math.abs(B[p]![c]!)) p = r;
      if (Math.abs(B[p]![c]!) < 1e-14) return; // singular: keep the product-form inverse
      [B[c], B[p]] = [B[p]!, B[c]!];
      const piv = B[c]![c]!;
      for (let k = 0; k < 2 * m; k++) B[c]![k]! /= piv;
      for (let r = 0; r < m; r++) {
        if (r === c) continue;
        const f = B[r]![c]!;
        if (f === 0) continue;
        for (let k = 0; k < 2 * m; k++) B[r]![k]! -= f * B[c]![k]!;
      }
    }
    this.binv = B.map((row) => row.slice(m));
    const xb = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let r = 0; r < m; r++) s += this.binv[i]![r]! * this.rhs[r]!;
      xb[i] = Math.max(0, s);
    }
    this.xb = xb;
  }

  private dualsNow(): Float64Array {
    const m = this.m;
    const pi = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      const cb = this.basicCost(i);
      if (cb === 0) continue;
      const row = this.binv[i]!;
      for (let r = 0; r < m; r++) pi[r]! += cb * row[r]!;
    }
    return pi;
  }

  /** solve — re-optimise from the current basis. */
  solve(maxIterations = 5000): ColumnLpSolution {
    const m = this.m;
    const EPS = 1e-9;
    const inBasis = new Set<string>();
    for (let i = 0; i < m; i++) inBasis.add(`${this.basisKind[i]}${this.basis[i]}`);
    let degenerate = 0;
    let status: ColumnLpSolution['status'] = 'iteration_limit';
    for (let iter = 0; iter < maxIterations; iter++) {
      const pi = this.dualsNow();
      const bland = degenerate > 20;
      // Pricing: slacks/surpluses first, then structural columns.
      let enterKind: 's' | 'c' | undefined;
      let enter = -1;
      let best = -EPS;
      for (let i = 0; i < m; i++) {
        if (inBasis.has(`s${i}`)) continue;
        const d = this.sense[i] === '<=' ? -pi[i]! : pi[i]!;
        if (d < best) {
          best = d;
          enterKind = 's';
          enter = i;
          if (bland) break;
        }
      }
      if (!(bland && enterKind)) {
        for (let j = 0; j < this.cols.length; j++) {
          if (inBasis.has(`c${j}`)) continue;
          const a = this.cols[j]!;
          let d = this.cost[j]!;
          for (let r = 0; r < m; r++) d -= pi[r]! * a[r]!;
          const scaled = d / Math.max(1, Math.abs(this.cost[j]!));
          if (scaled < best) {
            best = scaled;
            enterKind = 'c';
            enter = j;
            if (bland) break;
          }
        }
      }
      if (!enterKind) {
        status = 'optimal';
        break;
      }
      const a = this.column(enterKind, enter);
      const u = new Float64Array(m);
      for (let i = 0; i < m; i++) {
        let s = 0;
        const row = this.binv[i]!;
        for (let r = 0; r < m; r++) s += row[r]! * a[r]!;
        u[i] = s;
      }
      let leave = -1;
      let ratio = Infinity;
      for (let i = 0; i < m; i++) {
        if (u[i]! <= EPS) continue;
        const t = this.xb[i]! / u[i]!;
        if (t < ratio - 1e-12 || (bland && Math.abs(t - ratio) <= 1e-12 && leave >= 0 && this.basis[i]! < this.basis[leave]!)) {
          ratio = t;
          leave = i;
        }
      }
      if (leave < 0) {
        status = 'unbounded';
        break;
      }
      degenerate = ratio <= 1e-12 ? degenerate + 1 : 0;
      // Pivot.
      const piv = u[leave]!;
      const prow = this.binv[leave]!;
      for (let r = 0; r < m; r++) prow[r]! /= piv;
      this.xb[leave] = ratio;
      for (let i = 0; i < m; i++) {
        if (i === leave || u[i] === 0) continue;
        const f = u[i]!;
        const row = this.binv[i]!;
        for (let r = 0; r < m; r++) row[r]! -= f * prow[r]!;
        this.xb[i] = Math.max(0, this.xb[i]! - f * ratio);
      }
      inBasis.delete(`${this.basisKind[leave]}${this.basis[leave]}`);
      this.basis[leave] = enter;
      this.basisKind[leave] = enterKind;
      inBasis.add(`${enterKind}${enter}`);
      if (++this.pivots % 64 === 0) this.refactor();
    }
    const x = new Float64Array(this.cols.length);
    let value = 0;
    let artificial = false;
    for (let i = 0; i < m; i++) {
      if (this.basisKind[i] === 'c') {
        x[this.basis[i]!] = this.xb[i]!;
        value += this.cost[this.basis[i]!]! * this.xb[i]!;
      } else if (this.basisKind[i] === 'a' && this.xb[i]! > 1e-9) artificial = true;
    }
    if (status === 'optimal' && artificial) status = 'infeasible';
    return { status, value, x, duals: this.dualsNow() };
  }
}
