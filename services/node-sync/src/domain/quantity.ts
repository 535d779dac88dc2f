/**
 * Kubernetes resource quantities (`250m`, `1Gi`, `1e3`, `0.5`, `2k`) parsed exactly: the number is kept as an
 * integer mantissa with powers of ten and two, so `0.1` CPU is 100 millicores, never 100.00000000000001.
 * Results round up, as the API server's `MilliValue()`/`Value()` do. Malformed input gives `undefined`: a
 * projection decides what that means rather than crashing a sync.
 */

const QUANTITY =
  /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|[eE]([+-]?\d+)|(n|u|m|k|M|G|T|P|E))?$/;
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
/** Exponents beyond this are not resource amounts; refusing them keeps BigInt work bounded. */
const MAX_EXPONENT = 64;

interface ExactQuantity {
  readonly negative: boolean;
  readonly mantissa: bigint;
  readonly exp10: number;
  readonly exp2: number;
}

function parseExact(quantity: string): ExactQuantity | undefined {
  const m = QUANTITY.exec(quantity.trim());
  if (!m) return undefined;
  const [, sign, number, binary, exponent, decimal] = m;
  const [whole, fraction = ''] = number!.split('.');
  const exp10 = (exponent !== undefined ? Number(exponent) : decimal ? DECIMAL[decimal]! : 0) - fraction.length;
  if (Math.abs(exp10) > MAX_EXPONENT) return undefined;
  return {
    negative: sign === '-',
    mantissa: BigInt(`${whole ?? ''}${fraction}` || '0'),
    exp10,
    exp2: binary ? BINARY[binary]! : 0,
  };
}

/** ceil(q × 10^shift) as a number. */
function scaledCeil(quantity: string, shift: number): number | undefined {
  const q = parseExact(quantity);
  if (!q) return undefined;
  let n = q.mantissa << BigInt(q.exp2);
  const e = q.exp10 + shift;
  if (e >= 0) {
    n *= 10n ** BigInt(e);
  } else {
    const d = 10n ** BigInt(-e);
    // Round towards +∞: up for positive amounts, truncation for negative ones.
    n = q.negative ? n / d : (n + d - 1n) / d;
  }
  return Number(q.negative ? -n : n);
}

/** parseCpuMilli — millicores: `'250m'` → 250, `'2'` → 2000, `'0.5'` → 500, `'1e-3'` → 1. */
export const parseCpuMilli = (quantity: string): number | undefined => scaledCeil(quantity, 3);

/** parseBytes — bytes: `'1Gi'` → 1073741824, `'1G'` → 1e9, `'1e3'` → 1000, `'129M'` → 129000000. */
export const parseBytes = (quantity: string): number | undefined => scaledCeil(quantity, 0);

/** parseCount — whole units for countable resources (pods, GPUs): `'110'` → 110, `'1k'` → 1000. */
export const parseCount = (quantity: string): number | undefined => scaledCeil(quantity, 0);
