import { badRequest } from './errors.js';

/** Matcher — a compiled selector; true when the labels (or fields) satisfy every requirement. */
export type Matcher = (values: Readonly<Record<string, string>>) => boolean;

const always: Matcher = () => true;

/** splitTopLevel — splits on commas that are not inside parentheses (`a in (x,y),b`). */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** parseLabelSelector — the string form of a label selector (`=`, `==`, `!=`, `in`, `notin`, exists, `!key`). */
export function parseLabelSelector(selector: string | undefined): Matcher {
  if (!selector) return always;
  const reqs: Matcher[] = [];
  for (const part of splitTopLevel(selector)) {
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^([^\s!=]+)\s+(in|notin)\s+\((.*)\)$/))) {
      const key = m[1]!;
      const set = new Set(m[3]!.split(',').map((v) => v.trim()));
      const inSet = m[2] === 'in';
      reqs.push((l) => (inSet ? l[key] !== undefined && set.has(l[key]!) : l[key] === undefined || !set.has(l[key]!)));
    } else if ((m = part.match(/^([^\s!=]+)\s*!=\s*(\S*)$/))) {
      const [key, value] = [m[1]!, m[2]!];
      reqs.push((l) => l[key] !== value);
    } else if ((m = part.match(/^([^\s!=]+)\s*==?\s*(\S*)$/))) {
      const [key, value] = [m[1]!, m[2]!];
      reqs.push((l) => l[key] === value);
    } else if ((m = part.match(/^!\s*([^\s!=]+)$/))) {
      const key = m[1]!;
      reqs.push((l) => l[key] === undefined);
    } else if ((m = part.match(/^([^\s!=(),]+)$/))) {
      const key = m[1]!;
      reqs.push((l) => l[key] !== undefined);
    } else {
      throw badRequest(`unable to parse requirement: ${part}`);
    }
  }
  return (l) => reqs.every((r) => r(l));
}

/** parseFieldSelector — `key=value`, `key==value`, `key!=value` joined by commas, keys checked against `allowed`. */
export function parseFieldSelector(selector: string | undefined, allowed: readonly string[], kind: string): Matcher {
  if (!selector) return always;
  const reqs: Matcher[] = [];
  for (const part of splitTopLevel(selector)) {
    const m = part.match(/^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [key, op, value] = [m[1]!, m[2]!, m[3]!.trim()];
    if (key !== 'metadata.name' && key !== 'metadata.namespace' && !allowed.includes(key)) {
      throw badRequest(`field label not supported: ${key}`);
    }
    reqs.push(op === '!=' ? (f) => (f[key] ?? '') !== value : (f) => (f[key] ?? '') === value);
  }
  return (f) => reqs.every((r) => r(f));
}

/** LabelSelectorObject — the structured selector used inside objects (PDB `spec.selector`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

/**
 * matchesSelectorObject — a structured label selector against labels. An empty selector matches everything
 * (policy/v1 semantics); a null one matches nothing.
 */
export function matchesSelectorObject(sel: LabelSelectorObject | null | undefined, labels: Record<string, string>): boolean {
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = labels[e.key] !== undefined;
    const inValues = has && (e.values ?? []).includes(labels[e.key]!);
    if (e.operator === 'In' && !inValues) return false;
    if (e.operator === 'NotIn' && inValues) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}
