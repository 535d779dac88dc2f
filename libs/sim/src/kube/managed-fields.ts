import type { KubeObject } from './resources.js';

/**
 * Managed fields, the way the API server keeps them for Update operations (and a simplified server-side
 * apply): each write's manager takes ownership of the fields that write changed, and loses nothing else;
 * other managers lose ownership of fields the write changed or removed; entries left empty disappear.
 * Lists named in KEYED_LISTS are associative (`k:{"type":"Ready"}`); other lists are atomic.
 */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: KubeObject;
  subresource?: string;
}

export const ANCIENT_CHANGES = 'ancient-changes';
/** MAX_UPDATE_MANAGERS — the API server's cap on Update entries before the oldest merge into `ancient-changes`. */
export const MAX_UPDATE_MANAGERS = 10;

const KEYED_LISTS: Readonly<Record<string, string>> = {
  conditions: 'type',
  addresses: 'type',
  containers: 'name',
  initContainers: 'name',
  volumes: 'name',
  env: 'name',
  volumeMounts: 'mountPath',
  ownerReferences: 'uid',
};

const SEP = '\n';
const STRIPPED_METADATA = new Set([
  'name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'managedFields', 'selfLink',
]);

const isMap = (v: unknown): v is KubeObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * leafPaths — every owned-field path of `obj` with a fingerprint of its value. `scope` picks what a
 * write may own: the whole object but status (main resource of a kind with a status subresource),
 * only status (the status subresource), or everything.
 */
export function leafPaths(obj: KubeObject, scope: 'main' | 'status' | 'all'): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (scope === 'main' && k === 'status') continue;
    if (scope === 'status' && k !== 'status') continue;
    if (k === 'metadata' && isMap(v)) {
      for (const [mk, mv] of Object.entries(v)) {
        if (!STRIPPED_METADATA.has(mk)) walk(mv, `f:metadata${SEP}f:${mk}`, mk, out);
      }
      continue;
    }
    walk(v, `f:${k}`, k, out);
  }
  return out;
}

function walk(v: unknown, path: string, field: string, out: Map<string, string>): void {
  if (isMap(v)) {
    const keys = Object.keys(v);
    if (keys.length === 0) out.set(path, '{}');
    for (const k of keys) walk(v[k], `${path}${SEP}f:${k}`, k, out);
    return;
  }
  const key = KEYED_LISTS[field];
  if (Array.isArray(v) && key && v.every((i) => isMap(i) && i[key] !== undefined)) {
    for (const item of v as KubeObject[]) {
      const itemPath = `${path}${SEP}k:${JSON.stringify({ [key]: item[key] })}`;
      out.set(`${itemPath}${SEP}.`, '');
      for (const [ik, iv] of Object.entries(item)) walk(iv, `${itemPath}${SEP}f:${ik}`, ik, out);
    }
    return;
  }
  out.set(path, JSON.stringify(v));
}

/** toFieldsV1 — path set to the nested `fieldsV1` form (`{"f:spec":{"f:unschedulable":{}}}`). */
export function toFieldsV1(paths: Iterable<string>): KubeObject {
  const root: KubeObject = {};
  for (const p of paths) {
    let cur = root;
    for (const seg of p.split(SEP)) cur = cur[seg] ??= {};
  }
  return root;
}

/** fromFieldsV1 — the nested form back to leaf paths. */
export function fromFieldsV1(tree: KubeObject, prefix = ''): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(tree)) {
    const path = prefix ? `${prefix}${SEP}${k}` : k;
    if (isMap(v) && Object.keys(v).length > 0) for (const p of fromFieldsV1(v, path)) out.add(p);
    else out.add(path);
  }
  return out;
}

export interface FieldWrite {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  subresource?: string;
  time: string;
  /** For Apply: the paths the applied configuration sets (ownership is exactly these). */
  applied?: Set<string>;
}

const sameEntry = (e: ManagedFieldsEntry, w: FieldWrite): boolean =>
  e.manager === w.manager && e.operation === w.operation && e.apiVersion === w.apiVersion && (e.subresource ?? '') === (w.subresource ?? '');

