// Longer than 500 lines because Informer is one state machine — paged list, watch, resync, backoff, staleness and
// health — whose steps share its private state; the option and health types around it are what is small.
import type * as k8s from '@kubernetes/client-node';
import fetch from 'node-fetch';
import type { JsonLogger } from '../logging/logger.js';
import type { Metrics } from '../health/metrics.js';
import { kubeRequestCounter, resourceOfPath, type KubeRequestCounter } from './kube-requests.js';

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
  /**
   * Every this many ms the cached objects are replayed to the `update` handlers (old === new) and `resync` fires —
   * client-go's resync: it makes NO request. 0 or unset: never.
   */
  resyncMs?: number;
  /** Back-off after a failed request: doubles from `initialMs` up to `maxMs` (defaults 250 ms, 30 s), each × a random 0.5–1.5. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Server-side watch timeout asked for (`timeoutSeconds`); a watch idle longer than this plus `watchIdleGraceMs` is dropped and resumed. Default 300 s. */
  watchTimeoutSeconds?: number;
  /** How long past its timeout a silent watch is kept before it is dropped. Default 30 s. */
  watchIdleGraceMs?: number;
  /** Each LIST page (and the opening of a watch) is abandoned after this long. Default 60 s. */
  requestTimeoutMs?: number;
  /** Readiness turns false when the API server could not be listed or watched for this long. Default 60 s. */
  staleAfterMs?: number;
  /**
   * The first page of a list asks `resourceVersion=0` (any version the API server's watch cache holds, no etcd read),
   * and a relist after a failed watch asks for at least the last version seen; a relist after 410 reads the latest
   * (`resourceVersion` unset). Default true.
   */
  listFromWatchCache?: boolean;
  logger?: JsonLogger;
  name?: string;
  /** LIST/WATCH requests are counted in `nodes_manager_kube_requests_total` (and failures in `…_kube_api_errors_total`). */
  metrics?: { metrics: Metrics; service: string };
  /**
   * Time source for back-off, staleness and durations, in milliseconds (default `performance.now`, monotonic: only
   * differences are used); random source for jitter (default Math.random).
   */
  now?: () => number;
  random?: () => number;
}

/** SyncedInfo — after every complete (re)list: `full` is always true (the cache was reconciled against a LIST). */
export interface SyncedInfo {
  full: boolean;
  reason: 'initial' | 'gone' | 'error';
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
  /** Watches dropped by us because they were idle past their timeout. */
  idleDrops: number;
  /** LIST pages abandoned after `requestTimeoutMs`. */
  listTimeouts: number;
  /** Periodic resyncs (cache replays). */
  resyncs: number;
}

/** InformerHealth — readiness of one informer, with the reason in words. */
export interface InformerHealth {
  ok: boolean;
  detail: string;
}

type ChangeListener<T> = (obj: T, old?: T) => void;

const defaultKey = (obj: any): string =>
  obj?.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : String(obj?.metadata?.name);

class GoneError extends Error {}

class HttpError extends Error {
  constructor(
    readonly statusCode: number | string,
    message: string,
  ) {
    super(message);
  }
}

/** A watch ends one of three ways: cleanly (server timeout, or we ended it), with 410, or with a failure. */
type WatchEnd = { kind: 'clean'; delivered: number } | { kind: 'gone' } | { kind: 'failed'; err: Error };

