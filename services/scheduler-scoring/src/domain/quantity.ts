/**
 * Kubernetes resource quantities as numbers: cpu in millicores (rounded up, as the scheduler does) and
 * everything else in base units. Accepts the suffixes of k8s.io/apimachinery's resource.Quantity: decimal SI
 * (m, k, M, G, T, P, E), binary (Ki … Ei) and exponents (1e3). Anything else is undefined, never a guess.
 */
const SUFFIX: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const QUANTITY = /^([+-]?\d+(?:\.\d*)?|[+-]?\.\d+)(?:([eE][+-]?\d+)|(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei))?$/;

/** parseQuantity — the value of a quantity in base units, or undefined when it is not one. */
export function parseQuantity(q: string | number | undefined | null): number | undefined {
  if (q === undefined || q === null) return undefined;
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  const m = QUANTITY.exec(q.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * SUFFIX[m[3] ?? '']!;
}

/** cpuMilli — a cpu quantity in millicores, rounded up (`100m` → 100, `0.5` → 500, `1` → 1000). */
export function cpuMilli(q: string | number | undefined | null): number | undefined {
  const v = parseQuantity(q);
  return v === undefined ? undefined : Math.ceil(Math.round(v * 1e9) / 1e6);
}

/** bytes — a memory quantity in bytes, rounded up. */
export function bytes(q: string | number | undefined | null): number | undefined {
  const v = parseQuantity(q);
  return v === undefined ? undefined : Math.ceil(v - 1e-9);
}
