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
