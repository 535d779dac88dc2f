import * as k8s from '@kubernetes/client-node';
import fetch from 'node-fetch';
import type { JsonLogger } from '../logging/logger.js';
import type { Metrics } from '../health/metrics.js';

export interface InformerOptions<T> {
  kc: k8s.KubeConfig;
  /** Collection path: '/api/v1/nodes', '/api/v1/pods', '/apis/policy/v1/poddisruptionbudgets'. */
  path: string;
  /** Keeps only the fields the caller needs: the raw object is dropped as soon as it is projected. */
  project: (obj: any) => T;
  /** Cache key of a raw object; default `namespace/name`, or `name` for cluster-scoped objects. */
  key?: (obj: any) => string;
  /** LIST page size (limit/continue). Default 500. */
  pageSize?: number;
  /** Full relist every N ms (SCAN_INTERVAL_SECONDS); 0 or unset: only on 410 Gone. */
  resyncMs?: number;
  /** Reconnect back-off: doubles from `initialMs` up to `maxMs` (defaults 250 ms, 30 s). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Server-side watch timeout; each watch is closed and resumed from its version after it. Default 300 s. */
  watchTimeoutSeconds?: number;
  logger?: JsonLogger;
  name?: string;
  /** Failed LIST/WATCH requests are counted in `nodes_manager_kube_api_errors_total` of this service. */
  metrics?: { metrics: Metrics; service: string };
}

/** SyncedInfo — `full` is true when the cache was just reconciled against a complete LIST (every (re)list). */
export interface SyncedInfo {
  full: boolean;
  reason: 'initial' | 'resync' | 'gone' | 'error';
  added: number;
  updated: number;
  deleted: number;
  durationMs: number;
}

export interface InformerStats {
  /** Complete lists (every page) applied to the cache. */
  lists: number;
  /** LIST requests (pages) made. */
  pages: number;
  /** WATCH requests opened. */
  watches: number;
  /** Relists caused by 410 Gone (an expired watch version or continue token). */
  relists410: number;
  /** Failed LIST or WATCH requests and dropped watch connections. */
  errors: number;
}

type ChangeListener<T> = (obj: T, old?: T) => void;

const defaultKey = (obj: any): string =>
  obj?.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : String(obj?.metadata?.name);

class GoneError extends Error {
  constructor(message: string) {
    super(message);
  }
}

class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Informer — a list+watch cache of one Kubernetes collection that keeps only projected objects.
 *
 * LIST is paged (`limit`/`continue`) and each page is projected and dropped as it arrives, so memory is the cache
 * plus one page — at 150,000 pods an unpaged LIST is ~400 MB of JSON. Then WATCH from the list's resourceVersion
 * with bookmarks; a normal close re-watches from the last version seen, a 410 (an `ERROR` event, an HTTP 410 or an
 * expired continue token) relists, any other failure reconnects after a capped exponential back-off. Every
 * `resyncMs` a full relist reconciles the cache: objects whose resourceVersion changed are `update`d, and objects
 * that vanished (e.g. while the watch was down) are `delete`d. `synced` is never true before the first complete
 * list, and a `synced` event follows every complete (re)list.
 */
export class Informer<T> {
  private readonly cache = new Map<string, T>();
  /** The resourceVersion of each cached object: a relist reports an update only when it changed. */
  private readonly versions = new Map<string, string>();
  private readonly keyOf: (obj: any) => string;
  private readonly listeners = {
    add: [] as ChangeListener<T>[],
    update: [] as ChangeListener<T>[],
    delete: [] as ChangeListener<T>[],
    synced: [] as ((info: SyncedInfo) => void)[],
  };
  private rv?: string;
  private hasSynced = false;
  private stopped = true;
  private loop?: Promise<void>;
  private watchAbort?: AbortController;
  private endWatch?: () => void;
  private watchAbortRequested = false;
  private relistReason?: SyncedInfo['reason'];
  private resyncTimer?: NodeJS.Timeout;
  private wake?: () => void;
  private syncWaiters: { resolve: () => void }[] = [];
  private readonly label: string;

  readonly stats: InformerStats = { lists: 0, pages: 0, watches: 0, relists410: 0, errors: 0 };

