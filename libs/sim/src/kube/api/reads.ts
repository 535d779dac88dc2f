import { ApiError, badRequest, notFound } from '../errors.js';
import { apiVersionOf, type KubeObject, type ResourceDef, resourceId } from '../resources.js';
import { parseFieldSelector, parseLabelSelector } from '../selectors.js';
import type { Entry, StoreEvent } from '../store.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { ApiState } from './state.js';
import type { ListOptions, ListResult, WatchOptions, WatchSink } from './types.js';

/** ApiReads — get, list (paged by `continue`) and watch (replay from a resource version, bookmarks, timeout). */
export class ApiReads extends ApiState {
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

  /** endWatches — closes every open watch on a resource (its CRD went away). */
  endWatches(def: ResourceDef): void {
    for (const stop of [...(this.watches.get(resourceId(def)) ?? [])]) stop();
  }
}
