import { randomUUID } from 'node:crypto';
import { ApiError, alreadyExists, badRequest, conflict, invalid, notFound } from './errors.js';
import { type ManagedFieldsEntry, leafPaths, updateManagedFields } from './managed-fields.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { computePdbCounts, type PodHealth } from './pdb.js';
import { apiVersionOf, byId, type KubeObject, type ResourceDef, resourceId } from './resources.js';
import { type Matcher, matchesSelectorObject, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { type Entry, type StoreEvent, Store } from './store.js';

/** WriteContext — who writes and when: `manager` is the fieldManager (or the User-Agent prefix). */
export interface WriteContext {
  manager: string;
  now: Date;
  dryRun?: boolean;
}

export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  resourceVersion: number;
  items: Entry[];
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchOptions {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface WatchSink {
  /** Writes one newline-delimited watch event; `object` is JSON text. */
  send(type: string, object: string): void;
  end(): void;
}

export const NODE_UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';
/** The node lifecycle controller's field manager (its User-Agent prefix). */
export const CONTROLLER_MANAGER = 'kube-controller-manager';

const PODS = byId('/pods');
const NODES = byId('/nodes');
const PDBS = byId('policy/poddisruptionbudgets');
const NAMESPACES = byId('/namespaces');

/** k8sTime — RFC 3339 with seconds precision, as metav1.Time serializes. */
export const k8sTime = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

interface ContinueToken {
  rv: number;
  start: string;
}

const encodeContinue = (t: ContinueToken): string => Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', ...t })).toString('base64url');
function decodeContinue(s: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as ContinueToken;
    if (typeof t.rv !== 'number' || typeof t.start !== 'string') throw new Error('shape');
    return t;
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data');
  }
}

const stable = (o: KubeObject): string => {
  const { metadata, ...rest } = o;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata ?? {};
  return JSON.stringify({ ...rest, metadata: meta });
};

export interface KubeApiOptions {
  clock: () => Date;
  podTerminationMs: number;
  bookmarkIntervalMs: number;
  karpenter: boolean;
  historySize: number;
}

/**
 * KubeApi — the API server's semantics over the Store: validation, optimistic concurrency, managed
 * fields, the node lifecycle controller's unschedulable taint, the disruption controller's PDB status,
 * graceful pod deletion and the eviction subresource. The HTTP layer only parses and serializes.
 */
export class KubeApi {
  readonly store: Store;
  karpenter: boolean;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly watches = new Map<string, Set<() => void>>();
  private readonly dirtyPdbNamespaces = new Set<string>();
  private pdbFlush: NodeJS.Immediate | undefined;

  constructor(readonly opts: KubeApiOptions) {
    this.store = new Store(opts.historySize);
    this.karpenter = opts.karpenter;
    const now = k8sTime(opts.clock());
    this.store.load(
      NAMESPACES,
      ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'nodes-manager'].map((n) => this.namespaceObject(n, now)),
    );
  }

  namespaceObject(name: string, now: string): KubeObject {
    return {
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name, uid: randomUUID(), creationTimestamp: now, labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
  }

  served(def: ResourceDef): boolean {
    return !def.karpenter || this.karpenter;
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.pdbFlush) clearImmediate(this.pdbFlush);
    for (const set of this.watches.values()) for (const stop of [...set]) stop();
  }

  // ---- reads -------------------------------------------------------------------------------------

  get(def: ResourceDef, ns: string, name: string): KubeObject {
    const obj = this.store.getObject(def, ns, name);
    if (!obj) throw notFound(def.plural, def.group, name);
    return obj;
  }

  getEntry(def: ResourceDef, ns: string, name: string): Entry {
    const e = this.store.get(def, ns, name);
    if (!e) throw notFound(def.plural, def.group, name);
    return e;
  }

  list(def: ResourceDef, ns: string | undefined, o: ListOptions): ListResult {
    const labels = parseLabelSelector(o.labelSelector);
    const fields = parseFieldSelector(o.fieldSelector, def.fieldLabels, def.kind);
    const token = o.continue ? decodeContinue(o.continue) : undefined;
    const rv = token ? token.rv : this.store.resourceVersion;
    const limit = o.limit && o.limit > 0 ? o.limit : Infinity;
    const items: Entry[] = [];
    let lastKey: string | undefined;
    let more = false;
    for (const [key, e] of this.store.scan(def, ns, token?.start)) {
      if (items.length >= limit) {
        more = true;
        break;
      }
      lastKey = key;
      if (labels(e.labels) && fields(e.fields)) items.push(e);
    }
    const res: ListResult = { resourceVersion: rv, items };
    if (more && lastKey !== undefined) {
      res.continue = encodeContinue({ rv, start: lastKey });
      if (!o.labelSelector && !o.fieldSelector) {
        res.remainingItemCount = this.store.countAfter(def, ns, lastKey);
      }
    }
    return res;
  }

  // ---- watch ---------------------------------------------------------------------------------------

  /** watch — replays from `resourceVersion` (or sends the current state as ADDED), then streams live events. */
  watch(def: ResourceDef, ns: string | undefined, o: WatchOptions, sink: WatchSink): () => void {
    const labels = parseLabelSelector(o.labelSelector);
    const fields = parseFieldSelector(o.fieldSelector, def.fieldLabels, def.kind);
    const rid = resourceId(def);
    const match = (e: Entry): boolean => (!ns || e.ns === ns) && labels(e.labels) && fields(e.fields);
    let stopped = false;
    const timers: NodeJS.Timeout[] = [];
    const deliver = (ev: StoreEvent): void => {
      if (ev.rid !== rid) return;
      const now = match(ev.entry);
      const before = ev.prev && ev.type === 'MODIFIED' ? match(ev.prev) : now;
      if (ev.type === 'MODIFIED' && now !== before) sink.send(now ? 'ADDED' : 'DELETED', ev.entry.json);
      else if (now) sink.send(ev.type, ev.entry.json);
    };
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      this.watches.get(rid)?.delete(stop);
      sink.end();
    };
    const unsubscribe = this.store.subscribe(deliver);
    (this.watches.get(rid) ?? this.watches.set(rid, new Set()).get(rid)!).add(stop);

    if (o.resourceVersion === undefined || o.resourceVersion === '' || o.resourceVersion === '0') {
      for (const [, e] of this.store.scan(def, ns)) if (match(e)) sink.send('ADDED', e.json);
    } else {
      const from = Number(o.resourceVersion);
      if (!Number.isInteger(from)) throw badRequest(`resourceVersion: Invalid value: "${o.resourceVersion}": must be an integer`);
      const events = this.store.since(rid, from);
      if (!events) {
        const gone = new ApiError(410, 'Gone', `too old resource version: ${from} (${this.store.compactedRv + 1})`);
        sink.send('ERROR', JSON.stringify(gone.toStatus()));
        stop();
        return stop;
      }
      for (const ev of events) deliver(ev);
    }
    if (o.allowWatchBookmarks) {
      const tick = (): void => {
        if (stopped) return;
        sink.send('BOOKMARK', JSON.stringify({
          kind: def.kind, apiVersion: apiVersionOf(def.group, def.version),
          metadata: { resourceVersion: String(this.store.resourceVersion), annotations: { 'k8s.io/initial-events-end': 'true' } },
        }));
        timers.push(setTimeout(tick, this.opts.bookmarkIntervalMs).unref());
      };
      timers.push(setTimeout(tick, this.opts.bookmarkIntervalMs).unref());
    }
    const timeout = (o.timeoutSeconds && o.timeoutSeconds > 0 ? o.timeoutSeconds : 1800) * 1000;
    timers.push(setTimeout(stop, timeout).unref());
    return stop;
  }

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
  private commit(
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
    const t = setTimeout(() => {
      this.timers.delete(t);
      const cur = this.store.get(PODS, ns, name);
      if (cur && (JSON.parse(cur.json) as KubeObject).metadata.uid === uid) {
        this.store.remove(PODS, ns, name);
        this.markPdbs(ns);
      }
    }, this.opts.podTerminationMs);
    t.unref();
    this.timers.add(t);
    return JSON.parse(this.store.get(PODS, ns, name)!.json) as KubeObject;
  }

  // ---- eviction and disruption budgets ---------------------------------------------------------------

  private pdbsFor(pod: Entry): { entry: Entry; obj: KubeObject }[] {
    const out: { entry: Entry; obj: KubeObject }[] = [];
    for (const [, e] of this.store.scan(PDBS, pod.ns)) {
      const obj = JSON.parse(e.json) as KubeObject;
      if (matchesSelectorObject(obj.spec?.selector, pod.labels as Record<string, string>)) out.push({ entry: e, obj });
    }
    return out;
  }

  private podHealth(ns: string, selector: KubeObject | undefined): PodHealth[] {
    const out: PodHealth[] = [];
    for (const [, e] of this.store.scan(PODS, ns)) {
      if (!matchesSelectorObject(selector, e.labels as Record<string, string>)) continue;
      out.push(healthOf(e));
    }
    return out;
  }

  /**
   * evict — the eviction subresource: terminal or pending pods go at once; more than one budget is a 500;
   * a budget with no disruptions allowed is a 429; otherwise the budget's allowance drops by one and the
   * pod is deleted gracefully.
   */
  evict(ns: string, name: string, body: KubeObject, ctx: WriteContext): void {
    if (body?.metadata?.name && body.metadata.name !== name) {
      throw badRequest(`name in URL does not match name in Eviction object`);
    }
    const pod = this.store.get(PODS, ns, name);
    if (!pod) throw notFound('pods', '', name);
    const phase = pod.fields['status.phase'];
    const gracePeriodSeconds = body?.deleteOptions?.gracePeriodSeconds as number | undefined;
    const canIgnore = phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.fields['~deleting'] === 'true';
    if (!canIgnore) {
      const pdbs = this.pdbsFor(pod);
      if (pdbs.length > 1) {
        throw new ApiError(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
      }
      if (pdbs.length === 1) {
        const { obj } = pdbs[0]!;
        const counts = computePdbCounts(obj.spec ?? {}, this.podHealth(ns, obj.spec?.selector));
        if (counts.disruptionsAllowed <= 0) {
          throw new ApiError(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.', {
            causes: [{
              reason: 'DisruptionBudget',
              message: `The disruption budget ${obj.metadata.name} needs ${counts.desiredHealthy} healthy pods and has ${counts.currentHealthy} currently`,
            }],
          });
        }
        if (!ctx.dryRun) {
          const next = structuredClone(obj);
          next.status = {
            ...next.status,
            ...counts,
            disruptionsAllowed: counts.disruptionsAllowed - 1,
            disruptedPods: { ...(next.status?.disruptedPods ?? {}), [name]: k8sTime(ctx.now) },
          };
          this.commit(PDBS, obj, next, { manager: 'kube-apiserver', now: ctx.now }, 'Update', 'status');
        }
      }
    }
    if (ctx.dryRun) return;
    this.delete(PODS, ns, name, ctx, gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {});
  }

  private markPdbs(ns: string | undefined): void {
    if (!ns) return;
    this.dirtyPdbNamespaces.add(ns);
    this.pdbFlush ??= setImmediate(() => {
      this.pdbFlush = undefined;
      const namespaces = [...this.dirtyPdbNamespaces];
      this.dirtyPdbNamespaces.clear();
      for (const n of namespaces) this.refreshPdbs(n);
    });
  }

  /** refreshPdbs — the disruption controller: recompute and store each budget's status in a namespace. */
  refreshPdbs(ns: string): void {
    const budgets = [...this.store.scan(PDBS, ns)].map(([, e]) => JSON.parse(e.json) as KubeObject);
    if (budgets.length === 0) return;
    // One pass over the namespace's pods, indexed by the first matchLabels pair each budget uses.
    const keys = new Set<string>();
    for (const b of budgets) {
      const first = Object.entries((b.spec?.selector?.matchLabels ?? {}) as Record<string, string>)[0];
      if (first) keys.add(first[0]);
    }
    const index = new Map<string, Entry[]>();
    const all: Entry[] = [];
    for (const [, e] of this.store.scan(PODS, ns)) {
      all.push(e);
      for (const k of keys) {
        const v = e.labels[k];
        if (v === undefined) continue;
        const slot = `${k}=${v}`;
        (index.get(slot) ?? index.set(slot, []).get(slot)!).push(e);
      }
    }
    for (const obj of budgets) {
      const first = Object.entries((obj.spec?.selector?.matchLabels ?? {}) as Record<string, string>)[0];
      const candidates = first ? (index.get(`${first[0]}=${first[1]}`) ?? []) : all;
      const health = candidates
        .filter((e) => matchesSelectorObject(obj.spec?.selector, e.labels as Record<string, string>))
        .map(healthOf);
      const counts = computePdbCounts(obj.spec ?? {}, health);
      const allowed = counts.disruptionsAllowed > 0;
      const prevCond = (obj.status?.conditions ?? []).find((c: KubeObject) => c.type === 'DisruptionAllowed');
      const status = {
        observedGeneration: obj.metadata.generation ?? 1,
        ...counts,
        conditions: [{
          type: 'DisruptionAllowed',
          status: allowed ? 'True' : 'False',
          reason: allowed ? 'SufficientPods' : 'InsufficientPods',
          message: '',
          observedGeneration: obj.metadata.generation ?? 1,
          lastTransitionTime: prevCond && prevCond.status === (allowed ? 'True' : 'False') ? prevCond.lastTransitionTime : k8sTime(this.opts.clock()),
        }],
      };
      if (JSON.stringify(status) === JSON.stringify({ ...obj.status, disruptedPods: undefined })) continue;
      const next = { ...structuredClone(obj), status };
      this.commit(PDBS, obj, next, { manager: CONTROLLER_MANAGER, now: this.opts.clock() }, 'Update', 'status');
    }
  }

  /** refreshAllPdbs — after a bulk load. */
  refreshAllPdbs(): void {
    const namespaces = new Set<string>();
    for (const [, e] of this.store.scan(PDBS, undefined)) namespaces.add(e.ns);
    for (const ns of namespaces) this.refreshPdbs(ns);
  }

  /** endWatches — closes every open watch on a resource (its CRD went away). */
  endWatches(def: ResourceDef): void {
    for (const stop of [...(this.watches.get(resourceId(def)) ?? [])]) stop();
  }
}

const healthOf = (e: Entry): PodHealth => {
  const phase = e.fields['status.phase'];
  return { ready: e.fields['~ready'] === 'true', deleting: e.fields['~deleting'] === 'true', terminal: phase === 'Succeeded' || phase === 'Failed' };
};

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

export type { Matcher };
