import { kubeRequestCounter, resourceOfPath, type KubeRequestCounter } from './kube-requests.js';
import { apiRequest, get, readLines } from './informer-http.js';
import { InformerCache, type ListProgress } from './informer-cache.js';
import { GoneError, HttpError, type InformerHealth, type InformerOptions, type InformerStats, type SyncedInfo, type WatchEnd } from './informer.types.js';

export * from './informer.types.js';

/** INITIAL_EVENTS_END — the annotation of the bookmark that ends a WatchList's initial events (KEP-3157). */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

const defaultKey = (obj: any): string =>
  obj?.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : String(obj?.metadata?.name);

/**
 * Informer — a list+watch cache of one Kubernetes collection that keeps only projected objects, with client-go's
 * reflector semantics (docs/kubernetes.md): list once — a WatchList (`sendInitialEvents`: the state as ADDED events up
 * to the bookmark annotated `k8s.io/initial-events-end`, then the watch goes on on the same connection), or paged
 * LIST when the server does not support it — each event or page projected and dropped as it arrives; watch from the
 * list's version with bookmarks, re-watching after a clean close without a LIST; relist only on 410 Gone or a failed
 * watch (after a capped, jittered back-off); resync replays the cache with no request; every request bounded;
 * `synced` after the first complete list, `health()` not ok while the API server has not answered for `staleAfterMs`.
 */
export class Informer<T> {
  private readonly cache: InformerCache<T>;
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
  /** Lists are WatchLists until the server shows it does not support them. */
  private useWatchList: boolean;

  readonly stats: InformerStats = {
    lists: 0, pages: 0, watches: 0, watchLists: 0, watchListFallbacks: 0, relists410: 0, errors: 0, idleDrops: 0, listTimeouts: 0, resyncs: 0, bytes: 0,
  };

  constructor(private readonly opts: InformerOptions<T>) {
    this.cache = new InformerCache(opts.project, opts.key ?? defaultKey, opts.versionOf, (event, err) =>
      this.opts.logger?.error('informer listener failed', { informer: this.label, event, err: err.message }),
    );
    this.label = opts.name ?? opts.path;
    this.resource = resourceOfPath(opts.path);
    this.now = opts.now ?? (() => performance.now());
    this.random = opts.random ?? Math.random;
    this.useWatchList = opts.watchList ?? true;
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
    (this.cache.listeners[event] as ((...args: any[]) => void)[]).push(fn);
  }

