// A stateful async cache in front of EC2 (TTL, one refresh in flight per key, stale data served after a failed
// refresh) — I/O-side state, so it lives with the adapters, not in domain/.
import type { Clock } from '@nodes-manager/platform';

export interface PriceCacheOptions {
  /** How long fetched data is served without refetching. Default 5 minutes. */
  readonly ttlMs?: number;
  /**
   * After a failed refresh, serve the stale data this long before trying EC2 again, so that a throttled API is
   * not hit by every request. Default 30 s; 0 retries on every request.
   */
  readonly retryAfterErrorMs?: number;
}

export const DEFAULT_PRICE_CACHE_TTL_MS = 5 * 60_000;
export const DEFAULT_RETRY_AFTER_ERROR_MS = 30_000;

/** CachedValue — what the cache serves: the data, when it was fetched, and whether it is past its TTL. */
export interface CachedValue<T> {
  readonly data: T;
  readonly fetchedAt: Date;
  readonly ageMs: number;
  /** True when a refresh failed and this is the last good data. */
  readonly stale: boolean;
  /** The refresh failure behind `stale: true`. */
  readonly refreshError?: { readonly code?: string; readonly message: string };
}

interface Entry<T> {
  readonly data: T;
  readonly fetchedAt: number;
  lastError?: { at: number; code?: string; message: string };
}

/**
 * PriceCache — per-key (region) cache in front of a slow, rate-limited fetch (EC2), with:
 * - TTL: data younger than `ttlMs` is served without a fetch;
 * - single flight: concurrent requests for a key that needs fetching share one fetch;
 * - stale-while-error: when a refresh fails and there is earlier data, that data is served with `stale: true`,
 *   its age and the error, and the fetch is not retried for `retryAfterErrorMs`. With no earlier data the error
 *   is thrown (there is nothing honest to serve).
 * Time comes from the injected clock only.
 */
export class PriceCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly inflight = new Map<string, Promise<CachedValue<T>>>();
  private readonly ttlMs: number;
  private readonly retryAfterErrorMs: number;

  constructor(
    private readonly fetcher: (key: string) => Promise<T>,
    private readonly clock: Clock,
    opts: PriceCacheOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_PRICE_CACHE_TTL_MS;
    this.retryAfterErrorMs = opts.retryAfterErrorMs ?? DEFAULT_RETRY_AFTER_ERROR_MS;
    if (!(this.ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${this.ttlMs}`);
    if (!(this.retryAfterErrorMs >= 0)) throw new RangeError(`retryAfterErrorMs must be ≥ 0, got ${this.retryAfterErrorMs}`);
  }

  get(key: string): Promise<CachedValue<T>> {
    const now = this.clock.now().getTime();
    const entry = this.entries.get(key);
    if (entry && now - entry.fetchedAt < this.ttlMs) return Promise.resolve(this.view(entry, now));
    if (entry?.lastError && now - entry.lastError.at < this.retryAfterErrorMs) return Promise.resolve(this.view(entry, now));
    return this.refresh(key);
  }

  /** peek — what `get` would serve from memory, without fetching; undefined when nothing was ever fetched. */
  peek(key: string): CachedValue<T> | undefined {
    const entry = this.entries.get(key);
    return entry && this.view(entry, this.clock.now().getTime());
  }

  /** invalidate — forget one key (or all), so that the next `get` fetches. */
  invalidate(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }

  private refresh(key: string): Promise<CachedValue<T>> {
    const running = this.inflight.get(key);
    if (running) return running;
    const p = (async () => {
      try {
        const data = await this.fetcher(key);
        const entry: Entry<T> = { data, fetchedAt: this.clock.now().getTime() };
        this.entries.set(key, entry);
        return this.view(entry, entry.fetchedAt);
      } catch (e) {
        const previous = this.entries.get(key);
        if (!previous) throw e;
        const code = (e as { code?: unknown }).code;
        previous.lastError = {
          at: this.clock.now().getTime(),
          ...(typeof code === 'string' ? { code } : {}),
          message: e instanceof Error ? e.message : String(e),
        };
        return this.view(previous, this.clock.now().getTime());
      } finally {
        this.inflight.delete(key);
      }
    })();
    this.inflight.set(key, p);
    return p;
  }

  private view(entry: Entry<T>, now: number): CachedValue<T> {
    const stale = entry.lastError !== undefined;
    return {
      data: entry.data,
      fetchedAt: new Date(entry.fetchedAt),
      ageMs: now - entry.fetchedAt,
      stale,
      ...(stale ? { refreshError: { ...(entry.lastError!.code ? { code: entry.lastError!.code } : {}), message: entry.lastError!.message } } : {}),
    };
  }
}
