/**
 * Karpenter's scheduling requirements (kubernetes-sigs/karpenter, pkg/scheduling/requirement.go and requirements.go),
 * as far as drift and offering selection need them: a requirement is a set of values or its complement, with integer
 * bounds for Gt/Lt. See docs/karpenter-simulator.md.
 */

/** NodeSelectorRequirement — one entry of `spec.template.spec.requirements` (minValues is carried, not used). */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | 'Gte' | 'Lte';
  readonly values?: readonly string[];
  readonly minValues?: number;
}

/** NORMALIZED_LABELS — deprecated label keys Karpenter reads as their stable names (pkg/apis/v1/labels.go). */
export const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'beta.kubernetes.io/arch': 'kubernetes.io/arch',
  'beta.kubernetes.io/os': 'kubernetes.io/os',
  'beta.kubernetes.io/instance-type': 'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
};

/** Requirement — values (or, with `complement`, everything but them) within optional integer bounds gte..lte. */
class Requirement {
  constructor(
    readonly key: string,
    readonly values: ReadonlySet<string>,
    readonly complement: boolean,
    readonly gte?: number,
    readonly lte?: number,
  ) {}

  static of(r: NodeSelectorRequirement): Requirement {
    const key = NORMALIZED_LABELS[r.key] ?? r.key;
    const values = r.values ?? [];
    const int = (): number => Number.parseInt(values[0] ?? '', 10);
    switch (r.operator) {
      case 'In': return new Requirement(key, new Set(values), false);
      case 'NotIn': return new Requirement(key, new Set(values), true);
      case 'Exists': return new Requirement(key, new Set(), true);
      case 'DoesNotExist': return new Requirement(key, new Set(), false);
      // Gt N is canonicalised to ≥ N+1 and Lt N to ≤ N−1, as NewRequirementWithFlexibility does.
      case 'Gt': return new Requirement(key, new Set(), true, int() + 1);
      case 'Lt': return new Requirement(key, new Set(), true, undefined, int() - 1);
      case 'Gte': return new Requirement(key, new Set(), true, int());
      case 'Lte': return new Requirement(key, new Set(), true, undefined, int());
    }
  }

  /** operator — as Requirement.Operator(): a complement is NotIn when it excludes values, else Exists (bounds too). */
  operator(): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
    if (this.complement) return this.values.size > 0 ? 'NotIn' : 'Exists';
    return this.values.size > 0 ? 'In' : 'DoesNotExist';
  }

  has(value: string): boolean {
    return (this.complement ? !this.values.has(value) : this.values.has(value)) && withinBounds(value, this.gte, this.lte);
  }

  intersection(o: Requirement): Requirement {
    const gte = maxOf(this.gte, o.gte);
    const lte = minOf(this.lte, o.lte);
    if (gte !== undefined && lte !== undefined && gte > lte) return new Requirement(this.key, new Set(), false);
    const complement = this.complement && o.complement;
    let values: Set<string>;
    if (this.complement && o.complement) values = new Set([...this.values, ...o.values]);
    else if (this.complement) values = new Set([...o.values].filter((v) => !this.values.has(v)));
    else if (o.complement) values = new Set([...this.values].filter((v) => !o.values.has(v)));
    else values = new Set([...this.values].filter((v) => o.values.has(v)));
    for (const v of values) if (!withinBounds(v, gte, lte)) values.delete(v);
    return complement ? new Requirement(this.key, values, true, gte, lte) : new Requirement(this.key, values, false);
  }

  /** hasIntersection — whether some value satisfies both (Requirement.HasIntersection). */
  hasIntersection(o: Requirement): boolean {
    const gte = maxOf(this.gte, o.gte);
    const lte = minOf(this.lte, o.lte);
    if (gte !== undefined && lte !== undefined && gte > lte) return false;
    if (this.complement && o.complement) return true;
    if (this.complement) return [...o.values].some((v) => !this.values.has(v) && withinBounds(v, gte, lte));
    if (o.complement) return [...this.values].some((v) => !o.values.has(v) && withinBounds(v, gte, lte));
    return [...this.values].some((v) => o.values.has(v) && withinBounds(v, gte, lte));
  }
}

/** Requirements — requirements by key; adding a second one for a key keeps their intersection. */
export class Requirements {
  private readonly byKey = new Map<string, Requirement>();

  static fromNodeSelector(reqs: readonly NodeSelectorRequirement[]): Requirements {
    const r = new Requirements();
    for (const q of reqs) r.add(Requirement.of(q));
    return r;
  }

  /** fromLabels — one `In [value]` per label, as NewLabelRequirements. */
  static fromLabels(labels: Readonly<Record<string, string>>): Requirements {
    const r = new Requirements();
    for (const [k, v] of Object.entries(labels)) r.add(Requirement.of({ key: k, operator: 'In', values: [v] }));
    return r;
  }