  /** resync — replay every cached object to the `update` handlers (old === new), then `resync`. No request. */
  resync(): void {
    if (this.stopped || !this.hasSynced) return;
    this.stats.resyncs++;
    this.cache.replay();
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
      if (needList !== undefined && !this.useWatchList) {
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
      const end = await this.watchOnce(needList);
      if (this.stopped) break;
      if (end.kind === 'unsupported') {
        // An older server: the paged LIST takes over for good (client-go's fall-back), without a back-off.
        this.useWatchList = false;
        this.stats.watchListFallbacks++;
        this.opts.logger?.info('the API server does not support WatchList; listing in pages', { informer: this.label, why: end.why });
        continue;
      }
      if (end.listed) needList = undefined;
      if (end.kind === 'clean') {
        if (needList !== undefined) {
          this.failed('watch', new Error(`WATCH ${this.opts.path}: closed before its initial-events-end bookmark`));
          await this.sleep(this.backoffMs(failures++));
        } else if (end.delivered === 0 && this.now() - opened < 1000) {
          // A watch that closes at once with nothing in it is not progress: do not spin on it.
          await this.sleep(this.backoffMs(failures++));
        } else failures = 0;
      } else if (end.kind === 'gone') {
        this.stats.relists410++;
        this.listLatest = true;
        this.opts.logger?.info('informer relisting after 410 Gone', { informer: this.label });
        needList = 'gone';
      } else {
        this.failed('watch', end.err);
        await this.sleep(this.backoffMs(failures++));
        needList ??= 'error';
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

  /** finishList — a complete list: delete what it did not contain, take its version, report synced. */
  private finishList(progress: ListProgress, listRv: string | undefined, via: SyncedInfo['via']): void {
    this.listLatest = false;
    const deleted = this.cache.finishList(progress);
    this.rv = listRv;
    this.stats.lists++;
    const first = !this.hasSynced;
    this.hasSynced = true;
    if (first) for (const w of this.syncWaiters.splice(0)) w.resolve();
    const { reason, added, updated } = progress;
    const info: SyncedInfo = { full: true, reason, via, added, updated, deleted, durationMs: Math.round(this.now() - progress.started) };
    this.opts.logger?.debug('informer listed', { informer: this.label, size: this.cache.size, pages: this.stats.pages, ...info });
    for (const fn of this.cache.listeners.synced) this.cache.call('synced', () => fn(info));
  }

  /**
   * relist — pages through the collection, applying each page to the cache as it arrives, then deletes what the
   * list did not contain. A 410 on a continue token restarts it from the latest version.
   */
  private async relist(reason: SyncedInfo['reason']): Promise<void> {
    const limit = this.opts.pageSize ?? 500;
    for (;;) {
      const progress = this.cache.startList(reason, this.now());
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
          for (let i = 0; i < items.length; i++) this.cache.listed(progress, items[i]);
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
      this.finishList(progress, listRv, 'list');
      return;
    }
  }

  /** getPage — one LIST page, abandoned (and counted as a timeout) after `requestTimeoutMs`. */
  private async getPage(limit: number, cont: string | undefined, resourceVersion: string | undefined): Promise<any> {
    const { url, init } = await apiRequest(this.opts.kc, this.opts.path, {
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
      const res = await get(url, init, abort.signal);
      const text = await res.text();
      this.stats.bytes += Buffer.byteLength(text);
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
   * watchOnce — one WATCH from the current version, or — with `listing` — a WatchList (the collection's state first,
   * then the watch on the same connection; resourceVersion unset for a consistent read, or at least the last version
   * seen after a failed watch). It runs until the server closes it (clean), we drop it (clean: idle past its
   * timeout, or stopping), it answers 410 (gone), it fails (a refused, broken or timed-out connection, an HTTP
   * error, an ERROR event other than 410), or — a WatchList — the server refuses the parameters (400/422), sends a
   * bookmark without the initial-events-end annotation before it, or none within `initialEventsTimeoutMs` of
   * silence (unsupported).
   */
  private async watchOnce(listing?: SyncedInfo['reason']): Promise<WatchEnd> {
    const timeoutSeconds = this.opts.watchTimeoutSeconds ?? 300;
    const openTimeoutMs = this.opts.requestTimeoutMs ?? 60_000;
    const idleMs = timeoutSeconds * 1000 + (this.opts.watchIdleGraceMs ?? 30_000);
    const initialMs = this.opts.initialEventsTimeoutMs ?? 30_000;
    this.stats.watches++;
    if (listing) this.stats.watchLists++;
    const askRv = listing ? (this.listLatest ? undefined : this.rv) : this.rv;
    const { url, init } = await apiRequest(this.opts.kc, this.opts.path, {
      watch: 'true',
      resourceVersion: askRv,
      allowWatchBookmarks: 'true',
      ...(listing ? { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' } : {}),
      timeoutSeconds: String(timeoutSeconds),
    });
    const abort = new AbortController();
    this.current = abort;
    if (this.stopped) abort.abort();
    let why: 'open-timeout' | 'idle' | 'no-initial-events-end' | undefined;
    let delivered = 0;
    let progress = listing ? this.cache.startList(listing, this.now()) : undefined;
    let lastActivity = this.now();
    const openTimer = setTimeout(() => {
      why = 'open-timeout';
      abort.abort();
    }, openTimeoutMs);
    const idleTimer = setInterval(() => {
      const silent = this.now() - lastActivity;
      if (progress && silent > initialMs) why = 'no-initial-events-end';
      else if (silent > idleMs) why = 'idle';
      else return;
      abort.abort();
    }, Math.max(50, Math.min(1000, Math.min(idleMs, initialMs) / 4)));
    idleTimer.unref();
    const listed = () => listing !== undefined && progress === undefined;
    try {
      const res = await get(url, init, abort.signal);
      clearTimeout(openTimer);
      this.requests?.inc('watch', this.resource, res.status);
      if (res.status === 410) return { kind: 'gone', listed: false };
      if (res.status !== 200) {
        const text = await res.text().catch(() => '');
        if (listing && (res.status === 422 || res.status === 400)) return { kind: 'unsupported', why: `HTTP ${res.status} ${text.slice(0, 200)}` };
        return { kind: 'failed', listed: false, err: new HttpError(res.status, `WATCH ${this.opts.path}: HTTP ${res.status} ${text.slice(0, 200)}`) };
      }
      this.answered();
      lastActivity = this.now();
      let ended: WatchEnd | undefined;
      const read = await readLines(res.body, {
        bytes: (n) => {
          this.stats.bytes += n;
          lastActivity = this.now();
        },
        line: (text) => {
          let ev: { type?: string; object?: any };
          try {
            ev = JSON.parse(text);
          } catch {
            return false;
          }
          if (progress) {
            const outcome = this.initialEvent(progress, ev.type ?? '', ev.object);
            if (outcome === 'end') progress = undefined;
            else if (outcome !== 'more') ended = outcome;
          } else ended = this.apply(ev.type ?? '', ev.object);
          if (ended) return true;
          delivered++;
          return false;
        },
      });
      if (ended) return ended.kind === 'unsupported' ? ended : { ...ended, listed: listed() };
      if (read.end === 'error') {
        if (why === 'no-initial-events-end') return { kind: 'unsupported', why: `no ${INITIAL_EVENTS_END} bookmark within ${initialMs} ms` };
        if (this.stopped || why === 'idle') {
          if (why === 'idle') this.idleDropped();
          return { kind: 'clean', delivered, listed: listed() };
        }
        return { kind: 'failed', listed: listed(), err: new HttpError('network', `WATCH ${this.opts.path}: ${read.err.message}`) };
      }
      return { kind: 'clean', delivered, listed: listed() };
    } catch (err) {
      if (this.stopped) return { kind: 'clean', delivered, listed: listed() };
      if (why === 'no-initial-events-end') return { kind: 'unsupported', why: `no ${INITIAL_EVENTS_END} bookmark within ${initialMs} ms` };
      if (why === 'open-timeout') {
        this.requests?.inc('watch', this.resource, 'timeout');
        return { kind: 'failed', listed: false, err: new HttpError('timeout', `WATCH ${this.opts.path}: no answer within ${openTimeoutMs} ms`) };
      }
      this.requests?.inc('watch', this.resource, 'network');
      return { kind: 'failed', listed: listed(), err: err as Error };
    } finally {
      clearTimeout(openTimer);
      clearInterval(idleTimer);
      abort.abort();
      if (this.current === abort) this.current = undefined;
    }
  }

  /**
   * initialEvent — one event of a WatchList before its initial-events-end bookmark: ADDED objects are listed (their
   * own versions say nothing of the list's, so the informer's version waits for the bookmark); the annotated
   * bookmark completes the list at its version ('end'); a bookmark without it means a server that ignored the
   * parameters (unsupported).
   */
  private initialEvent(progress: ListProgress, type: string, obj: any): 'more' | 'end' | WatchEnd {
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
        this.cache.listed(progress, obj);
        return 'more';
      case 'BOOKMARK':
        if (obj?.metadata?.annotations?.[INITIAL_EVENTS_END] !== 'true') return { kind: 'unsupported', why: 'a bookmark before the initial-events-end one' };
        this.finishList(progress, obj?.metadata?.resourceVersion, 'watch-list');
        return 'end';
      case 'ERROR':
        return this.apply(type, obj) ?? 'more';
      default:
        return 'more';
    }
  }

  private idleDropped(): void {
    this.stats.idleDrops++;
    this.opts.logger?.info('informer watch idle past its timeout; resuming', { informer: this.label });
  }

  /** apply — one watch event onto the cache; returns how the watch ends when the event ends it. */
  private apply(type: string, obj: any): WatchEnd | undefined {
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
        this.cache.changed(obj);
        break;
      case 'DELETED':
        this.cache.deleted(obj);
        break;
      case 'BOOKMARK':
        break;
      case 'ERROR':
        if (obj?.code === 410) return { kind: 'gone', listed: false };
        return { kind: 'failed', listed: false, err: new HttpError(Number(obj?.code) || 500, `WATCH ${this.opts.path}: ${obj?.message ?? 'error event'}`) };
      default:
        return undefined;
    }
    const version = obj?.metadata?.resourceVersion as string | undefined;
    if (version) this.rv = version;
    return undefined;
  }
}
