import { randomUUID } from 'node:crypto';
import { ApiError, alreadyExists, badRequest, conflict, invalid, notFound } from '../errors.js';
import { type ManagedFieldsEntry, leafPaths, updateManagedFields } from '../managed-fields.js';
import { jsonPatch, mergePatch, strategicMergePatch } from '../patch.js';
import { apiVersionOf, type KubeObject, type ResourceDef } from '../resources.js';
import { ApiReads } from './reads.js';
import { CONTROLLER_MANAGER, NAMESPACES, NODES, NODE_UNSCHEDULABLE_TAINT, PDBS, PODS, type PatchType, type WriteContext, k8sTime } from './types.js';

const stable = (o: KubeObject): string => {
  const { metadata, ...rest } = o;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata ?? {};
  return JSON.stringify({ ...rest, metadata: meta });
};

/**
 * ApiWrites — create, update, patch (merge, strategic, JSON, server-side apply) and delete, with optimistic
 * concurrency and managed fields; the node lifecycle controller's taint; graceful pod deletion.
 */
export abstract class ApiWrites extends ApiReads {
  /**
   * finalizedKinds — kinds whose objects with finalizers are only marked deleting (`deletionTimestamp`) by a DELETE,
   * as the API server does. Empty by default: nothing in the simulator removes finalizers unless a simulated
   * controller that owns them runs (the simulator's Karpenter adds `NodeClaim`; docs/karpenter-simulator.md).
   */
  readonly finalizedKinds = new Set<string>();

  /** markPdbs — schedules a refresh of a namespace's disruption budgets (see ApiEvictions). */
  protected abstract markPdbs(ns: string | undefined): void;

  // ---- writes --------------------------------------------------------------------------------------

  private checkNamespace(def: ResourceDef, ns: string): void {
    if (def.namespaced && !this.store.get(NAMESPACES, '', ns)) throw notFound('namespaces', '', ns);
  }

  create(def: ResourceDef, ns: string, body: KubeObject, ctx: WriteContext): KubeObject {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body of the request was in an unknown format');
    const obj: KubeObject = structuredClone(body);
    obj.metadata ??= {};
    if (def.namespaced) {
      if (obj.metadata.namespace && obj.metadata.namespace !== ns) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      obj.metadata.namespace = ns;
      this.checkNamespace(def, ns);
    }
    if (!obj.metadata.name && obj.metadata.generateName) {
      obj.metadata.name = `${obj.metadata.generateName}${randomUUID().replace(/-/g, '').slice(0, 5)}`;
    }
    if (!obj.metadata.name) throw invalid(def.kind, '', 'metadata.name', 'Required value: name or generateName is required');
    if (this.store.get(def, ns, obj.metadata.name)) throw alreadyExists(def.plural, def.group, obj.metadata.name);
    return this.commit(def, undefined, obj, ctx, 'Update', undefined);
  }