/**
 * updateManagedFields — the entries after one write from `oldObj` to `newObj`. Paths whose value changed
 * or appeared go to the writer; they and removed paths leave every other entry.
 */
export function updateManagedFields(
  entries: readonly ManagedFieldsEntry[],
  oldObj: KubeObject | undefined,
  newObj: KubeObject,
  write: FieldWrite,
  scope: 'main' | 'status' | 'all',
): ManagedFieldsEntry[] {
  const before = oldObj ? leafPaths(oldObj, scope) : new Map<string, string>();
  const after = leafPaths(newObj, scope);
  const changed = new Set<string>();
  for (const [p, v] of after) if (before.get(p) !== v) changed.add(p);
  const removed = new Set<string>();
  for (const p of before.keys()) if (!after.has(p)) removed.add(p);

  // Apply shares ownership of fields whose value it did not change; any write takes the ones it changed.
  const taken = write.applied ? new Set([...write.applied].filter((p) => changed.has(p))) : changed;
  const out: ManagedFieldsEntry[] = [];
  let mine: Set<string> | undefined;
  let mineEntry: ManagedFieldsEntry | undefined;
  for (const e of entries) {
    const set = fromFieldsV1(e.fieldsV1);
    if (sameEntry(e, write)) {
      mine = set;
      mineEntry = e;
      continue;
    }
    let touched = false;
    for (const p of [...taken, ...removed]) if (set.delete(p)) touched = true;
    if (set.size > 0) out.push(touched ? { ...e, fieldsV1: toFieldsV1(set) } : e);
  }
  let next: Set<string>;
  if (write.applied) {
    next = new Set(write.applied);
  } else {
    next = new Set(mine ?? []);
    for (const p of removed) next.delete(p);
    for (const p of changed) next.add(p);
  }
  const same = mine !== undefined && mine.size === next.size && [...next].every((p) => mine!.has(p));
  if (next.size > 0) {
    const time = same && mineEntry ? mineEntry.time : write.time;
    out.push({
      manager: write.manager,
      operation: write.operation,
      apiVersion: write.apiVersion,
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: same && mineEntry ? mineEntry.fieldsV1 : toFieldsV1(next),
      ...(write.subresource ? { subresource: write.subresource } : {}),
    });
  }
  return capUpdateManagers(out);
}

/**
 * capUpdateManagers — at most MAX_UPDATE_MANAGERS Update entries: the oldest are merged, one by one, into
 * an `ancient-changes` entry for their apiVersion (the first one is renamed, keeping its time).
 */
export function capUpdateManagers(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  const updaters = entries.filter((e) => e.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return entries;
  const oldestFirst = [...updaters].sort((a, b) => a.time.localeCompare(b.time));
  let list = [...entries];
  let count = updaters.length;
  for (const e of oldestFirst) {
    if (count <= MAX_UPDATE_MANAGERS) break;
    if (e.manager === ANCIENT_CHANGES) continue;
    const bucket = list.find((x) => x.manager === ANCIENT_CHANGES && x.operation === 'Update' && x.apiVersion === e.apiVersion);
    if (bucket) {
      const merged = fromFieldsV1(bucket.fieldsV1);
      for (const p of fromFieldsV1(e.fieldsV1)) merged.add(p);
      const replacement: ManagedFieldsEntry = {
        ...bucket,
        fieldsV1: toFieldsV1(merged),
        time: bucket.time > e.time ? bucket.time : e.time,
      };
      list = list.filter((x) => x !== e).map((x) => (x === bucket ? replacement : x));
      count--;
    } else {
      list = list.map((x) => (x === e ? { ...e, manager: ANCIENT_CHANGES } : x));
    }
  }
  return list;
}

/** ownerOf — the entry that owns a path such as `f:spec\nf:unschedulable` (exported for tests and scenarios). */
export function ownerOf(entries: readonly ManagedFieldsEntry[], path: string[]): ManagedFieldsEntry | undefined {
  const p = path.join(SEP);
  return entries.find((e) => fromFieldsV1(e.fieldsV1).has(p));
}

export const pathKey = (segments: string[]): string => segments.join(SEP);
