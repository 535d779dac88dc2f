/**
 * Clock — the only source of "now" and of timers for services and loops (docs/runtime.md#timers-and-the-clock);
 * domain code receives `now` as an argument. Production runs on {@link SystemClock}; tests drive a
 * {@link FakeClock} with `await clock.step(ms)`, which fires every timer that falls due, in time order.
 */
export interface Clock {
  now(): Date;
  /**
   * setTimer — calls `fn` once, `ms` from now (at once for `ms` ≤ 0, but never synchronously); `cancel()` before then
   * and it never runs. `fn` may return the promise of the work it started: a FakeClock waits for it before it fires
   * the next timer. `fn` handles its own errors (a rejection is as unhandled as a throwing `setTimeout` callback).
   */
  setTimer(ms: number, fn: TimerCallback): TimerHandle;
  /** sleep — resolves `ms` from now, or as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export type TimerCallback = () => void | Promise<unknown>;

export interface TimerHandle {
  /** cancel — the timer will not fire; a no-op once it fired. */
  cancel(): void;
}

export const CLOCK = Symbol('CLOCK');

/** The longest delay one Node.js timer holds (2^31 − 1 ms, about 24.8 days); longer waits are chained. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** SystemClock — the wall clock, and real timers that never keep the process alive (`unref`). */
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }

  setTimer(ms: number, fn: TimerCallback): TimerHandle {
    let handle: NodeJS.Timeout | undefined;
    let cancelled = false;
    const arm = (left: number): void => {
      handle = setTimeout(() => {
        if (cancelled) return;
        if (left > MAX_TIMER_MS) return arm(left - MAX_TIMER_MS);
        cancelled = true;
        void fn();
      }, Math.min(Math.max(0, left), MAX_TIMER_MS));
      handle.unref();
    };
    arm(ms);
    return {
      cancel: () => {
        cancelled = true;
        if (handle) clearTimeout(handle);
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

/** sleepOn — `sleep` in terms of `setTimer`, shared by every Clock. */
export function sleepOn(clock: Pick<Clock, 'setTimer'>, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const onAbort = (): void => {
      timer.cancel();
      resolve();
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** FakeClock lives in its own file; it is exported here too, with the Clock it stands in for. */
export { FakeClock } from './fake-clock.js';