  update(def: ResourceDef, ns: string, name: string, body: KubeObject, ctx: WriteContext, subresource?: string): KubeObject {
    if (body?.metadata?.name && body.metadata.name !== name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    const old = this.store.getObject(def, ns, name);
    if (!old) {
      if (subresource) throw notFound(def.plural, def.group, name);
      // PUT creates when the object is absent, for kinds that allow it (the ones served here do).
      return this.create(def, ns, { ...body, metadata: { ...body.metadata, name } }, ctx);
    }
    const next: KubeObject = structuredClone(body);
    next.metadata ??= {};
    return this.commit(def, old, next, ctx, 'Update', subresource);
  }

  patch(
    def: ResourceDef, ns: string, name: string, type: PatchType, body: unknown, ctx: WriteContext,
    subresource?: string, force = false,
  ): KubeObject {
    const old = this.store.getObject(def, ns, name);
    if (type === 'apply') return this.apply(def, ns, name, old, body, ctx, subresource, force);
    if (!old) throw notFound(def.plural, def.group, name);
    const current = structuredClone(old);
    // The patch's own resourceVersion (if any) is a precondition, so compare against what it sets.
    let next: KubeObject;
    if (type === 'json') next = jsonPatch(current, body) as KubeObject;
    else if (type === 'merge') next = mergePatch(current, body) as KubeObject;
    else next = strategicMergePatch(current, body) as KubeObject;
    if (typeof next !== 'object' || next === null) throw badRequest('patch produced an invalid object');
    return this.commit(def, old, next, ctx, 'Update', subresource);
  }

  /** apply — server-side apply with JSON bodies: merge the configuration, own exactly its fields, 409 on conflicts. */
  private apply(
    def: ResourceDef, ns: string, name: string, old: KubeObject | undefined, body: unknown, ctx: WriteContext,
    subresource: string | undefined, force: boolean,
  ): KubeObject {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('apply patch must be an object');
    const cfg = body as KubeObject;
    if (cfg.metadata?.name && cfg.metadata.name !== name) throw badRequest('the name of the object does not match the name on the URL');
    const scope = def.hasStatus ? (subresource === 'status' ? 'status' : 'main') : 'all';
    const applied = new Set(leafPaths(cfg, scope).keys());
    if (!old) {
      const obj = structuredClone(cfg);
      obj.metadata = { ...obj.metadata, name, ...(def.namespaced ? { namespace: ns } : {}) };
      if (def.namespaced) this.checkNamespace(def, ns);
      return this.commit(def, undefined, obj, ctx, 'Apply', subresource, applied);
    }
    const merged = mergePatch(structuredClone(old), cfg) as KubeObject;
    // Conflicts: fields this configuration changes that another manager owns.
    const before = leafPaths(old, scope);
    const after = leafPaths(merged, scope);
    const entries = (old.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
    const conflicts: string[] = [];
    if (!force) {
      for (const p of applied) {
        if (before.has(p) && before.get(p) !== after.get(p)) {
          for (const e of entries) {
            if (e.manager === ctx.manager && e.operation === 'Apply') continue;
            if (JSON.stringify(e.fieldsV1).includes(JSON.stringify(p.split('\n').at(-1))) && ownsPath(e, p)) {
              conflicts.push(`conflict with "${e.manager}"${e.operation === 'Update' ? ' using ' + e.apiVersion : ''}: .${p.split('\n').map((s) => s.replace(/^f:/, '')).join('.')}`);
            }
          }
        }
      }
    }
    if (conflicts.length > 0) {
      throw new ApiError(409, 'Conflict', `Apply failed with ${conflicts.length} conflict${conflicts.length > 1 ? 's' : ''}: ${conflicts.join('\n')}`, {
        causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: c })),
      });
    }
    // Fields this manager applied before and no longer applies are removed unless someone else owns them.
    const mine = entries.find((e) => e.manager === ctx.manager && e.operation === 'Apply');
    if (mine) {
      const others = entries.filter((e) => e !== mine);
      for (const p of flattenPaths(mine.fieldsV1)) {
        if (applied.has(p) || others.some((o) => ownsPath(o, p))) continue;
        removePath(merged, p);
      }
    }
    return this.commit(def, old, merged, ctx, 'Apply', subresource, applied);
  }

  /**
   * commit — the common tail of every write: preconditions, status/spec reset by subresource, metadata the
   * client cannot change, generation, managed fields, then store. A write that changes nothing is a no-op.
   */
  protected commit(
    def: ResourceDef, old: KubeObject | undefined, next: KubeObject, ctx: WriteContext,
    operation: 'Update' | 'Apply', subresource: string | undefined, applied?: Set<string>,
  ): KubeObject {
    const now = k8sTime(ctx.now);
    const apiVersion = apiVersionOf(def.group, def.version);
    next.apiVersion = apiVersion;
    next.kind = def.kind;
    next.metadata ??= {};
    const scope = def.hasStatus ? (subresource === 'status' ? 'status' : 'main') : 'all';
    if (old) {
      const sentRv = next.metadata.resourceVersion;
      if (sentRv !== undefined && sentRv !== '' && sentRv !== old.metadata.resourceVersion) {
        throw conflict(def.plural, def.group, old.metadata.name);
      }
      for (const k of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
        if (old.metadata[k] === undefined) delete next.metadata[k];
        else next.metadata[k] = old.metadata[k];
      }
      if (scope === 'main') {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      } else if (scope === 'status') {
        for (const k of Object.keys(next)) if (k !== 'status' && k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') delete next[k];
        for (const k of Object.keys(old)) if (k !== 'status' && k !== 'metadata' && k !== 'apiVersion' && k !== 'kind') next[k] = old[k];
        next.metadata = { ...old.metadata, resourceVersion: next.metadata.resourceVersion };
      }
      next.metadata.managedFields = old.metadata.managedFields;
      next.metadata.resourceVersion = old.metadata.resourceVersion;
      if (stable(next) === stable(old)) return old;
      if (def.group && scope !== 'status' && JSON.stringify(withoutMetaStatus(next)) !== JSON.stringify(withoutMetaStatus(old))) {
        next.metadata.generation = (old.metadata.generation ?? 1) + 1;
      }
    } else {
      next.metadata.uid = randomUUID();
      next.metadata.creationTimestamp = now;
      delete next.metadata.resourceVersion;
      delete next.metadata.deletionTimestamp;
      if (def.group) next.metadata.generation = 1;
      if (def.plural === 'pods') {
        next.status ??= { phase: 'Pending' };
        next.spec ??= {};
        next.spec.schedulerName ??= 'default-scheduler';
      }
    }
    if (def.plural === 'poddisruptionbudgets' && !old) next.status ??= {};
    next.metadata.managedFields = updateManagedFields(
      (old?.metadata.managedFields ?? []) as ManagedFieldsEntry[],
      old,
      next,
      { manager: ctx.manager, operation, apiVersion, time: now, ...(subresource ? { subresource } : {}), ...(applied ? { applied } : {}) },
      scope,
    );
    if (next.metadata.managedFields.length === 0) delete next.metadata.managedFields;
    if (ctx.dryRun) return next;
    this.store.put(def, next);
    this.afterWrite(def, next, ctx, subresource);
    return JSON.parse(this.store.get(def, next.metadata.namespace ?? '', next.metadata.name)!.json) as KubeObject;
  }

  /** afterWrite — the controllers the simulator stands in for, reacting synchronously to a write. */
  private afterWrite(def: ResourceDef, next: KubeObject, ctx: WriteContext, subresource: string | undefined): void {
    if (def === NODES) this.nodeLifecycle(next, ctx.now);
    if (def === PODS) this.markPdbs(next.metadata.namespace);
    if (def === PDBS && subresource !== 'status') this.markPdbs(next.metadata.namespace);
  }

  /** nodeLifecycle — the node lifecycle controller keeps `node.kubernetes.io/unschedulable` in step with spec.unschedulable. */
  private nodeLifecycle(node: KubeObject, now: Date): void {
    const taints: KubeObject[] = node.spec?.taints ?? [];
    const has = taints.some((t) => t.key === NODE_UNSCHEDULABLE_TAINT && t.effect === 'NoSchedule');
    const want = node.spec?.unschedulable === true;
    if (has === want) return;
    const current = this.store.getObject(NODES, '', node.metadata.name)!;
    const nextTaints = want
      ? [...taints, { key: NODE_UNSCHEDULABLE_TAINT, effect: 'NoSchedule', timeAdded: k8sTime(now) }]
      : taints.filter((t) => !(t.key === NODE_UNSCHEDULABLE_TAINT && t.effect === 'NoSchedule'));
    const spec = { ...current.spec };
    if (nextTaints.length > 0) spec.taints = nextTaints;
    else delete spec.taints;
    this.commit(NODES, current, { ...structuredClone(current), spec }, { manager: CONTROLLER_MANAGER, now }, 'Update', undefined);
  }

  delete(def: ResourceDef, ns: string, name: string, ctx: WriteContext, o: { gracePeriodSeconds?: number; preconditionRv?: string; preconditionUid?: string } = {}): KubeObject {
    const entry = this.store.get(def, ns, name);
    if (!entry) throw notFound(def.plural, def.group, name);
    const obj = JSON.parse(entry.json) as KubeObject;
    if (o.preconditionRv && o.preconditionRv !== obj.metadata.resourceVersion) {
      throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${def.plural} "${name}": Precondition failed: ResourceVersion in precondition: ${o.preconditionRv}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`);
    }
    if (o.preconditionUid && o.preconditionUid !== obj.metadata.uid) {
      throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${def.plural} "${name}": Precondition failed: UID in precondition: ${o.preconditionUid}, UID in object meta: ${obj.metadata.uid}`);
    }
    if (ctx.dryRun) return obj;
    if (def === PODS) return this.deletePod(obj, ctx, o.gracePeriodSeconds);
    if (this.finalizedKinds.has(def.kind) && (obj.metadata.finalizers ?? []).length > 0) {
      // Held by its finalizers, as the API server does: marked deleting, removed by the controller that owns them.
      if (obj.metadata.deletionTimestamp) return obj;
      const next = structuredClone(obj);
      next.metadata.deletionTimestamp = k8sTime(ctx.now);
      next.metadata.deletionGracePeriodSeconds = 0;
      this.store.put(def, next);
      return JSON.parse(this.store.get(def, ns, name)!.json) as KubeObject;
    }
    this.store.remove(def, ns, name);
    if (def === PDBS) this.markPdbs(ns);
    return obj;
  }

  /**
   * deletePod — graceful deletion: the pod first gets deletionTimestamp (MODIFIED), then disappears after
   * the simulator's termination delay (DELETED), so "wait for the pod to go" is observable. A grace period
   * of 0, or a pod not bound to a node, goes at once.
   */
  private deletePod(pod: KubeObject, ctx: WriteContext, gracePeriodSeconds?: number): KubeObject {
    const ns = pod.metadata.namespace as string;
    const name = pod.metadata.name as string;
    const immediate = gracePeriodSeconds === 0 || !pod.spec?.nodeName || this.opts.podTerminationMs <= 0
      || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
    if (immediate) {
      this.store.remove(PODS, ns, name);
      this.markPdbs(ns);
      return pod;
    }
    if (pod.metadata.deletionTimestamp) return pod;
    const grace = gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    const next = structuredClone(pod);
    next.metadata.deletionTimestamp = k8sTime(new Date(ctx.now.getTime() + grace * 1000));
    next.metadata.deletionGracePeriodSeconds = grace;
    this.store.put(PODS, next);
    this.markPdbs(ns);
    const uid = pod.metadata.uid;
    const gone = (): void => {
      this.timers.delete(t);
      const cur = this.store.get(PODS, ns, name);
      if (cur && (JSON.parse(cur.json) as KubeObject).metadata.uid === uid) {
        this.store.remove(PODS, ns, name);
        this.markPdbs(ns);
      }
    };
    const t = this.opts.timers ? this.opts.timers.setTimer(this.opts.podTerminationMs, gone) : realTimer(this.opts.podTerminationMs, gone);
    this.timers.add(t);
    return JSON.parse(this.store.get(PODS, ns, name)!.json) as KubeObject;
  }
}

