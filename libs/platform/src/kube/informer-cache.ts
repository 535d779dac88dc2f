import type { SyncedInfo } from './informer.types.js';

type ChangeListener<T> = (obj: T, old?: T) => void;

/** ListProgress — a list being applied: what it has seen (nothing tracked while the cache was empty), added, updated. */
export interface ListProgress {
  reason: SyncedInfo['reason'];
  started: number;
  seen?: Set<string>;
  added: number;
  updated: number;
}

/**
 * InformerCache — the informer's store and its handlers (client-go's indexer and processor): projected objects by
 * key, the version of each (unless the projection keeps it), and the add/update/delete/synced/resync listeners.
 * Objects enter it only through `project`, so nothing outside the projection is ever cached.
 */
export class InformerCache<T> {
  private readonly objects = new Map<string, T>();
  /** The resourceVersion of each cached object, unless the projection keeps it (`versionOf`). */
  private readonly versions?: Map<string, string>;
  readonly listeners = {
    add: [] as ChangeListener<T>[],
    update: [] as ChangeListener<T>[],
    delete: [] as ChangeListener<T>[],
    synced: [] as ((info: SyncedInfo) => void)[],
    resync: [] as (() => void)[],
  };

  constructor(
    private readonly project: (raw: any) => T,
    private readonly keyOf: (raw: any) => string,
    private readonly versionOfObject: ((obj: T) => string | undefined) | undefined,
    private readonly listenerFailed: (event: string, err: Error) => void,
  ) {
    if (!versionOfObject) this.versions = new Map();
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  values(): IterableIterator<T> {
    return this.objects.values();
  }

  get size(): number {
    return this.objects.size;
  }

  emit(event: 'add' | 'update' | 'delete', obj: T, old?: T): void {
    for (const fn of this.listeners[event]) this.call(event, () => fn(obj, old));
  }

  call(event: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.listenerFailed(event, err as Error);
    }
  }

  /** replay — every cached object to the `update` handlers (old === new), then `resync`. */
  replay(): void {
    for (const obj of this.objects.values()) this.emit('update', obj, obj);
    for (const fn of this.listeners.resync) this.call('resync', fn);
  }

  private versionOf(key: string, obj: T): string | undefined {
    return this.versionOfObject ? this.versionOfObject(obj) : this.versions!.get(key);
  }

  startList(reason: SyncedInfo['reason'], now: number): ListProgress {
    // A list into an empty cache cannot delete anything: it tracks nothing it has seen.
    return { reason, started: now, added: 0, updated: 0, ...(this.objects.size > 0 ? { seen: new Set<string>() } : {}) };
  }

  /** listed — one object of a list: added, or updated when its resourceVersion changed (else left as it is). */
  listed(progress: ListProgress, raw: any): void {
    const key = this.keyOf(raw);
    progress.seen?.add(key);
    const version = raw?.metadata?.resourceVersion as string | undefined;
    const old = this.objects.get(key);
    if (old !== undefined && version !== undefined && this.versionOf(key, old) === version) return;
    const obj = this.project(raw);
    this.objects.set(key, obj);
    if (version !== undefined) this.versions?.set(key, version);
    if (old === undefined) {
      progress.added++;
      this.emit('add', obj);
    } else {
      progress.updated++;
      this.emit('update', obj, old);
    }
  }

  /** finishList — deletes what a complete list did not contain; returns how many. */
  finishList(progress: ListProgress): number {
    let deleted = 0;
    if (!progress.seen) return 0;
    for (const [key, obj] of this.objects) {
      if (progress.seen.has(key)) continue;
      this.objects.delete(key);
      this.versions?.delete(key);
      deleted++;
      this.emit('delete', obj);
    }
    return deleted;
  }

  /** changed — an ADDED or MODIFIED watch event. */
  changed(raw: any): void {
    const key = this.keyOf(raw);
    const projected = this.project(raw);
    const old = this.objects.get(key);
    this.objects.set(key, projected);
    const version = raw?.metadata?.resourceVersion as string | undefined;
    if (version) this.versions?.set(key, version);
    if (old === undefined) this.emit('add', projected);
    else this.emit('update', projected, old);
  }

  /** deleted — a DELETED watch event. */
  deleted(raw: any): void {
    const key = this.keyOf(raw);
    const old = this.objects.get(key);
    this.objects.delete(key);
    this.versions?.delete(key);
    if (old !== undefined) this.emit('delete', old);
  }
}