  private add(q: Requirement): void {
    const existing = this.byKey.get(q.key);
    this.byKey.set(q.key, existing ? q.intersection(existing) : q);
  }

  /** get — the requirement for `key`; an undefined key allows any value (Exists), as Requirements.Get. */
  private get(key: string): Requirement {
    return this.byKey.get(key) ?? new Requirement(key, new Set(), true);
  }

  /** allows — whether `value` for `key` satisfies this set (an absent key allows everything). */
  allows(key: string, value: string): boolean {
    return this.get(NORMALIZED_LABELS[key] ?? key).has(value);
  }

  /**
   * incompatibility — why `incoming` is not compatible with these requirements, or undefined (Requirements.Compatible
   * without AllowUndefined): each incoming key must be defined here unless it is NotIn/DoesNotExist, and every shared
   * key must intersect, except two NotIn/DoesNotExist that do not.
   */
  incompatibility(incoming: Requirements, allowUndefined: ReadonlySet<string> = NONE): string | undefined {
    for (const [key, q] of incoming.byKey) {
      const op = q.operator();
      if (allowUndefined.has(key) || this.byKey.has(key) || op === 'NotIn' || op === 'DoesNotExist') continue;
      return `label "${key}" does not have known values`;
    }
    for (const [key, q] of incoming.byKey) {
      const existing = this.byKey.get(key);
      if (!existing || existing.hasIntersection(q)) continue;
      const negative = (o: string): boolean => o === 'NotIn' || o === 'DoesNotExist';
      if (negative(q.operator()) && negative(existing.operator())) continue;
      return `key ${key}, ${describe(q)} not in ${describe(existing)}`;
    }
    return undefined;
  }
}

const NONE: ReadonlySet<string> = new Set();

/**
 * WELL_KNOWN_LABELS — labels Karpenter itself sets on a node, which a pod may require of a NodePool that does not
 * name them (`AllowUndefinedWellKnownLabels`; kubernetes-sigs/karpenter pkg/apis/v1/labels.go, and the AWS
 * provider's `karpenter.k8s.aws/*` labels).
 */
export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  'topology.kubernetes.io/zone', 'topology.kubernetes.io/region', 'node.kubernetes.io/instance-type', 'kubernetes.io/arch', 'kubernetes.io/os',
  'karpenter.sh/capacity-type', 'karpenter.sh/nodepool', 'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-memory',
]);

/** RequirementsDrift — the drift reason Karpenter sets (pkg/controllers/nodeclaim/disruption/drift.go). */
export const REQUIREMENTS_DRIFTED = 'RequirementsDrifted';

/**
 * requirementsDrifted — Karpenter's `areRequirementsDrifted`: a NodeClaim is drifted when its labels, read as
 * `In [value]` requirements, are not compatible with the NodePool's `spec.template.spec.requirements`. So narrowing
 * (a value removed from `In`, added to `NotIn`) drifts the NodeClaims that carry it; widening drifts nothing; a new
 * `In`/`Exists` requirement on a label the NodeClaim lacks drifts it, a `NotIn`/`DoesNotExist` one does not.
 */
export function requirementsDrifted(
  nodeClaimLabels: Readonly<Record<string, string>>,
  nodePoolRequirements: readonly NodeSelectorRequirement[],
): { drifted: false } | { drifted: true; reason: typeof REQUIREMENTS_DRIFTED; detail: string } {
  const detail = Requirements.fromLabels(nodeClaimLabels).incompatibility(Requirements.fromNodeSelector(nodePoolRequirements));
  return detail === undefined ? { drifted: false } : { drifted: true, reason: REQUIREMENTS_DRIFTED, detail };
}

function describe(r: Requirement): string {
  const op = r.operator();
  const bounds = [r.gte !== undefined ? `>=${r.gte}` : '', r.lte !== undefined ? `<=${r.lte}` : ''].filter(Boolean).join(' ');
  return `${op}${r.values.size ? ` [${[...r.values].sort().join(', ')}]` : ''}${bounds ? ` ${bounds}` : ''}`;
}

function withinBounds(value: string, gte?: number, lte?: number): boolean {
  if (gte === undefined && lte === undefined) return true;
  if (!/^-?\d+$/.test(value)) return false;
  const v = Number.parseInt(value, 10);
  return (gte === undefined || v >= gte) && (lte === undefined || v <= lte);
}

const maxOf = (a?: number, b?: number): number | undefined => (a === undefined ? b : b === undefined ? a : Math.max(a, b));
const minOf = (a?: number, b?: number): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