const withoutMetaStatus = (o: KubeObject): KubeObject => {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
};

function flattenPaths(tree: KubeObject, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(tree)) {
    const p = prefix ? `${prefix}\n${k}` : k;
    if (v && typeof v === 'object' && Object.keys(v).length > 0) out.push(...flattenPaths(v, p));
    else out.push(p);
  }
  return out;
}

function ownsPath(e: ManagedFieldsEntry, path: string): boolean {
  let cur: KubeObject | undefined = e.fieldsV1;
  for (const seg of path.split('\n')) {
    cur = cur?.[seg];
    if (cur === undefined) return false;
  }
  return true;
}

/** removePath — deletes a plain `f:` path from an object (keyed list items are left alone). */
function removePath(obj: KubeObject, path: string): void {
  const segs = path.split('\n');
  if (segs.some((s) => !s.startsWith('f:'))) return;
  let cur: KubeObject | undefined = obj;
  for (const s of segs.slice(0, -1)) {
    cur = cur?.[s.slice(2)];
    if (typeof cur !== 'object' || cur === null) return;
  }
  if (cur) delete cur[segs.at(-1)!.slice(2)];
}

/** realTimer — a wall-clock timer that never keeps the process alive, as a cancel handle. */
function realTimer(ms: number, fn: () => void): { cancel(): void } {
  const t = setTimeout(fn, ms);
  t.unref();
  return { cancel: () => clearTimeout(t) };
}
