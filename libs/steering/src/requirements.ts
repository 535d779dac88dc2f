/**
 * Karpenter NodePool requirements, as far as steering needs them: which offerings (instance type × zone × capacity
 * type) a list of requirements admits. Karpenter reads the list as a conjunction, entries on the same key
 * intersecting — which is why steering can add an entry of its own without touching the owner's.
 */
import type { CapacityType } from '@nodes-manager/contracts';

export const INSTANCE_TYPE_KEY = 'node.kubernetes.io/instance-type';
export const ZONE_KEY = 'topology.kubernetes.io/zone';
export const CAPACITY_TYPE_KEY = 'karpenter.sh/capacity-type';

export type { CapacityType };

/** Requirement — one entry of `spec.template.spec.requirements`. */
export interface Requirement {
  key: string;
  operator: string;
  values?: string[];
  minValues?: number;
}

/**
 * Offering — one thing Karpenter could launch: an instance type in a zone at a capacity type. `labels` are the
 * instance type's other well-known labels (`karpenter.k8s.aws/instance-family`, `kubernetes.io/arch`, …): a
 * requirement on a key that no offering carries is a label for the node, not a constraint on offerings.
 */
export interface Offering {
  instanceType: string;
  zone: string;
  capacityType: CapacityType;
  labels?: Record<string, string>;
}

export const offeringKey = (o: Pick<Offering, 'instanceType' | 'zone' | 'capacityType'>): string => `${o.instanceType}/${o.zone}/${o.capacityType}`;

function labelsOf(o: Offering): Record<string, string> {
  return { ...o.labels, [INSTANCE_TYPE_KEY]: o.instanceType, [ZONE_KEY]: o.zone, [CAPACITY_TYPE_KEY]: o.capacityType };
}

function matches(r: Requirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Gte':
    case 'Lt':
    case 'Lte': {
      if (value === undefined || values.length !== 1) return false;
      const [v, bound] = [Number(value), Number(values[0])];
      if (!Number.isFinite(v) || !Number.isFinite(bound)) return false;
      return r.operator === 'Gt' ? v > bound : r.operator === 'Gte' ? v >= bound : r.operator === 'Lt' ? v < bound : v <= bound;
    }
    default:
      return false;
  }
}

/**
 * admits — whether requirements admit an offering. Keys no offering of the catalogue carries are skipped (they
 * label nodes); with no requirement on `karpenter.sh/capacity-type` Karpenter launches on-demand only, and so
 * does this.
 */
export function admits(requirements: readonly Requirement[], o: Offering, knownKeys: ReadonlySet<string>): boolean {
  const labels = labelsOf(o);
  if (!requirements.some((r) => r.key === CAPACITY_TYPE_KEY) && o.capacityType !== 'on-demand') return false;
  return requirements.every((r) => !knownKeys.has(r.key) || matches(r, labels[r.key]));
}

/** catalogueKeys — every label key the offerings carry (the keys a requirement can constrain). */
export function catalogueKeys(offerings: readonly Offering[]): Set<string> {
  const keys = new Set([INSTANCE_TYPE_KEY, ZONE_KEY, CAPACITY_TYPE_KEY]);
  for (const o of offerings) for (const k of Object.keys(o.labels ?? {})) keys.add(k);
  return keys;
}

/** admitted — the offerings a NodePool's requirements admit. */
export function admitted(requirements: readonly Requirement[], offerings: readonly Offering[], keys = catalogueKeys(offerings)): Offering[] {
  return offerings.filter((o) => admits(requirements, o, keys));
}

/** sameRequirement — equal key, operator, values (as a set) and minValues. */
export function sameRequirement(a: Requirement, b: Requirement): boolean {
  const va = [...(a.values ?? [])].sort();
  const vb = [...(b.values ?? [])].sort();
  return a.key === b.key && a.operator === b.operator && (a.minValues ?? null) === (b.minValues ?? null) && va.length === vb.length && va.every((v, i) => v === vb[i]);
}

/** sameRequirements — the same entries in the same order. */
export function sameRequirements(a: readonly Requirement[], b: readonly Requirement[]): boolean {
  return a.length === b.length && a.every((r, i) => sameRequirement(r, b[i]!));
}

/** minValuesHeld — every `minValues` of the owner's requirements still met by the offerings left. */
export function minValuesHeld(requirements: readonly Requirement[], left: readonly Offering[]): boolean {
  return requirements.every((r) => {
    if (r.minValues === undefined) return true;
    const distinct = new Set(left.map((o) => labelsOf(o)[r.key]).filter((v) => v !== undefined));
    return distinct.size >= r.minValues;
  });
}

/**
 * nameLabels — the well-known Karpenter AWS labels an instance type's name gives: `m6g.xlarge` → category `m`,
 * family `m6g`, generation `6`, size `xlarge`. Requirements on keys nobody fills in (cpu, memory, arch) are not
 * read by {@link admits}: the planner then counts an offering such a requirement would refuse (docs/steering.md).
 */
export function nameLabels(instanceType: string): Record<string, string> {
  const [family, size] = instanceType.split('.');
  const m = /^([a-z]+?)(\d+)/.exec(family ?? '');
  const labels: Record<string, string> = {};
  if (family) labels['karpenter.k8s.aws/instance-family'] = family;
  if (size) labels['karpenter.k8s.aws/instance-size'] = size;
  if (m) {
    labels['karpenter.k8s.aws/instance-category'] = m[1]!;
    labels['karpenter.k8s.aws/instance-generation'] = m[2]!;
  }
  return labels;
}
