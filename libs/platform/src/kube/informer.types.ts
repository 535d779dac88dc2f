import type * as k8s from '@kubernetes/client-node';
import type { JsonLogger } from '../logging/logger.js';
import type { Metrics } from '../health/metrics.js';

export interface InformerOptions<T> {
  kc: k8s.KubeConfig;
  /** Collection path: '/api/v1/nodes', '/api/v1/pods', '/apis/policy/v1/poddisruptionbudgets'. */
  path: string;
  /**
   * The transform applied before an object enters the cache: keeps only the fields the caller reads, and the raw
   * object is dropped as soon as it is projected. The cache never holds anything else.
   */
  project: (obj: any) => T;
  /** Cache key of a raw object; default `namespace/name`, or `name` for cluster-scoped objects. */
  key?: (obj: any) => string;
  /**
   * The resourceVersion a projection keeps, when it keeps one: the informer then holds no version map of its own
   * (a relist compares versions to skip objects that did not change).
   */
  versionOf?: (obj: T) => string | undefined;
  /** LIST page size (limit/continue) of the paged list. Default 500. */
  pageSize?: number;
  /**
   * Streaming initial lists (WatchList, docs/kubernetes.md): list by a watch with `sendInitialEvents=true`, falling
   * back to the paged LIST for good when the server refuses it or sends no initial-events-end bookmark. Default true.
   */
  watchList?: boolean;
  /**
   * How long a WatchList may go without an event before its initial-events-end bookmark while its initial events
   * are still due: past it the server is taken not to support WatchList. Measured on `now`. Default 30 s.
   */
  initialEventsTimeoutMs?: number;
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
   * The first page of a paged list asks `resourceVersion=0` (any version the API server's watch cache holds, no etcd
   * read), and a relist after a failed watch asks for at least the last version seen; a relist after 410 reads the
   * latest (`resourceVersion` unset). Default true.
   */
  listFromWatchCache?: boolean;
  logger?: JsonLogger;
  name?: string;
  /** LIST/WATCH requests are counted in `nodes_manager_kube_requests_total` (and failures in `…_kube_api_errors_total`). */
  metrics?: { metrics: Metrics; service: string };
  /**
   * Time source for back-off, staleness, the initial-events wait and durations, in milliseconds (default
   * `performance.now`, monotonic: only differences are used); random source for jitter (default Math.random).
   */
  now?: () => number;
  random?: () => number;
}

/** SyncedInfo — after every complete (re)list: `full` is always true (the cache was reconciled against a whole list). */
export interface SyncedInfo {
  full: boolean;
  reason: 'initial' | 'gone' | 'error';
  /** How the list was read: a WatchList's initial events, or LIST pages. */
  via: 'watch-list' | 'list';
  added: number;
  updated: number;
  deleted: number;
  durationMs: number;
}

export interface InformerStats {
  /** Complete lists (every page, or every initial event) applied to the cache. */
  lists: number;
  /** LIST requests (pages) made. */
  pages: number;
  /** WATCH requests opened, WatchLists included. */
  watches: number;
  /** WatchList requests opened (watches with `sendInitialEvents=true`). */
  watchLists: number;
  /** Times the server did not support WatchList and the paged LIST took over. */
  watchListFallbacks: number;
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
  /** Bytes of LIST and WATCH response bodies received. */
  bytes: number;
}

/** InformerHealth — readiness of one informer, with the reason in words. */
export interface InformerHealth {
  ok: boolean;
  detail: string;
}

export class GoneError extends Error {}

export class HttpError extends Error {
  constructor(
    readonly statusCode: number | string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A watch ends cleanly (server timeout, or we ended it), with 410, with a failure, or — a WatchList only — as
 * unsupported by the server (it refused the parameters, or sent no initial-events-end bookmark in time). `listed`:
 * a WatchList's initial events were complete (the list was applied) before it ended.
 */
export type WatchEnd =
  | { kind: 'clean'; delivered: number; listed: boolean }
  | { kind: 'gone'; listed: boolean }
  | { kind: 'failed'; err: Error; listed: boolean }
  | { kind: 'unsupported'; why: string };

/** informersHealth — ok when every informer is; the detail names the ones that are not (or all, when all are). */
export function informersHealth(informers: readonly { health(): InformerHealth }[]): InformerHealth {
  const all = informers.map((i) => i.health());
  const bad = all.filter((h) => !h.ok);
  return bad.length ? { ok: false, detail: bad.map((h) => h.detail).join('; ') } : { ok: true, detail: all.map((h) => h.detail).join('; ') };
}

/** KubeWatchOptions — the informer options every watching service takes from its configuration. */
export type KubeWatchOptions = Pick<InformerOptions<unknown>, 'requestTimeoutMs' | 'staleAfterMs' | 'watchList'>;

/** kubeWatchOptions — KUBE_REQUEST_TIMEOUT_SECONDS, KUBE_API_STALE_SECONDS and KUBE_WATCH_LIST as informer options. */
export function kubeWatchOptions(config: { KUBE_REQUEST_TIMEOUT_SECONDS: number; KUBE_API_STALE_SECONDS: number; KUBE_WATCH_LIST?: boolean }): KubeWatchOptions {
  return {
    requestTimeoutMs: config.KUBE_REQUEST_TIMEOUT_SECONDS * 1000,
    staleAfterMs: config.KUBE_API_STALE_SECONDS * 1000,
    ...(config.KUBE_WATCH_LIST !== undefined ? { watchList: config.KUBE_WATCH_LIST } : {}),
  };
}
