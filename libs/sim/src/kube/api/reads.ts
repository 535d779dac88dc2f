import { ApiError, badRequest, notFound } from '../errors.js';
import { apiVersionOf, type KubeObject, type ResourceDef, resourceId } from '../resources.js';
import { parseFieldSelector, parseLabelSelector } from '../selectors.js';
import type { Entry, StoreEvent } from '../store.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { ApiState } from './state.js';
import { INITIAL_EVENTS_END, type ListOptions, type ListResult, type WatchOptions, type WatchSink } from './types.js';
import { tooLargeResourceVersion } from './watch-list.js';

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

  /**
   * watch — a legacy watch replays the history after `resourceVersion` (410 Gone as an ERROR event when it is older
   * than the window) or, asked from "" or "0", sends the current state as ADDED first; then it streams the changes.
   * A WatchList (`sendInitialEvents: true`, kube-apiserver 1.34) sends the state at the current version as ADDED
   * events (each object with its own resourceVersion, in key order), then a BOOKMARK annotated
   * `k8s.io/initial-events-end: "true"` carrying that version, then every change after it; asked for a version the
   * store has not reached it is refused (504). `sendInitialEvents: false` starts from the version asked, or from now.
   * The initial events are sent as the connection drains (the entries are immutable, so the snapshot is a list of
   * references and nothing is copied); changes made meanwhile wait and follow in order. Bookmarks other than the
   * initial-events-end one carry no annotation and are not sent before the initial events are out.
   */
  watch(def: ResourceDef, ns: string | undefined, o: WatchOptions, sink: WatchSink): () => void {
    const labels = parseLabelSelector(o.labelSelector);
    const fields = parseFieldSelector(o.fieldSelector, def.fieldLabels, def.kind);
    const rid = resourceId(def);
    const match = (e: Entry): boolean => (!ns || e.ns === ns) && labels(e.labels) && fields(e.fields);
    const rv = o.resourceVersion ?? '';
    const fromNow = rv === '' || rv === '0';
    const from = fromNow ? undefined : Number(rv);
    if (from !== undefined && !Number.isInteger(from)) throw badRequest(`resourceVersion: Invalid value: "${rv}": must be an integer`);
    if (o.sendInitialEvents === true && from !== undefined && from > this.store.resourceVersion) throw tooLargeResourceVersion(from, this.store.resourceVersion);

    let stopped = false;
    /** The watch's timeout and its next bookmark. */
    const timers: (NodeJS.Timeout | undefined)[] = [];
    /** Changes seen while the initial events are being sent, in order; undefined once they are out. */
    let queued: StoreEvent[] | undefined;
    const emit = (ev: StoreEvent): void => {
      const now = match(ev.entry);
      const before = ev.prev && ev.type === 'MODIFIED' ? match(ev.prev) : now;
      if (ev.type === 'MODIFIED' && now !== before) sink.send(now ? 'ADDED' : 'DELETED', ev.entry.json);
      else if (now) sink.send(ev.type, ev.entry.json);
    };
    const deliver = (ev: StoreEvent): void => {
      if (ev.rid !== rid) return;
      if (queued) queued.push(ev);
      else emit(ev);
    };
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      for (const t of timers) if (t) clearTimeout(t);
      this.watches.get(rid)?.delete(stop);
      sink.end();
    };
    const bookmark = (version: number, initialEventsEnd: boolean): string =>
      JSON.stringify({
        kind: def.kind, apiVersion: apiVersionOf(def.group, def.version),
        metadata: { resourceVersion: String(version), ...(initialEventsEnd ? { annotations: { [INITIAL_EVENTS_END]: 'true' } } : {}) },
      });

    // The state is sent first for a WatchList, and for a legacy watch from "" or "0".
    const initial = o.sendInitialEvents === true || (o.sendInitialEvents === undefined && fromNow);
    let replay: StoreEvent[] | undefined;
    if (!initial && from !== undefined) {
      replay = this.store.since(rid, from);
      if (!replay) {
        const gone = new ApiError(410, 'Gone', `too old resource version: ${from} (${this.store.compactedRv + 1})`);
        sink.send('ERROR', JSON.stringify(gone.toStatus()));
        sink.end();
        return () => undefined;
      }
    }
    const unsubscribe = this.store.subscribe(deliver);
    (this.watches.get(rid) ?? this.watches.set(rid, new Set()).get(rid)!).add(stop);
    if (initial) {
      const snapshot: Entry[] = [];
      for (const [, e] of this.store.scan(def, ns)) if (match(e)) snapshot.push(e);
      const snapshotRv = this.store.resourceVersion;
      queued = [];
      void (async () => {
        for (const e of snapshot) {
          if (stopped) return;
          if (!sink.send('ADDED', e.json) && sink.drained) await sink.drained();
        }
        if (stopped) return;
        if (o.sendInitialEvents === true) sink.send('BOOKMARK', bookmark(snapshotRv, true));
        const waiting = queued ?? [];
        queued = undefined;
        for (const ev of waiting) emit(ev);
      })();
    } else if (replay) {
      for (const ev of replay) deliver(ev);
    }
    if (o.allowWatchBookmarks) {
      const tick = (): void => {
        if (stopped) return;
        if (!queued) sink.send('BOOKMARK', bookmark(this.store.resourceVersion, false));
        timers[1] = setTimeout(tick, this.opts.bookmarkIntervalMs).unref();
      };
      timers[1] = setTimeout(tick, this.opts.bookmarkIntervalMs).unref();
    }
    const timeout = (o.timeoutSeconds && o.timeoutSeconds > 0 ? o.timeoutSeconds : 1800) * 1000;
    timers[0] = setTimeout(stop, timeout).unref();
    return stop;
  }

  /** endWatches — closes every open watch on a resource (its CRD went away). */
  endWatches(def: ResourceDef): void {
    for (const stop of [...(this.watches.get(resourceId(def)) ?? [])]) stop();
  }
}
