/**
 * Kubernetes resource quantities (`250m`, `1Gi`, `1e3`, `0.5`, `2k`), exactly as k8s.io/apimachinery's
 * `resource.Quantity` reads them: the number is kept as an integer mantissa with powers of ten and two, so `0.1`
 * CPU is 100 millicores, never 100.00000000000001. {@link milliValue} is `MilliValue()` (ceil(q × 1000)) and
 * {@link value} is `Value()` (rounded up, away from zero). Malformed input is `undefined`, never a guess: a caller
 * decides what that means rather than crashing. See docs/kubernetes.md.
 */

/** `<sign><digits>[.<digits>]` then a binary suffix, a decimal exponent or a decimal SI suffix (or nothing). */
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|[eE]([+-]?\d+)|(n|u|m|k|M|G|T|P|E))?$/;
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
/** Exponents beyond this are not resource amounts; refusing them keeps the BigInt work bounded. */
const MAX_EXPONENT = 64;

/** Quantity — an exact amount: (−1)^negative × mantissa × 10^exp10 × 2^exp2. */
export interface Quantity {
  readonly negative: boolean;
  readonly mantissa: bigint;
  readonly exp10: number;
  readonly exp2: number;
}

/** parseQuantity — the exact amount of a quantity string (a finite number is taken as written); undefined if it is none. */
export function parseQuantity(input: string | number | null | undefined): Quantity | undefined {
  if (input === undefined || input === null) return undefined;
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return undefined;
    text = String(input);
  } else text = input.trim();
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const [, sign, number, binary, exponent, decimal] = m;
  const [whole, fraction = ''] = number!.split('.');
  const exp10 = (exponent !== undefined ? Number(exponent) : decimal ? DECIMAL[decimal]! : 0) - fraction.length;
  if (Math.abs(exp10) > MAX_EXPONENT) return undefined;
  const mantissa = BigInt(`${whole ?? ''}${fraction}` || '0');
  return { negative: sign === '-' && mantissa !== 0n, mantissa, exp10, exp2: binary ? BINARY[binary]! : 0 };
}

/** scaled — q × 10^shift rounded away from zero, as a number (exact below 2^53). */
function scaled(q: Quantity, shift: number): number {
  let n = q.mantissa << BigInt(q.exp2);
  const e = q.exp10 + shift;
  if (e >= 0) n *= 10n ** BigInt(e);
  else {
    const d = 10n ** BigInt(-e);
    n = (n + d - 1n) / d;
  }
  return Number(q.negative ? -n : n);
}

/** Distinct quantity texts remembered per reading (past it, the memory starts over). */
const MEMO_MAX = 4096;

/**
 * memoised — `shift`'s reading of a quantity, remembered per text: a fleet's resource lists repeat a few hundred
 * texts (`250m`, `512Mi`) across a million pods, and parsing one takes a regular expression and BigInt arithmetic.
 */
function memoised(shift: number): (input: string | number | null | undefined) => number | undefined {
  const seen = new Map<string, number | undefined>();
  const read = (input: string | number | null | undefined): number | undefined => {
    const q = parseQuantity(input);
    return q && scaled(q, shift);
  };
  return (input) => {
    if (typeof input !== 'string') return read(input);
    const known = seen.get(input);
    if (known !== undefined || seen.has(input)) return known;
    const v = read(input);
    if (seen.size >= MEMO_MAX) seen.clear();
    seen.set(input, v);
    return v;
  };
}

/** milliValue — `MilliValue()`: thousandths, rounded up (`'250m'` → 250, `'2'` → 2000, `'1e-4'` → 1). */
export const milliValue: (input: string | number | null | undefined) => number | undefined = memoised(3);

/** value — `Value()`: whole units, rounded up (`'1Gi'` → 1073741824, `'1k'` → 1000, `'0.5'` → 1). */
export const value: (input: string | number | null | undefined) => number | undefined = memoised(0);

/** isQuantity — the text is a Kubernetes quantity (any sign). */
export const isQuantity = (input: string): boolean => parseQuantity(input) !== undefined;

/** compareQuantities — −1, 0 or 1 as a is less than, equal to or greater than b (exactly). */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const sa = a.negative ? -1n : 1n;
  const sb = b.negative ? -1n : 1n;
  // Bring both to a common power of ten and two: a.m × 10^(a.e10 − e10) × 2^(a.e2 − e2).
  const e10 = Math.min(a.exp10, b.exp10);
  const e2 = Math.min(a.exp2, b.exp2);
  const na = sa * a.mantissa * 10n ** BigInt(a.exp10 - e10) * 2n ** BigInt(a.exp2 - e2);
  const nb = sb * b.mantissa * 10n ** BigInt(b.exp10 - e10) * 2n ** BigInt(b.exp2 - e2);
  return na < nb ? -1 : na > nb ? 1 : 0;
}
