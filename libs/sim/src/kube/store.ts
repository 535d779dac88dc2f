import { byId, type KubeObject, type ResourceDef, resourceId } from './resources.js';

/**
 * Entry — one stored object. The object lives only as its JSON text (`json`, with metadata.resourceVersion
 * already inside), so a list is a join of strings and nothing is deep-copied per request; `labels` and
 * `fields` are kept parsed for selectors.
 */
export interface Entry {
  readonly ns: string;
  readonly name: string;
  readonly rv: number;
  readonly json: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly fields: Readonly<Record<string, string>>;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** StoreEvent — one change, kept in the bounded history that watches replay from. */
export interface StoreEvent {
  readonly type: WatchEventType;
  readonly rid: string;
  readonly rv: number;
  readonly entry: Entry;
  readonly prev?: Entry;
}

export type StoreListener = (e: StoreEvent) => void;

const keyOf = (ns: string, name: string): string => (ns ? `${ns}/${name}` : name);
const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

class Collection {
  readonly items = new Map<string, Entry>();
  private sorted: string[] | undefined;

  sortedKeys(): string[] {
    if (!this.sorted) this.sorted = [...this.items.keys()].sort();
    return this.sorted;
  }

  set(key: string, e: Entry): void {
    if (!this.items.has(key)) this.sorted = undefined;
    this.items.set(key, e);
  }

  delete(key: string): void {
    if (this.items.delete(key)) this.sorted = undefined;
  }
}

/**
 * Store — every object of every resource, one monotonic resourceVersion counter, and a bounded history
 * of changes. A watch from a version older than the history window is answered with 410 Gone.
 */
export class Store {
  private rv: number;
  private readonly collections = new Map<string, Collection>();
  private readonly history: StoreEvent[] = [];
  private historyHead = 0;
  /** compactedRv — the newest version no longer replayable (watching from it or older is 410). */
  private compacted: number;
  private readonly listeners = new Set<StoreListener>();
  /** One shared copy of each distinct label set (a workload's replicas carry the same labels); bounded. */
  private readonly labelSets = new Map<string, Readonly<Record<string, string>>>();

  constructor(private readonly historySize = 10_000, startRv = 1000) {
    this.rv = startRv;
    this.compacted = startRv - 1;
  }

  get resourceVersion(): number {
    return this.rv;
  }

  get compactedRv(): number {
    return this.compacted;
  }

  private col(rid: string): Collection {
    let c = this.collections.get(rid);
    if (!c) this.collections.set(rid, (c = new Collection()));
    return c;
  }

  get(def: ResourceDef, ns: string, name: string): Entry | undefined {
    return this.col(resourceId(def)).items.get(keyOf(ns, name));
  }

  getObject(def: ResourceDef, ns: string, name: string): KubeObject | undefined {
    const e = this.get(def, ns, name);
    return e ? (JSON.parse(e.json) as KubeObject) : undefined;
  }

  count(def: ResourceDef): number {
    return this.col(resourceId(def)).items.size;
  }

  /** entries — every entry of a resource, in no particular order (no sort: for in-process controllers' full passes). */
  entries(def: ResourceDef): IterableIterator<Entry> {
    return this.col(resourceId(def)).items.values();
  }

  /** scan — entries in key order of a resource (optionally one namespace) strictly after `after`. */
  *scan(def: ResourceDef, ns: string | undefined, after?: string): Generator<[string, Entry]> {
    const c = this.col(resourceId(def));
    const keys = c.sortedKeys();
    const prefix = ns ? `${ns}/` : '';
    // First key > after (continuing a page) or >= prefix (first page).
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const k = keys[mid]!;
      if (after !== undefined ? k <= after : k < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < keys.length; i++) {
      const k = keys[i]!;
      if (prefix && !k.startsWith(prefix)) break;
      const e = c.items.get(k);
      if (e) yield [k, e];
    }
  }

