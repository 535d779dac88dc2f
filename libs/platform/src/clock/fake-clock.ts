import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock, TimerCallback, TimerHandle } from './clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: TimerCallback;
}

/** Job — the work one fired timer started: the promise its callback returned, and the clock sleeps it waits on. */
interface Job {
  settled: boolean;
  /** Sleeps on this clock the job waits on: a job waiting for time to pass is not busy. */
  parked: number;
}

/** JobContext — the job of `clock` that the running code belongs to, over the jobs of other clocks it runs inside. */
interface JobContext {
  readonly clock: FakeClock;
  readonly job: Job;
  readonly outer: JobContext | undefined;
}

/**
 * The job the running code belongs to, for every FakeClock: one AsyncLocalStorage, not one per clock. Node keeps
 * every AsyncLocalStorage that ever ran in a list it walks at each new promise, so a storage per clock made every
 * promise of a test file slower with each clock the file had made.
 */
const jobContext = new AsyncLocalStorage<JobContext>();

/** jobOf — the job of `clock` the running code belongs to, if any. */
function jobOf(clock: FakeClock): Job | undefined {
  for (let c = jobContext.getStore(); c; c = c.outer) if (c.clock === clock) return c.job;
  return undefined;
}

/**
 * FakeClock — a clock tests move by hand. `await clock.step(ms)` moves time forward by `ms`, firing every timer that
 * falls due on the way, in time order (ties in the order they were set), and after each one lets the work that timer
 * started settle — the promise its callback returned, down to its database and HTTP calls — before it fires the next;
 * work that waits on this clock's `sleep` counts as settled until its sleep fires. So `await clock.step(30_000)`
 * plays out a drain's 2 s polls and 5 s PDB retries, one after the other, deterministically (docs/runtime.md#testing-a-controller).
 *
 * `advance(ms)` moves time and fires the due timers without waiting for their work; `set(at)` moves time and fires
 * nothing. A rejected job fails the next `step`.
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  /** Armed timers, ordered by (at, seq). */
  private timers: Timer[] = [];
  private readonly jobs = new Set<Job>();
  private waiters: (() => void)[] = [];
  private failures: unknown[] = [];

  constructor(start: Date | string = '2026-01-01T00:00:00Z') {
    this.t = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.t);
  }

  setTimer(ms: number, fn: TimerCallback): TimerHandle {
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1]!.at > timer.at) i--;
    this.timers.splice(i, 0, timer);
    return {
      cancel: () => {
        const at = this.timers.indexOf(timer);
        if (at >= 0) this.timers.splice(at, 1);
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    const job = jobOf(this);
    return new Promise<void>((resolve) => {
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        if (job) job.parked--;
        signal?.removeEventListener('abort', onAbort);
        this.wake();
        resolve();
      };
      const onAbort = (): void => {
        timer.cancel();
        finish();
      };
      if (job) job.parked++;
      const timer = this.setTimer(ms, finish);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.wake();
    });
  }

  /** step — moves time forward by `ms`, firing each timer that falls due in order and letting its work settle. */
  async step(ms: number): Promise<void> {
    const target = this.t + Math.max(0, ms);
    await this.settle();
    for (let next = this.takeDue(target); next; next = this.takeDue(target)) {
      this.t = Math.max(this.t, next.at);
      this.fire(next);
      await this.settle();
    }
    this.t = target;
    const failures = this.failures;
    this.failures = [];
    if (failures.length > 0) throw failures[0];
  }

  /** advance — moves time forward by `ms` and fires the due timers in order, without waiting for their work. */
  advance(ms: number): void {
    const target = this.t + Math.max(0, ms);
    for (let next = this.takeDue(target); next; next = this.takeDue(target)) {
      this.t = Math.max(this.t, next.at);
      this.fire(next);
    }
    this.t = target;
  }

  /** set — moves the clock to `at` and fires nothing (a start time; to let time pass, `step`). */
  set(at: Date | string): void {
    this.t = new Date(at).getTime();
  }

  /** pendingTimers — how many timers are armed. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** nextTimerInMs — how long until the next armed timer falls due; undefined when none is armed. */
  get nextTimerInMs(): number | undefined {
    return this.timers[0] ? this.timers[0].at - this.t : undefined;
  }

  /** settle — resolves once every job fired timers started has settled or waits on this clock. */
  async settle(): Promise<void> {
    for (;;) {
      // One turn of the event loop runs every promise job queued so far.
      await new Promise<void>((r) => setImmediate(r));
      if (![...this.jobs].some((j) => !j.settled && j.parked === 0)) return;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  private takeDue(target: number): Timer | undefined {
    const first = this.timers[0];
    if (!first || first.at > target) return undefined;
    this.timers.shift();
    return first;
  }

  private fire(timer: Timer): void {
    const job: Job = { settled: false, parked: 0 };
    const result = jobContext.run({ clock: this, job, outer: jobContext.getStore() }, timer.fn);
    if (!result || typeof (result as Promise<unknown>).then !== 'function') return;
    this.jobs.add(job);
    const end = (): void => {
      job.settled = true;
      this.jobs.delete(job);
      this.wake();
    };
    (result as Promise<unknown>).then(end, (err: unknown) => {
      this.failures.push(err);
      end();
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
