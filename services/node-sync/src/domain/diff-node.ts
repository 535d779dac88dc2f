import { createHash } from 'node:crypto';
import type { NodeRow } from './project-node.js';

/**
 * stableJson — JSON with object keys sorted, so equal rows serialise identically whatever order the API
 * returned labels or annotations in.
 */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** contentHash — sha256 of {@link stableJson}: stored beside a row so a resync writes only rows that changed. */
export const contentHash = (row: object): string => createHash('sha256').update(stableJson(row)).digest('hex');

/** sameContent — two rows are equal field for field (order of keys ignored). */
export const sameContent = (a: object, b: object): boolean => stableJson(a) === stableJson(b);

/** The fields whose change an operator cares about: they make a `node.changed` event. */
export const OPERATOR_RELEVANT_FIELDS: readonly (keyof NodeRow)[] = [
  'ready',
  'unschedulable',
  'state',
  'taints',
  'capacity',
  'allocatable',
];

export interface NodeDiff {
  readonly changed: boolean;
  /** Ready, cordon, state, taints or capacity changed (or the node is new): publish `node.changed`. */
  readonly operatorRelevant: boolean;
  /** The changed top-level fields, in NodeRow order. */
  readonly fields: (keyof NodeRow)[];
}

/** diffNode — which fields of a node's row differ; `prev` undefined means a new node (every field). */
export function diffNode(prev: NodeRow | undefined, next: NodeRow): NodeDiff {
  const keys = Object.keys(next) as (keyof NodeRow)[];
  const fields = prev ? keys.filter((k) => stableJson(prev[k]) !== stableJson(next[k])) : keys;
  return {
    changed: fields.length > 0,
    operatorRelevant: fields.some((f) => OPERATOR_RELEVANT_FIELDS.includes(f)),
    fields,
  };
}
