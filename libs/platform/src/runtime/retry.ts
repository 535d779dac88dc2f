import type { Clock } from '../clock/clock.js';
import { backoffDelay, type BackoffPolicy } from './work-queue.js';

export interface RetryOptions {
  /** How many tries in all (≥ 1); the last one's error is thrown. */
  readonly attempts: number;
  /** The wait after the n-th failure: the runtime's back-off (docs/runtime.md#back-off), on this policy. */
  readonly backoff: BackoffPolicy;
  /** Stops waiting (and trying) when aborted: the last error is thrown at once. */
  readonly signal?: AbortSignal;
  /** The jitter's source of randomness (tests pass a fixed one). */
  readonly random?: () => number;
}

/**
 * retryOnClock — runs `fn` until it succeeds, at most `attempts` times, waiting on the Clock between tries the
 * runtime's capped, jittered back-off (docs/runtime.md#retrying-inside-a-request). For work a caller waits for and
 * that has no key to requeue — the record of a change already made, inside a command — where a controller's
 * `requeueAfterMs` cannot answer the caller. A loop never uses it: its reconcile throws and the runtime backs off.
 */
export async function retryOnClock<T>(clock: Clock, fn: (attempt: number) => Promise<T>, o: RetryOptions): Promise<T> {
  const random = o.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= o.attempts || o.signal?.aborted) throw err;
      await clock.sleep(backoffDelay(o.backoff, attempt, random()), o.signal);
      if (o.signal?.aborted) throw err;
    }
  }
}