  constructor(private readonly opts: InformerOptions<T>) {
    this.keyOf = opts.key ?? defaultKey;
    this.label = opts.name ?? opts.path;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.relistReason = 'initial';
    this.loop = this.run();
    if (this.opts.resyncMs && this.opts.resyncMs > 0) {
      this.resyncTimer = setInterval(() => this.requestRelist('resync'), this.opts.resyncMs);
      this.resyncTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.abortWatch();
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  get synced(): boolean {
    return this.hasSynced;
  }

  /** waitForSync — resolves after the first complete list; rejects after `timeoutMs` (default 60 s). */
  waitForSync(timeoutMs = 60_000): Promise<void> {
    if (this.hasSynced) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter);
        reject(new Error(`informer ${this.label}: not synced after ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.syncWaiters.push(waiter);
    });
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  /** values — the cached objects without copying them into an array. */
  values(): IterableIterator<T> {
    return this.cache.values();
  }

  get(key: string): T | undefined {
    return this.cache.get(key);
  }

  get size(): number {
    return this.cache.size;
  }

  get resourceVersion(): string | undefined {
    return this.rv;
  }

  on(event: 'add' | 'update' | 'delete', fn: (obj: T, old?: T) => void): void;
  on(event: 'synced', fn: (info: SyncedInfo) => void): void;
  on(event: 'add' | 'update' | 'delete' | 'synced', fn: (...args: any[]) => void): void {
    (this.listeners[event] as ((...args: any[]) => void)[]).push(fn);
  }

  /** resync — relist now (as the periodic resync does); the watch is closed and resumed after the list. */
  resync(): void {
    this.requestRelist('resync');
  }

  private requestRelist(reason: SyncedInfo['reason']): void {
    if (this.stopped) return;
    this.relistReason ??= reason;
    this.abortWatch();
    this.wake?.();
  }

  private abortWatch(): void {
    this.watchAbortRequested = true;
    this.watchAbort?.abort();
    // A watch whose response has not started yet (no controller) is given up at once; its controller is aborted
    // as soon as the client hands it over.
    this.endWatch?.();
  }

  private emit(event: 'add' | 'update' | 'delete', obj: T, old?: T): void {
    for (const fn of this.listeners[event]) {
      try {
        fn(obj, old);
      } catch (err) {
        this.opts.logger?.error('informer listener failed', { informer: this.label, event, err: (err as Error).message });
      }
    }
  }

  private async run(): Promise<void> {
    const initialMs = this.opts.backoff?.initialMs ?? 250;
    const maxMs = this.opts.backoff?.maxMs ?? 30_000;
    let delay = initialMs;
    while (!this.stopped) {
      try {
        if (this.relistReason !== undefined || this.rv === undefined) {
          const reason = this.relistReason ?? 'error';
          this.relistReason = undefined;
          await this.relist(reason);
          delay = initialMs;
          if (this.stopped) break;
          if (this.relistReason !== undefined) continue;
        }
        const opened = Date.now();
        const delivered = await this.watchOnce();
        if (delivered > 0 || Date.now() - opened >= 1000) delay = initialMs;
      } catch (err) {
        if (this.stopped) break;
        if (err instanceof GoneError) {
          this.stats.relists410++;
          this.relistReason ??= 'gone';
          this.opts.logger?.info('informer relisting after 410 Gone', { informer: this.label, err: err.message });
          continue;
        }
        this.stats.errors++;
        this.opts.metrics?.metrics.apiError('kube', this.opts.metrics.service, `${this.rv === undefined ? 'list' : 'watch'} ${this.opts.path}`, (err as { statusCode?: number; code?: number }).statusCode ?? (err as { code?: number }).code);
        this.opts.logger?.warn('informer request failed; retrying', { informer: this.label, err: (err as Error).message, retryInMs: delay });
        await this.sleep(delay);
        delay = Math.min(delay * 2, maxMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /**
   * relist — pages through the collection, applying each page to the cache as it arrives (add / update when its
   * resourceVersion changed), then deletes what the list did not contain. A 410 on a continue token restarts it.
   */
  private async relist(reason: SyncedInfo['reason']): Promise<void> {
    const started = Date.now();
    const limit = this.opts.pageSize ?? 500;
    for (;;) {
      const seen = new Set<string>();
      let added = 0;
      let updated = 0;
      let cont: string | undefined;
      let listRv: string | undefined;
      try {
        do {
          const page = await this.getPage(limit, cont);
          this.stats.pages++;
          listRv = page.metadata?.resourceVersion ?? listRv;
          cont = page.metadata?.continue || undefined;
          const items: any[] = page.items ?? [];
          for (let i = 0; i < items.length; i++) {
            const raw = items[i];
            const key = this.keyOf(raw);
            seen.add(key);
            const version = raw?.metadata?.resourceVersion as string | undefined;
            const old = this.cache.get(key);
            if (old !== undefined && version !== undefined && this.versions.get(key) === version) continue;
            const obj = this.opts.project(raw);
            this.cache.set(key, obj);
            if (version !== undefined) this.versions.set(key, version);
            if (old === undefined) {
              added++;
              this.emit('add', obj);
            } else {
              updated++;
              this.emit('update', obj, old);
            }
          }
          if (this.stopped) return;
        } while (cont);
      } catch (err) {
        if (err instanceof GoneError && cont !== undefined) {
          // The continue token expired: the list is no longer consistent; start over.
          this.stats.relists410++;
          this.opts.logger?.info('informer list continue token expired; restarting the list', { informer: this.label });
          continue;
        }
        throw err;
      }
      let deleted = 0;
      for (const [key, obj] of this.cache) {
        if (seen.has(key)) continue;
        this.cache.delete(key);
        this.versions.delete(key);
        deleted++;
        this.emit('delete', obj);
      }
      this.rv = listRv;
      this.stats.lists++;
      const first = !this.hasSynced;
      this.hasSynced = true;
      if (first) {
        for (const w of this.syncWaiters.splice(0)) w.resolve();
      }
      const info: SyncedInfo = { full: true, reason, added, updated, deleted, durationMs: Date.now() - started };
      this.opts.logger?.debug('informer listed', { informer: this.label, size: this.cache.size, pages: this.stats.pages, ...info });
      for (const fn of this.listeners.synced) {
        try {
          fn(info);
        } catch (err) {
          this.opts.logger?.error('informer listener failed', { informer: this.label, event: 'synced', err: (err as Error).message });
        }
      }
      return;
    }
  }

  private async getPage(limit: number, cont: string | undefined): Promise<any> {
    const cluster = this.opts.kc.getCurrentCluster();
    if (!cluster) throw new Error('no current cluster in the kubeconfig');
    const url = new URL(cluster.server + this.opts.path);
    url.searchParams.set('limit', String(limit));
    if (cont) url.searchParams.set('continue', cont);
    const init = await this.opts.kc.applyToFetchOptions({});
    const res = await fetch(url, { ...(init as object), method: 'GET' } as any);
    const text = await res.text();
    if (res.status === 410) throw new GoneError(`LIST ${this.opts.path}: 410 Gone`);
    if (res.status !== 200) throw new HttpError(res.status, `LIST ${this.opts.path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  }

  /**
   * watchOnce — one WATCH from the current version; resolves with the number of events applied when the server
   * closes it (or we abort it for a relist), throws GoneError on 410 and any other error for a back-off.
   */
  private watchOnce(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let delivered = 0;
      let finished = false;
      this.watchAbortRequested = false;
      this.stats.watches++;
      const finish = (err: unknown) => {
        if (finished) return;
        finished = true;
        this.watchAbort = undefined;
        this.endWatch = undefined;
        if (err instanceof GoneError) reject(err);
        else if (this.watchAbortRequested || this.stopped) resolve(delivered);
        else if (err) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve(delivered);
      };
      const onEvent = (type: string, obj: any) => {
        if (finished || this.stopped) return;
        const version = obj?.metadata?.resourceVersion as string | undefined;
        switch (type) {
          case 'ADDED':
          case 'MODIFIED': {
            const key = this.keyOf(obj);
            const projected = this.opts.project(obj);
            const old = this.cache.get(key);
            this.cache.set(key, projected);
            if (version) this.versions.set(key, version);
            if (old === undefined) this.emit('add', projected);
            else this.emit('update', projected, old);
            break;
          }
          case 'DELETED': {
            const key = this.keyOf(obj);
            const old = this.cache.get(key);
            this.cache.delete(key);
            this.versions.delete(key);
            if (old !== undefined) this.emit('delete', old);
            break;
          }
          case 'BOOKMARK':
            break;
          case 'ERROR': {
            const code = obj?.code;
            this.watchAbort?.abort();
            finish(code === 410 ? new GoneError(`WATCH ${this.opts.path}: ${obj?.message ?? '410 Gone'}`) : new HttpError(Number(code) || 500, `WATCH ${this.opts.path}: ${obj?.message ?? 'error event'}`));
            return;
          }
          default:
            return;
        }
        delivered++;
        if (version) this.rv = version;
      };
      const done = (err: any) => {
        if (err && err.statusCode === 410) finish(new GoneError(`WATCH ${this.opts.path}: HTTP 410`));
        else finish(err ?? null);
      };
      this.endWatch = () => finish(null);
      const timeout = this.opts.watchTimeoutSeconds ?? 300;
      new k8s.Watch(this.opts.kc)
        .watch(this.opts.path, { resourceVersion: this.rv, allowWatchBookmarks: true, timeoutSeconds: timeout }, onEvent, done)
        .then((controller) => {
          if (finished || this.watchAbortRequested || this.stopped) controller.abort();
          else this.watchAbort = controller;
        })
        .catch((err) => finish(err));
    });
  }
}
