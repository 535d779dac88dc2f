import { parseCron } from '@nodes-manager/disruption';
import { isDns1123Subdomain, isLabelValue, isQualifiedName, isQuantity, parseDuration } from './kube-syntax.js';
import { isObject, mergePatch } from './merge-patch.js';
import { CONSOLIDATION_POLICIES, DISRUPTION_REASONS, KARPENTER_API_VERSION, type NodePool } from './nodepool.types.js';

/** FieldError — one refusal, naming the field by its path (`spec.disruption.budgets[0].nodes`). */
export interface FieldError {
  field: string;
  message: string;
}
export const formatFieldErrors = (errors: readonly FieldError[]): string => errors.map((e) => `${e.field}: ${e.message}`).join('; ');

export const REQUIREMENT_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'] as const;
const NUMERIC_OPERATORS = new Set(['Gt', 'Lt', 'Gte', 'Lte']);
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
/** Labels Karpenter itself sets on every node; a requirement on them is refused by its admission rules. */
const RESTRICTED_REQUIREMENT_KEYS = new Set(['kubernetes.io/hostname', 'karpenter.sh/nodepool']);
const WELL_KNOWN_KARPENTER_KEYS = new Set(['karpenter.sh/capacity-type']);

const SPEC_KEYS = new Set(['template', 'disruption', 'limits', 'weight']);
const TEMPLATE_SPEC_KEYS = new Set(['nodeClassRef', 'requirements', 'taints', 'startupTaints', 'expireAfter', 'terminationGracePeriod']);
const DISRUPTION_KEYS = new Set(['consolidationPolicy', 'consolidateAfter', 'budgets']);
const BUDGET_KEYS = new Set(['nodes', 'schedule', 'duration', 'reasons']);
/** A budget's `nodes`: a count, or a percentage from 0% to 100% (Karpenter's CRD pattern). */
const BUDGET_NODES = /^((100|[0-9]{1,2})%|[0-9]+)$/;
/** A budget's `duration`: hours and/or minutes (Karpenter's CRD pattern: `1h`, `30m`, `1h30m`, optional `0s`). */
const BUDGET_DURATION = /^(([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?$/;

class Collector {
  readonly errors: FieldError[] = [];
  add(field: string, message: string): void {
    this.errors.push({ field, message });
  }
  unknownKeys(obj: Record<string, unknown>, allowed: ReadonlySet<string>, at: string): void {
    for (const k of Object.keys(obj)) if (!allowed.has(k)) this.add(`${at}.${k}`, `unknown field (allowed: ${[...allowed].join(', ')})`);
  }
  stringMap(v: unknown, at: string, keyCheck: (k: string) => boolean): void {
    if (v === undefined) return;
    if (!isObject(v)) return this.add(at, 'must be an object of strings');
    for (const [k, x] of Object.entries(v)) {
      if (!keyCheck(k)) this.add(`${at}.${k}`, 'must be a qualified name (optional DNS prefix and /, then at most 63 characters)');
      if (typeof x !== 'string') this.add(`${at}.${k}`, 'must be a string');
    }
  }
}

/**
 * validateNodePool — every way a NodePool breaks the `karpenter.sh/v1` schema and Karpenter's admission rules,
 * checked before anything is sent to the API server. An empty list means valid.
 */
export function validateNodePool(input: unknown): FieldError[] {
  const c = new Collector();
  if (!isObject(input)) {
    c.add('nodePool', 'must be a JSON object');
    return c.errors;
  }
  if (input.apiVersion !== undefined && input.apiVersion !== KARPENTER_API_VERSION) c.add('apiVersion', `must be ${KARPENTER_API_VERSION}`);
  if (input.kind !== undefined && input.kind !== 'NodePool') c.add('kind', 'must be NodePool');
  if (input.status !== undefined) c.add('status', 'is set by Karpenter and cannot be written');
  const meta = input.metadata;
  if (!isObject(meta)) c.add('metadata', 'is required (an object with a name)');
  else {
    if (!isDns1123Subdomain(meta.name)) c.add('metadata.name', 'must be a DNS-1123 name (lower-case letters, digits, - and ., at most 253 characters)');
    c.stringMap(meta.labels, 'metadata.labels', isQualifiedName);
    c.stringMap(meta.annotations, 'metadata.annotations', isQualifiedName);
  }
  const spec = input.spec;
  if (!isObject(spec)) {
    c.add('spec', 'is required');
    return c.errors;
  }
  c.unknownKeys(spec, SPEC_KEYS, 'spec');
  validateTemplate(spec.template, c);
  if (spec.disruption !== undefined) validateDisruption(spec.disruption, c);
  if (spec.limits !== undefined) validateLimits(spec.limits, c);
  if (spec.weight !== undefined && !(Number.isInteger(spec.weight) && (spec.weight as number) >= 1 && (spec.weight as number) <= 100)) {
    c.add('spec.weight', 'must be an integer from 1 to 100');
  }
  return c.errors;
}

function validateTemplate(t: unknown, c: Collector): void {
  const at = 'spec.template';
  if (!isObject(t)) return c.add(at, 'is required');
  c.unknownKeys(t, new Set(['metadata', 'spec']), at);
  if (t.metadata !== undefined) {
    if (!isObject(t.metadata)) c.add(`${at}.metadata`, 'must be an object');
    else {
      c.unknownKeys(t.metadata, new Set(['labels', 'annotations']), `${at}.metadata`);
      c.stringMap(t.metadata.labels, `${at}.metadata.labels`, isQualifiedName);
      c.stringMap(t.metadata.annotations, `${at}.metadata.annotations`, isQualifiedName);
    }
  }
  const s = t.spec;
  if (!isObject(s)) return c.add(`${at}.spec`, 'is required');
  c.unknownKeys(s, TEMPLATE_SPEC_KEYS, `${at}.spec`);
  const ref = s.nodeClassRef;
  if (!isObject(ref)) c.add(`${at}.spec.nodeClassRef`, 'is required (group, kind and name of the node class)');
  else {
    for (const k of ['group', 'kind', 'name']) {
      if (typeof ref[k] !== 'string' || ref[k] === '') c.add(`${at}.spec.nodeClassRef.${k}`, 'is required (a non-empty string)');
    }
  }
  if (!Array.isArray(s.requirements)) c.add(`${at}.spec.requirements`, 'is required (a list)');
  else {
    if (s.requirements.length > 100) c.add(`${at}.spec.requirements`, 'must have at most 100 items');
    s.requirements.forEach((r, i) => validateRequirement(r, `${at}.spec.requirements[${i}]`, c));
  }
  for (const k of ['taints', 'startupTaints'] as const) {
    if (s[k] === undefined) continue;
    if (!Array.isArray(s[k])) {
      c.add(`${at}.spec.${k}`, 'must be a list');
      continue;
    }
    (s[k] as unknown[]).forEach((taint, i) => {
      const p = `${at}.spec.${k}[${i}]`;
      if (!isObject(taint)) return c.add(p, 'must be an object');
      if (!isQualifiedName(taint.key)) c.add(`${p}.key`, 'must be a qualified name');
      if (taint.value !== undefined && !isLabelValue(taint.value)) c.add(`${p}.value`, 'must be at most 63 characters of letters, digits, -, _ and .');
      if (!TAINT_EFFECTS.includes(taint.effect as string)) c.add(`${p}.effect`, `must be one of ${TAINT_EFFECTS.join(', ')}`);
    });
  }
  if (s.expireAfter !== undefined && !(s.expireAfter === 'Never' || parseDuration(s.expireAfter as string) !== undefined)) {
    c.add(`${at}.spec.expireAfter`, 'must be a duration like 720h or 1h30m, or Never');
  }
  if (s.terminationGracePeriod !== undefined && parseDuration(s.terminationGracePeriod as string) === undefined) {
    c.add(`${at}.spec.terminationGracePeriod`, 'must be a duration like 30s, 5m or 1h30m');
  }
}

function validateRequirement(r: unknown, at: string, c: Collector): void {
  if (!isObject(r)) return c.add(at, 'must be an object with key, operator and values');
  c.unknownKeys(r, new Set(['key', 'operator', 'values', 'minValues']), at);
  if (!isQualifiedName(r.key)) c.add(`${at}.key`, 'must be a qualified label key');
  else if (RESTRICTED_REQUIREMENT_KEYS.has(r.key) || (r.key.startsWith('karpenter.sh/') && !WELL_KNOWN_KARPENTER_KEYS.has(r.key))) {
    c.add(`${at}.key`, `label "${r.key}" is restricted`);
  }
  const op = r.operator;
  if (!(REQUIREMENT_OPERATORS as readonly unknown[]).includes(op)) {
    c.add(`${at}.operator`, `must be one of ${REQUIREMENT_OPERATORS.join(', ')}`);
    return;
  }
  if (r.values !== undefined && !Array.isArray(r.values)) return c.add(`${at}.values`, 'must be a list of strings');
  const values = (r.values ?? []) as unknown[];
  values.forEach((v, i) => {
    if (typeof v !== 'string' || !isLabelValue(v)) c.add(`${at}.values[${i}]`, 'must be a label value (at most 63 letters, digits, -, _ and .)');
  });
  if ((op === 'In' || op === 'NotIn') && values.length === 0) c.add(`${at}.values`, `operator ${op} needs at least one value`);
  if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) c.add(`${at}.values`, `operator ${op} takes no values`);
  if (NUMERIC_OPERATORS.has(op as string)) {
    if (values.length !== 1) c.add(`${at}.values`, `operator ${op} needs exactly one value`);
    else if (typeof values[0] !== 'string' || !/^\d+$/.test(values[0])) c.add(`${at}.values[0]`, `operator ${op} needs a non-negative integer`);
  }
  if (r.minValues !== undefined) {
    if (!Number.isInteger(r.minValues) || (r.minValues as number) < 1 || (r.minValues as number) > 50) c.add(`${at}.minValues`, 'must be an integer from 1 to 50');
    else if (op === 'In' && values.length < (r.minValues as number)) c.add(`${at}.minValues`, `needs at least ${r.minValues} values`);
  }
}

function validateDisruption(d: unknown, c: Collector): void {
  const at = 'spec.disruption';
  if (!isObject(d)) return c.add(at, 'must be an object');
  c.unknownKeys(d, DISRUPTION_KEYS, at);
  if (d.consolidationPolicy !== undefined && !(CONSOLIDATION_POLICIES as readonly unknown[]).includes(d.consolidationPolicy)) {
    c.add(`${at}.consolidationPolicy`, `must be one of ${CONSOLIDATION_POLICIES.join(', ')}`);
  }
  if (d.consolidateAfter !== undefined && !(d.consolidateAfter === 'Never' || parseDuration(d.consolidateAfter as string) !== undefined)) {
    c.add(`${at}.consolidateAfter`, 'must be a duration like 30s, 5m or 1h30m, or Never');
  }
  if (d.budgets === undefined) return;
  if (!Array.isArray(d.budgets)) return c.add(`${at}.budgets`, 'must be a list');
  if (d.budgets.length > 50) c.add(`${at}.budgets`, 'must have at most 50 items');
  d.budgets.forEach((b, i) => {
    const p = `${at}.budgets[${i}]`;
    if (!isObject(b)) return c.add(p, 'must be an object');
    c.unknownKeys(b, BUDGET_KEYS, p);
    if (typeof b.nodes !== 'string' || !BUDGET_NODES.test(b.nodes)) c.add(`${p}.nodes`, 'must be a count or a percentage (e.g. "5" or "10%", as a string)');
    if ((b.schedule === undefined) !== (b.duration === undefined)) c.add(`${p}.${b.schedule === undefined ? 'schedule' : 'duration'}`, 'schedule and duration must be set together');
    if (b.schedule !== undefined) {
      if (typeof b.schedule !== 'string') c.add(`${p}.schedule`, 'must be a cron expression');
      else {
        try {
          parseCron(b.schedule);
        } catch (e) {
          c.add(`${p}.schedule`, `must be a cron expression: ${(e as Error).message}`);
        }
      }
    }
    if (b.duration !== undefined && (typeof b.duration !== 'string' || !BUDGET_DURATION.test(b.duration))) {
      c.add(`${p}.duration`, 'must be hours and/or minutes like 1h, 30m or 1h30m');
    }
    if (b.reasons !== undefined) {
      if (!Array.isArray(b.reasons)) c.add(`${p}.reasons`, 'must be a list');
      else
        b.reasons.forEach((r, j) => {
          if (!(DISRUPTION_REASONS as readonly unknown[]).includes(r)) c.add(`${p}.reasons[${j}]`, `must be one of ${DISRUPTION_REASONS.join(', ')}`);
        });
    }
  });
}

function validateLimits(l: unknown, c: Collector): void {
  if (!isObject(l)) return c.add('spec.limits', 'must be an object of resource quantities');
  for (const [k, v] of Object.entries(l)) {
    if (!isQualifiedName(k)) c.add(`spec.limits.${k}`, 'must be a resource name');
    if (!isQuantity(v)) c.add(`spec.limits.${k}`, 'must be a Kubernetes quantity (e.g. 1000, 500m, 64Gi)');
  }
}

/** NodePoolPatch — the only change a PATCH may make: a JSON merge patch of `spec.limits` and/or `spec.disruption`. */
export interface NodePoolPatch {
  spec: { limits?: Record<string, unknown> | null; disruption?: Record<string, unknown> | null };
}

/**
 * validateNodePoolPatch — the PATCH body `{"spec":{"limits":…,"disruption":…}}` (a JSON merge patch). Anything
 * else — `spec.template`, `spec.weight`, `metadata`, a bare `limits` — is refused, naming the field.
 */
export function validateNodePoolPatch(body: unknown): { patch?: NodePoolPatch; errors: FieldError[] } {
  const c = new Collector();
  if (!isObject(body)) return { errors: [{ field: 'body', message: 'must be a JSON object {"spec":{"limits":…,"disruption":…}}' }] };
  for (const k of Object.keys(body)) {
    if (k !== 'spec') {
      const hint = k === 'limits' || k === 'disruption' ? `; send {"spec":{"${k}":…}}` : '';
      c.add(k, `cannot be changed: only spec.limits and spec.disruption may be patched${hint}`);
    }
  }
  const spec = body.spec;
  if (spec === undefined) {
    if (c.errors.length === 0) c.add('spec', 'is required: {"spec":{"limits":…,"disruption":…}}');
  } else if (!isObject(spec)) c.add('spec', 'must be an object');
  else {
    for (const k of Object.keys(spec)) {
      if (k !== 'limits' && k !== 'disruption') c.add(`spec.${k}`, 'cannot be changed: only spec.limits and spec.disruption may be patched');
    }
    if (spec.limits === undefined && spec.disruption === undefined && c.errors.length === 0) c.add('spec', 'must change spec.limits or spec.disruption');
    for (const k of ['limits', 'disruption'] as const) {
      if (spec[k] !== undefined && spec[k] !== null && !isObject(spec[k])) c.add(`spec.${k}`, 'must be an object (or null to remove it)');
    }
  }
  if (c.errors.length > 0) return { errors: c.errors };
  const s = spec as Record<string, Record<string, unknown> | null | undefined>;
  const patch: NodePoolPatch = { spec: {} };
  if (s.limits !== undefined) patch.spec.limits = s.limits;
  if (s.disruption !== undefined) patch.spec.disruption = s.disruption;
  return { patch, errors: [] };
}

/**
 * applyNodePoolPatch — the pool as it will be after the merge patch, and the patch's own errors: the merged
 * `spec.limits`/`spec.disruption` are checked against the schema (problems elsewhere in a pool written by
 * someone else are not this PATCH's to refuse).
 */
export function applyNodePoolPatch(current: NodePool, patch: NodePoolPatch): { next: NodePool; errors: FieldError[] } {
  const next = mergePatch(current, patch) as NodePool;
  const errors = validateNodePool({ ...next, status: undefined }).filter((e) => e.field.startsWith('spec.limits') || e.field.startsWith('spec.disruption'));
  return { next, errors };
}
