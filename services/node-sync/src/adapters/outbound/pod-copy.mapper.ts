import { createHash } from 'node:crypto';
import { stableJson } from '../../domain/diff-node.js';
import { workloadClassOf } from '../../domain/plan-sync.js';
import type { PodRow } from '../../domain/project-pod.js';

/**
 * A pod row as one line of PostgreSQL's COPY text format: what node-sync's cache keeps of each pod (one string, not
 * an object graph) and what its writes stream into `COPY … FROM STDIN` unchanged (docs/node-sync.md).
 */

/** POD_COPY_COLUMNS — the columns of {@link podCopyRow}, in order, then `content_hash` appended at write time. */
export const POD_COPY_COLUMNS = [
  'uid', 'namespace', 'name', 'node_name', 'phase', 'owner_kind', 'owner_name', 'workload_class', 'qos', 'cpu_milli',
  'memory_bytes', 'gpu', 'has_pvc', 'has_local_storage', 'mirror', 'daemonset', 'labels', 'annotations', 'k8s_created_at',
] as const;

/** copyText — one field in COPY text format: `\N` for null, backslash, tab, newline and carriage return escaped. */
export function copyText(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return String(Math.round(v));
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r')) : v;
}

/** podCopyRow — the row's fields in {@link POD_COPY_COLUMNS} order, tab-separated (labels and annotations as sorted JSON). */
export function podCopyRow(r: PodRow): string {
  return [
    r.uid, r.namespace, r.name, r.nodeName, r.phase, r.ownerKind, r.ownerName, workloadClassOf(r), r.qos, r.requests.cpuMilli,
    r.requests.memoryBytes, r.gpu, r.hasPvc, r.hasLocalStorage, r.mirror, r.daemonset, stableJson(r.labels), stableJson(r.annotations), r.createdAt,
  ].map(copyText).join('\t');
}

/** copyRowHash — the content hash of an encoded row: 132 bits of its SHA-256, base64url (22 characters). */
export const copyRowHash = (row: string): string => createHash('sha256').update(row).digest('base64url').slice(0, 22);
