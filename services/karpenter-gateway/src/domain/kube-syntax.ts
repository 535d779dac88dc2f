import { parseQuantity } from '@nodes-manager/kube';
/** Syntax of the Kubernetes values a NodePool carries: Go-style durations, quantities, names and label keys. */

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000 };

/**
 * parseDuration — milliseconds of a duration written as Karpenter's CRD allows (`30s`, `5m`, `1h30m`,
 * `720h`): one or more `<digits><unit>` with units from `units`, each unit at most once, largest first.
 * Returns undefined when the text is not such a duration.
 */
export function parseDuration(text: string, units = 'hms'): number | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const re = /(\d+)([a-z]+)/gy;
  let ms = 0;
  let lastRank = -1;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(text)) !== null) {
    const unit = m[2]!;
    const rank = 'hms'.indexOf(unit);
    if (!units.includes(unit) || rank < 0 || rank <= lastRank) return undefined;
    lastRank = rank;
    ms += Number(m[1]) * UNIT_MS[unit]!;
    consumed = re.lastIndex;
  }
  return consumed === text.length ? ms : undefined;
}

/** isQuantity — a Kubernetes resource quantity that a limit may hold: non-negative, with an optional SI, binary or exponent suffix. */
export function isQuantity(v: unknown): boolean {
  if (typeof v !== 'number' && typeof v !== 'string') return false;
  const q = parseQuantity(v);
  return q !== undefined && !q.negative && !(typeof v === 'string' && v.trim() !== v);
}

/** isDns1123Subdomain — what Kubernetes accepts as a cluster-scoped object's name. */
export function isDns1123Subdomain(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(v);
}

/** isQualifiedName — a label key: an optional DNS subdomain prefix and `/`, then a name of at most 63 characters. */
export function isQualifiedName(v: unknown): v is string {
  if (typeof v !== 'string' || v === '') return false;
  const parts = v.split('/');
  if (parts.length > 2) return false;
  const name = parts.at(-1)!;
  if (parts.length === 2 && !isDns1123Subdomain(parts[0])) return false;
  return name.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
}

/** isLabelValue — empty, or at most 63 alphanumerics with `-_.` inside. */
export function isLabelValue(v: unknown): v is string {
  return typeof v === 'string' && v.length <= 63 && /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(v);
}
