import { ApiError, badRequest } from './errors.js';
import type { KubeObject } from './resources.js';

const isMap = (v: unknown): v is KubeObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** mergePatch — RFC 7386 JSON merge patch: maps merge, `null` deletes, everything else (lists too) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return patch;
  const out: KubeObject = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * STRATEGIC_MERGE_KEYS — list fields that the core types declare `patchStrategy:"merge"` with their
 * `patchMergeKey`. Lists not named here (node `spec.taints`, pod `tolerations`, …) are replaced whole,
 * as the API server does. Primitive lists with merge strategy (finalizers) are unioned.
 */
const STRATEGIC_MERGE_KEYS: Readonly<Record<string, string>> = {
  conditions: 'type',
  addresses: 'type',
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  volumeMounts: 'mountPath',
  imagePullSecrets: 'name',
  ports: 'containerPort',
  ownerReferences: 'uid',
};
const STRATEGIC_PRIMITIVE_MERGE = new Set(['finalizers']);

/** strategicMergePatch — the parts of strategic merge patch the core types need (see STRATEGIC_MERGE_KEYS). */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return patch;
  if (patch.$patch === 'replace') {
    const { $patch: _ignored, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  const out: KubeObject = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = out[field].filter((x: unknown) => !v.includes(x));
      continue;
    }
    if (v === null) {
      delete out[k];
    } else if (Array.isArray(v) && STRATEGIC_MERGE_KEYS[k] && Array.isArray(out[k])) {
      out[k] = mergeKeyedList(out[k], v, STRATEGIC_MERGE_KEYS[k]!);
    } else if (Array.isArray(v) && STRATEGIC_PRIMITIVE_MERGE.has(k) && Array.isArray(out[k])) {
      out[k] = [...out[k], ...v.filter((x: unknown) => !out[k].includes(x))];
    } else if (isMap(v)) {
      const merged = strategicMergePatch(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else {
      out[k] = stripDirectives(v);
    }
  }
  return out;
}

function mergeKeyedList(current: KubeObject[], patch: unknown[], key: string): KubeObject[] {
  if (patch.some((p) => isMap(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isMap(p) && p.$patch === 'replace')).map(stripDirectives) as KubeObject[];
  }
  const out = [...current];
  for (const item of patch) {
    if (!isMap(item)) continue;
    const idx = out.findIndex((c) => isMap(c) && c[key] === item[key]);
    if (item.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
    } else if (idx >= 0) {
      out[idx] = strategicMergePatch(out[idx], item) as KubeObject;
    } else {
      out.push(stripDirectives(item) as KubeObject);
    }
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isMap(v)) return v;
  const out: KubeObject = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = stripDirectives(x);
  return out;
}

interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

const unescape = (s: string): string => s.replace(/~1/g, '/').replace(/~0/g, '~');

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw badRequest(`invalid JSON pointer "${path}"`);
  return path.slice(1).split('/').map(unescape);
}

function getAt(doc: unknown, parts: string[]): unknown {
  let cur: unknown = doc;
  for (const p of parts) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isMap(cur)) cur = cur[p];
    else return undefined;
  }
  return cur;
}

const deepEqual = (a: unknown, b: unknown): boolean => JSON.stringify(canon(a)) === JSON.stringify(canon(b));
function canon(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canon);
  if (!isMap(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]));
}

const patchFailure = (message: string): ApiError => new ApiError(422, 'Invalid', message);

/**
 * jsonPatch — RFC 6902 on a copy of `doc`. A failing `test` (or a path that does not exist) fails the
 * whole patch with 422 Invalid, as the API server answers.
 */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let out = structuredClone(doc);
  for (const raw of ops as JsonPatchOp[]) {
    const parts = pointer(raw.path);
    switch (raw.op) {
      case 'test':
        if (!deepEqual(getAt(out, parts), raw.value)) {
          throw patchFailure(`the server rejected our request due to an error in our request: testing value ${raw.path} failed: test operation failed`);
        }
        break;
      case 'remove':
        out = removeAt(out, parts, raw.path);
        break;
      case 'add':
        out = addAt(out, parts, structuredClone(raw.value), false, raw.path);
        break;
      case 'replace':
        if (getAt(out, parts) === undefined) throw patchFailure(`replace operation does not apply: doc is missing key: ${raw.path}`);
        out = addAt(out, parts, structuredClone(raw.value), true, raw.path);
        break;
      case 'move': {
        const from = pointer(raw.from ?? '');
        const value = getAt(out, from);
        if (value === undefined) throw patchFailure(`move operation does not apply: doc is missing from path: ${raw.from}`);
        out = addAt(removeAt(out, from, raw.from ?? ''), parts, value, false, raw.path);
        break;
      }
      case 'copy': {
        const value = getAt(out, pointer(raw.from ?? ''));
        if (value === undefined) throw patchFailure(`copy operation does not apply: doc is missing from path: ${raw.from}`);
        out = addAt(out, parts, structuredClone(value), false, raw.path);
        break;
      }
      default:
        throw badRequest(`Unexpected kind: ${String((raw as { op?: unknown }).op)}`);
    }
  }
  return out;
}

function addAt(doc: unknown, parts: string[], value: unknown, replace: boolean, path: string): unknown {
  if (parts.length === 0) return value;
  const parent = getAt(doc, parts.slice(0, -1));
  const last = parts[parts.length - 1]!;
  if (Array.isArray(parent)) {
    const idx = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(idx) || idx < 0 || idx > parent.length) throw patchFailure(`add operation does not apply: index out of range: ${path}`);
    if (replace) parent[idx] = value;
    else parent.splice(idx, 0, value);
  } else if (isMap(parent)) {
    parent[last] = value;
  } else {
    throw patchFailure(`add operation does not apply: doc is missing path: "${path}": missing value`);
  }
  return doc;
}

function removeAt(doc: unknown, parts: string[], path: string): unknown {
  const parent = getAt(doc, parts.slice(0, -1));
  const last = parts[parts.length - 1]!;
  if (Array.isArray(parent) && Number(last) < parent.length) parent.splice(Number(last), 1);
  else if (isMap(parent) && last in parent) delete parent[last];
  else throw patchFailure(`remove operation does not apply: doc is missing path: "${path}": missing value`);
  return doc;
}