/**
 * Informer — a list+watch cache of one Kubernetes collection that keeps only projected objects, with client-go's
 * reflector semantics (docs/kubernetes.md):
 *
 * - LIST once at start, paged (`limit`/`continue`), each page projected and dropped as it arrives, so memory is the
 *   cache plus one page; the first page may be served from the API server's watch cache (`resourceVersion=0`).
 * - WATCH from the list's resourceVersion with bookmarks and `timeoutSeconds`; a clean close re-watches from the last
 *   version seen (no LIST). A watch silent for longer than its timeout (plus a grace) is dropped and resumed.
 * - Relist only on 410 Gone (an `ERROR` event, an HTTP 410, an expired continue token) or a failed watch, the latter
 *   after a capped, jittered exponential back-off.
 * - The periodic resync replays the cache to the handlers and makes no request.
 * - Every request is bounded: a LIST page, and the opening of a watch, are abandoned after `requestTimeoutMs`.
 * - `synced` is false until the first complete list; `health()` is also not ok while the API server has not answered
 *   a LIST or WATCH for `staleAfterMs`.
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
    resync: [] as (() => void)[],
  };
  private rv?: string;
  private hasSynced = false;
  private stopped = true;
  private loop?: Promise<void>;
  private current?: AbortController;
  private resyncTimer?: NodeJS.Timeout;
  private wake?: () => void;
  private syncWaiters: { resolve: () => void }[] = [];
  private readonly label: string;
  private readonly resource: string;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly requests?: KubeRequestCounter;
  /** Since when requests to the API server have been failing (undefined: the last one succeeded). */
  private failingSince?: number;
  private lastError?: string;
  /** The next list must not come from the watch cache (the last one answered 410). */
  private listLatest = false;

  readonly stats: InformerStats = { lists: 0, pages: 0, watches: 0, relists410: 0, errors: 0, idleDrops: 0, listTimeouts: 0, resyncs: 0 };

  constructor(private readonly opts: InformerOptions<T>) {
    this.keyOf = opts.key ?? defaultKey;
    this.label = opts.name ?? opts.path;
    this.resource = resourceOfPath(opts.path);
    this.now = opts.now ?? (() => performance.now());
    this.random = opts.random ?? Math.random;
    if (opts.metrics) this.requests = kubeRequestCounter(opts.metrics.metrics, opts.metrics.service);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
    if (this.opts.resyncMs && this.opts.resyncMs > 0) {
      this.resyncTimer = setInterval(() => this.resync(), this.opts.resyncMs);
      this.resyncTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.current?.abort();
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  get synced(): boolean {
    return this.hasSynced;
  }

  /** health — ok once synced and while the API server answers; not ok after `staleAfterMs` of failed LIST/WATCH requests. */
  health(): InformerHealth {
    if (!this.hasSynced) {
      return { ok: false, detail: `${this.label}: waiting for the first list${this.lastError ? ` (last error: ${this.lastError})` : ''}` };
    }
    const stale = this.opts.staleAfterMs ?? 60_000;
    if (this.failingSince !== undefined) {
      const forMs = this.now() - this.failingSince;
      const detail = `${this.label}: Kubernetes API not answering for ${Math.round(forMs / 1000)} s (${this.lastError ?? 'no answer'})`;
      if (forMs >= stale) return { ok: false, detail: `${detail}; the cache is stale` };
      return { ok: true, detail };
    }
    return { ok: true, detail: `${this.label}: ${this.cache.size} cached, watching` };
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
  on(event: 'resync', fn: () => void): void;
  on(event: 'add' | 'update' | 'delete' | 'synced' | 'resync', fn: (...args: any[]) => void): void {
    (this.listeners[event] as ((...args: any[]) => void)[]).push(fn);
  }

  /** resync — replay every cached object to the `update` handlers (old === new), then `resync`. No request. */
  resync(): void {
    if (this.stopped || !this.hasSynced) return;
    this.stats.resyncs++;
    for (const obj of this.cache.values()) this.emit('update', obj, obj);
    for (const fn of this.listeners.resync) this.call('resync', fn);
  }

  private emit(event: 'add' | 'update' | 'delete', obj: T, old?: T): void {
    for (const fn of this.listeners[event]) this.call(event, () => fn(obj, old));
  }

  private call(event: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.opts.logger?.error('informer listener failed', { informer: this.label, event, err: (err as Error).message });
    }
  }

  private backoffMs(attempt: number): number {
    const initial = this.opts.backoff?.initialMs ?? 250;
    const max = this.opts.backoff?.maxMs ?? 30_000;
    const base = Math.min(max, initial * 2 ** Math.min(attempt, 30));
    // Jitter, so replicas that lost the API server together do not come back in step.
    return Math.min(max, Math.round(base * (0.5 + this.random())));
  }

  private async run(): Promise<void> {
    let failures = 0;
    let needList: SyncedInfo['reason'] | undefined = 'initial';
    while (!this.stopped) {
      if (needList !== undefined) {
        try {
          await this.relist(needList);
          needList = undefined;
          failures = 0;
        } catch (err) {
          if (this.stopped) break;
          if (err instanceof GoneError) {
            // The version we asked for is gone from the watch cache: read the latest instead.
            this.stats.relists410++;
            this.listLatest = true;
            needList = 'gone';
            continue;
          }
          this.failed('list', err as Error);
          await this.sleep(this.backoffMs(failures++));
          continue;
        }
      }
      const opened = this.now();
      const end = await this.watchOnce();
      if (this.stopped) break;
      if (end.kind === 'clean') {
        // A watch that closes at once with nothing in it is not progress: do not spin on it.
        if (end.delivered === 0 && this.now() - opened < 1000) await this.sleep(this.backoffMs(failures++));
        else failures = 0;
      } else if (end.kind === 'gone') {
        this.stats.relists410++;
        this.opts.logger?.info('informer relisting after 410 Gone', { informer: this.label });
        needList = 'gone';
      } else {
        this.failed('watch', end.err);
        await this.sleep(this.backoffMs(failures++));
        needList = 'error';
      }
    }
  }

  private failed(verb: 'list' | 'watch', err: Error): void {
    this.stats.errors++;
    this.failingSince ??= this.now();
    this.lastError = err.message;
    const code = err instanceof HttpError ? err.statusCode : 'network';
    this.opts.metrics?.metrics.apiError('kube', this.opts.metrics.service, `${verb} ${this.opts.path}`, code);
    this.opts.logger?.warn('informer request failed; retrying', { informer: this.label, verb, err: err.message });
  }

  private answered(): void {
    this.failingSince = undefined;
    this.lastError = undefined;
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
   * resourceVersion changed), then deletes what the list did not contain. A 410 on a continue token restarts it
   * from the latest version.
   */
  private async relist(reason: SyncedInfo['reason']): Promise<void> {
    const started = this.now();
    const limit = this.opts.pageSize ?? 500;
    for (;;) {
      const seen = new Set<string>();
      let added = 0;
      let updated = 0;
      let cont: string | undefined;
      let listRv: string | undefined;
      const fromCache = this.opts.listFromWatchCache !== false && !this.listLatest;
      // client-go's reflector: "0" at first (any cached version), then at least the last version seen.
      const askRv = fromCache ? (this.rv ?? '0') : undefined;
      try {
        do {
          const page = await this.getPage(limit, cont, cont ? undefined : askRv);
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
          // The continue token expired: the list is no longer consistent; start over from the latest version.
          this.stats.relists410++;
          this.listLatest = true;
          this.opts.logger?.info('informer list continue token expired; restarting the list', { informer: this.label });
          continue;
        }
        throw err;
      }
      this.listLatest = false;
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
      if (first) for (const w of this.syncWaiters.splice(0)) w.resolve();
      const info: SyncedInfo = { full: true, reason, added, updated, deleted, durationMs: Math.round(this.now() - started) };
      this.opts.logger?.debug('informer listed', { informer: this.label, size: this.cache.size, pages: this.stats.pages, ...info });
      for (const fn of this.listeners.synced) this.call('synced', () => fn(info));
      return;
    }
  }

  private async url(params: Record<string, string | undefined>): Promise<{ url: URL; init: object }> {
    const cluster = this.opts.kc.getCurrentCluster();
    if (!cluster) throw new Error('no current cluster in the kubeconfig');
    const url = new URL(cluster.server + this.opts.path);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    const init = await this.opts.kc.applyToFetchOptions({});
    return { url, init: init as object };
  }

  /** getPage — one LIST page, abandoned (and counted as a timeout) after `requestTimeoutMs`. */
  private async getPage(limit: number, cont: string | undefined, resourceVersion: string | undefined): Promise<any> {
    const { url, init } = await this.url({
      limit: String(limit),
      continue: cont,
      resourceVersion,
      ...(resourceVersion !== undefined && resourceVersion !== '0' ? { resourceVersionMatch: 'NotOlderThan' } : {}),
    });
    const abort = new AbortController();
    this.current = abort;
    if (this.stopped) abort.abort();
    const timeoutMs = this.opts.requestTimeoutMs ?? 60_000;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    try {
      const res = await fetch(url, { ...init, method: 'GET', signal: abort.signal as any } as any);
      const text = await res.text();
      this.requests?.inc('list', this.resource, res.status);
      if (res.status === 200 || res.status === 410) this.answered();
      if (res.status === 410) throw new GoneError(`LIST ${this.opts.path}: 410 Gone`);
      if (res.status !== 200) throw new HttpError(res.status, `LIST ${this.opts.path}: HTTP ${res.status} ${text.slice(0, 200)}`);
      return JSON.parse(text);
    } catch (err) {
      if (err instanceof GoneError || err instanceof HttpError) throw err;
      if (timedOut) {
        this.stats.listTimeouts++;
        this.requests?.inc('list', this.resource, 'timeout');
        throw new HttpError('timeout', `LIST ${this.opts.path}: no answer within ${timeoutMs} ms`);
      }
      this.requests?.inc('list', this.resource, 'network');
      throw err;
    } finally {
      clearTimeout(timer);
      if (this.current === abort) this.current = undefined;
    }
  }

  /**
   * watchOnce — one WATCH from the current version, until the server closes it (clean), we drop it (clean: idle past
   * its timeout, or stopping), it answers 410 (gone) or fails (a refused, broken or timed-out connection, an HTTP
   * error, an ERROR event other than 410).
   */
  private async watchOnce(): Promise<WatchEnd> {
    const timeoutSeconds = this.opts.watchTimeoutSeconds ?? 300;
    const openTimeoutMs = this.opts.requestTimeoutMs ?? 60_000;
    const idleMs = timeoutSeconds * 1000 + (this.opts.watchIdleGraceMs ?? 30_000);
    this.stats.watches++;
    const { url, init } = await this.url({ watch: 'true', resourceVersion: this.rv, allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds) });
    const abort = new AbortController();
    this.current = abort;
    if (this.stopped) abort.abort();
    let why: 'open-timeout' | 'idle' | undefined;
    let delivered = 0;
    let lastActivity = this.now();
    const openTimer = setTimeout(() => {
      why = 'open-timeout';
      abort.abort();
    }, openTimeoutMs);
    const idleTimer = setInterval(() => {
      if (this.now() - lastActivity > idleMs) {
        why = 'idle';
        abort.abort();
      }
    }, Math.max(50, Math.min(5000, idleMs / 4)));
    idleTimer.unref();
    try {
      const res = await fetch(url, { ...init, method: 'GET', signal: abort.signal as any } as any);
      clearTimeout(openTimer);
      this.requests?.inc('watch', this.resource, res.status);
      if (res.status === 410) return { kind: 'gone' };
      if (res.status !== 200) {
        const text = await res.text().catch(() => '');
        return { kind: 'failed', err: new HttpError(res.status, `WATCH ${this.opts.path}: HTTP ${res.status} ${text.slice(0, 200)}`) };
      }
      this.answered();
      lastActivity = this.now();
      const body = res.body as NodeJS.ReadableStream;
      return await new Promise<WatchEnd>((resolve) => {
        let buffer = '';
        let settled = false;
        const settle = (end: WatchEnd) => {
          if (settled) return;
          settled = true;
          resolve(end);
          abort.abort();
        };
        const line = (text: string): void => {
          if (text.trim() === '') return;
          let ev: { type?: string; object?: any };
          try {
            ev = JSON.parse(text);
          } catch {
            return;
          }
          const end = this.apply(ev.type ?? '', ev.object);
          if (end) settle(end);
          else delivered++;
        };
        body.on('data', (chunk: Buffer) => {
          lastActivity = this.now();
          buffer += chunk.toString('utf8');
          let nl: number;
          while (!settled && (nl = buffer.indexOf('\n')) >= 0) {
            line(buffer.slice(0, nl));
            buffer = buffer.slice(nl + 1);
          }
        });
        body.on('end', () => {
          if (buffer) line(buffer);
          settle({ kind: 'clean', delivered });
        });
        body.on('error', (err: Error) => {
          if (this.stopped || why === 'idle') {
            if (why === 'idle') this.idleDropped();
            settle({ kind: 'clean', delivered });
          } else settle({ kind: 'failed', err: new HttpError('network', `WATCH ${this.opts.path}: ${err.message}`) });
        });
      });
    } catch (err) {
      if (this.stopped) return { kind: 'clean', delivered };
      if (why === 'open-timeout') {
        this.requests?.inc('watch', this.resource, 'timeout');
        return { kind: 'failed', err: new HttpError('timeout', `WATCH ${this.opts.path}: no answer within ${openTimeoutMs} ms`) };
      }
      this.requests?.inc('watch', this.resource, 'network');
      return { kind: 'failed', err: err as Error };
    } finally {
      clearTimeout(openTimer);
      clearInterval(idleTimer);
      if (this.current === abort) this.current = undefined;
    }
  }

  private idleDropped(): void {
    this.stats.idleDrops++;
    this.opts.logger?.info('informer watch idle past its timeout; resuming', { informer: this.label });
  }

  /** apply — one watch event onto the cache; returns how the watch ends when the event ends it. */
  private apply(type: string, obj: any): WatchEnd | undefined {
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
        if (obj?.code === 410) return { kind: 'gone' };
        return { kind: 'failed', err: new HttpError(Number(obj?.code) || 500, `WATCH ${this.opts.path}: ${obj?.message ?? 'error event'}`) };
      }
      default:
        return undefined;
    }
    if (version) this.rv = version;
    return undefined;
  }
}

/** informersHealth — ok when every informer is; the detail names the ones that are not (or all, when all are). */
export function informersHealth(informers: readonly { health(): InformerHealth }[]): InformerHealth {
  const all = informers.map((i) => i.health());
  const bad = all.filter((h) => !h.ok);
  return bad.length ? { ok: false, detail: bad.map((h) => h.detail).join('; ') } : { ok: true, detail: all.map((h) => h.detail).join('; ') };
}

/** KubeWatchOptions — the informer options every watching service takes from its configuration. */
export function kubeWatchOptions(config: { KUBE_REQUEST_TIMEOUT_SECONDS: number; KUBE_API_STALE_SECONDS: number }): Pick<InformerOptions<unknown>, 'requestTimeoutMs' | 'staleAfterMs'> {
  return { requestTimeoutMs: config.KUBE_REQUEST_TIMEOUT_SECONDS * 1000, staleAfterMs: config.KUBE_API_STALE_SECONDS * 1000 };
}