  /** countAfter — how many keys of a resource (optionally one namespace) sort after `after`. */
  countAfter(def: ResourceDef, ns: string | undefined, after: string): number {
    const keys = this.col(resourceId(def)).sortedKeys();
    const firstAbove = (bound: string, inclusive: boolean): number => {
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (inclusive ? keys[mid]! < bound : keys[mid]! <= bound) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const end = ns ? firstAbove(`${ns}/\uffff`, true) : keys.length;
    return Math.max(0, end - firstAbove(after, false));
  }

  /** makeEntry — serializes `obj` under the next resourceVersion. */
  private makeEntry(def: ResourceDef, obj: KubeObject, rv: number): Entry {
    obj.metadata ??= {};
    obj.metadata.resourceVersion = String(rv);
    const ns: string = def.namespaced ? (obj.metadata.namespace ?? '') : '';
    return {
      ns,
      name: obj.metadata.name,
      rv,
      json: JSON.stringify(obj),
      labels: this.sharedLabels(obj.metadata.labels),
      fields: { 'metadata.name': obj.metadata.name, 'metadata.namespace': ns, ...(def.fields?.(obj) ?? {}) },
    };
  }

  private sharedLabels(labels: Record<string, string> | undefined): Readonly<Record<string, string>> {
    if (!labels) return NO_LABELS;
    let key = '';
    for (const k in labels) key += `${k}\u0000${labels[k]}\u0001`;
    if (key === '') return NO_LABELS;
    const have = this.labelSets.get(key);
    if (have) return have;
    if (this.labelSets.size >= 100_000) this.labelSets.clear();
    const copy = Object.freeze({ ...labels });
    this.labelSets.set(key, copy);
    return copy;
  }

  /** put — stores `obj` (created or modified) under a new resourceVersion and notifies watchers. */
  put(def: ResourceDef, obj: KubeObject): Entry {
    const rv = ++this.rv;
    const entry = this.makeEntry(def, obj, rv);
    const key = keyOf(entry.ns, entry.name);
    const c = this.col(resourceId(def));
    const prev = c.items.get(key);
    c.set(key, entry);
    this.record({ type: prev ? 'MODIFIED' : 'ADDED', rid: resourceId(def), rv, entry, ...(prev ? { prev } : {}) });
    return entry;
  }

  /** remove — deletes the object; its DELETED event carries the last state under a new resourceVersion. */
  remove(def: ResourceDef, ns: string, name: string): Entry | undefined {
    const key = keyOf(ns, name);
    const c = this.col(resourceId(def));
    const prev = c.items.get(key);
    if (!prev) return undefined;
    c.delete(key);
    const rv = ++this.rv;
    const obj = JSON.parse(prev.json) as KubeObject;
    const entry = this.makeEntry(def, obj, rv);
    this.record({ type: 'DELETED', rid: resourceId(def), rv, entry, prev });
    return entry;
  }

  /** load — bulk insert without history (as if loaded before the history window). */
  load(def: ResourceDef, objs: Iterable<KubeObject>): void {
    const c = this.col(resourceId(def));
    for (const obj of objs) {
      const entry = this.makeEntry(def, obj, ++this.rv);
      c.set(keyOf(entry.ns, entry.name), entry);
    }
    this.compacted = this.rv;
    this.history.length = 0;
    this.historyHead = 0;
  }

  /** dropAll — removes every object of a resource (used when a CRD is removed; no events). */
  dropAll(def: ResourceDef): void {
    this.collections.delete(resourceId(def));
  }

  private record(e: StoreEvent): void {
    if (this.history.length - this.historyHead >= this.historySize) {
      const dropped = this.history[this.historyHead]!;
      this.compacted = dropped.rv;
      this.historyHead++;
      if (this.historyHead > 4096) {
        this.history.splice(0, this.historyHead);
        this.historyHead = 0;
      }
    }
    this.history.push(e);
    for (const l of this.listeners) l(e);
  }

  /** since — the history after `rv` for a resource, or undefined when `rv` is older than the window. */
  since(rid: string, rv: number): StoreEvent[] | undefined {
    if (rv < this.compacted) return undefined;
    const out: StoreEvent[] = [];
    for (let i = this.historyHead; i < this.history.length; i++) {
      const e = this.history[i]!;
      if (e.rv > rv && e.rid === rid) out.push(e);
    }
    return out;
  }

  /** compact — forgets the whole history window (a watch from any earlier version then gets 410). */
  compact(): void {
    this.compacted = this.rv;
    this.history.length = 0;
    this.historyHead = 0;
  }

  subscribe(l: StoreListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

export { byId, keyOf };
