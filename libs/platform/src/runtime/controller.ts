import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../clock/clock.js';
import type { Metrics } from '../health/metrics.js';
import type { JsonLogger } from '../logging/logger.js';
import { DEFAULT_BACKOFF, KeyBackoff, WorkQueue, type BackoffPolicy } from './work-queue.js';
import { KeyTraces } from './key-traces.js';
import { ROOT_CONTEXT, tracingOn, withContext } from '../tracing/tracing.js';
import { UNFENCED, withFence, type WriteFence } from '../leader/write-fence.js';

/**
 * ReconcileResult — what one reconcile of a key answers. `requeueAfterMs`: look at this key again then ("not yet" —
 * a grace period, a poll, a PDB retry), never a sleep. A reconcile that throws is retried with back-off instead.
 */
export interface ReconcileResult {
  readonly requeueAfterMs?: number;
}

/** ReconcileContext — what a reconcile knows besides its key. */
export interface ReconcileContext {
  readonly key: string;
  /**
   * Aborted when the controller stops or this process stops leading: the reconcile stops at its next safe point
   * (before a write, before another API call). Leadership is still checked on the server before each write.
   */
  readonly signal: AbortSignal;
  /** This key's consecutive failures before this attempt (0 on a first try or after a success). */
  readonly retries: number;
  /**
   * A new id each time this process becomes leader (or starts, without a leader gate): a row last moved on under
   * another term is being resumed after a restart or a failover. Under a {@link LeaderElector} it is the lock's term
   * (a number, rising with each new leader).
   */
  readonly term: string;
  /**
   * The fence every write of this reconcile carries (`fenced(ds, table, fn)`, which takes it from the reconcile's
   * async context): refused once another process took the leader's lock, so a reconcile still in flight in a deposed
   * leader cannot overwrite its successor's rows (docs/leader-election.md#terms). `UNFENCED` without a leader gate.
   */
  readonly fence: WriteFence;
}

/** LeaderGate — who may reconcile: a {@link LeaderElector} fits. */
export interface LeaderGate {
  readonly isLeader: boolean;
  onChange(listener: (leader: boolean) => void): void;
  /** The fence of the current term (a {@link LeaderElector}'s); absent: the writes are not fenced. */
  fence?(): WriteFence;
}

export interface ControllerOptions<R extends ReconcileResult = ReconcileResult> {
  /** The controller's name: its metrics' `controller` label and its log lines' `controller` field. */
  readonly name: string;
  /** The service it runs in: its metrics' `service` label. */
  readonly service: string;
  readonly clock: Clock;
  /** reconcile — brings one key's world to what it should be; idempotent, resumable from what it reads. */
  readonly reconcile: (key: string, ctx: ReconcileContext) => Promise<R | void>;
  /**
   * listKeys — the keys that may need work: every one on becoming leader (`start`), and every `resyncMs` while
   * leading (`resync`: a source may list fewer then, e.g. only what another replica recorded since).
   */
  readonly listKeys?: (why: 'start' | 'resync') => Promise<Iterable<string>> | Iterable<string>;
  /**
   * ready — what every listing and every reconcile waits for (controller-runtime's WaitForCacheSync): the caches its
   * reconciles read have synced, so no pass decides on an empty view and then waits for a timer, and a reconcile
   * never checks the sync itself. Asked once per term (a rejection is asked again next time); waited for as part of
   * the listing (`settled` waits too) and of the reconcile: a rejection counts as a failed listing or a failed
   * reconcile, tried again with back-off.
   */
  readonly ready?: () => Promise<void>;
  /** Absent: the controller reconciles in every replica. */
  readonly leader?: LeaderGate;
  /** How many keys reconcile at once (never one key twice). Default 1. */
  readonly concurrency?: number;
  /** How often the keys are listed again while leading; absent: only on becoming leader. */
  readonly resyncMs?: number;
  /** Requeues sooner than this are rounded up: a bound on reconciles of a key per second, whatever it answers. */
  readonly minRequeueMs?: number;
  readonly backoff?: Partial<BackoffPolicy>;
  /** How long `stop` waits for reconciles in flight (real time: it guards the process's termination grace). */
  readonly stopTimeoutMs?: number;
  readonly metrics?: Metrics;
  readonly logger?: JsonLogger;
  /** The jitter's source of randomness (tests pass a fixed one). */
  readonly random?: () => number;
}

/** Outcome — what became of one request for a key: reconciled (with its result or error), or dropped. */
interface Outcome<R> {
  readonly reconciled: boolean;
  readonly result?: R;
  readonly error?: unknown;
}

const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
export const DEFAULT_STOP_TIMEOUT_MS = 10_000;

/**
 * Controller — one keyed reconcile loop (docs/runtime.md), on the model of controller-runtime over client-go's work
 * queue:
 *
 * - keys come from informer events (`enqueue`), from other keys' reconciles, from timers (`enqueueAfter`, a
 *   reconcile's `requeueAfterMs`, back-off) and from `listKeys` on becoming leader and every `resyncMs`;
 * - the queue de-duplicates: a key waiting is queued once; a key added while it reconciles reconciles once more
 *   right after, never concurrently with itself ({@link WorkQueue});
 * - at most `concurrency` keys reconcile at once;
 * - a reconcile that throws is retried after a capped, jittered, per-key exponential back-off, forgotten on success;
 * - leader-gated: not the leader, nothing reconciles and nothing is queued; becoming leader lists the keys;
 * - `stop` takes no new key, aborts the context of reconciles in flight and waits for them, bounded;
 * - metrics per controller: queue depth, reconcile duration by result, retries, errors.
 */
export class Controller<R extends ReconcileResult = ReconcileResult> {
  private readonly queue = new WorkQueue();
  private readonly traces = new KeyTraces();
  private readonly backoff: KeyBackoff;
  private readonly concurrency: number;
  private readonly delayed = new Map<string, { at: number; timer: TimerHandle }>();
  private readonly waiting = new Map<string, ((o: Outcome<R>) => void)[]>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** When each reconcile in flight started (real time: `performance.now()`), for the longest-running gauge. */
  private readonly startedAt = new Map<string, number>();
  /** When each queued key was first added since its last turn (real time), for the queue latency. */
  private readonly addedAt = new Map<string, number>();
  /** Reconciles started and not ended (counted before a reconcile's first line runs, so a nested enqueue sees it). */
  private running = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private started = false;
  private stopping = false;
  private active = false;
  private term = '';
  private fence: WriteFence = UNFENCED;
  private abort = new AbortController();
  private resync?: TimerHandle;
  private listFailures = 0;
  /** This term's wait for `ready` (one per term; dropped when it rejects, so the next asks again). */
  private readyWait?: { term: string; done: Promise<void> };
  /** Listings of the keys under way: their keys are not queued yet, but `settled` waits for them. */
  private listing = 0;
  private readonly labels: { service: string; controller: string };
  private readonly m?: {
    depth: { set(labels: Record<string, string>, v: number): void };
    duration: { observe(labels: Record<string, string>, v: number): void };
    retries: { inc(labels: Record<string, string>): void };
    errors: { inc(labels: Record<string, string>): void };
    latency: { observe(labels: Record<string, string>, v: number): void };
  };

  constructor(private readonly opts: ControllerOptions<R>) {
    this.concurrency = Math.max(1, opts.concurrency ?? 1);
    this.backoff = new KeyBackoff({ ...DEFAULT_BACKOFF, ...opts.backoff }, opts.random);
    this.labels = { service: opts.service, controller: opts.name };
    if (opts.metrics) {
      const labels = ['controller'];
      this.m = {
        depth: opts.metrics.gauge('nodes_manager_controller_queue_depth', 'Keys waiting in a controller\'s queue', labels),
        duration: opts.metrics.histogram('nodes_manager_controller_reconcile_duration_seconds', 'Time one reconcile of a key took, by result', [...labels, 'result'], DURATION_BUCKETS),
        retries: opts.metrics.counter('nodes_manager_controller_retries_total', 'Keys requeued with back-off after a failed reconcile', labels),
        errors: opts.metrics.counter('nodes_manager_controller_errors_total', 'Reconciles that failed (threw)', labels),
        latency: opts.metrics.histogram('nodes_manager_controller_queue_latency_seconds', 'Time a key waited in a controller\'s queue before a worker took it', labels, LATENCY_BUCKETS),
      };
      // At scrape time: how long the oldest reconcile in flight has been running (0 when none). A reconcile stuck on
      // a call that never answers shows here growing, while its duration histogram, observed at the end, shows nothing.
      opts.metrics.collectedGauge('nodes_manager_controller_longest_running_reconcile_seconds', 'How long the longest-running reconcile in flight has been running', labels, (g) => {
        g.set(this.labels, this.longestRunningSeconds());
      });
      this.m.depth.set(this.labels, 0);
    }
  }

  get name(): string {
    return this.opts.name;
  }

  /** active — this process reconciles now: started, not stopping, and the leader (or not leader-gated). */
  get isActive(): boolean {
    return this.active;
  }

  /** depth — keys waiting in the queue (delayed ones aside). */
  get depth(): number {
    return this.queue.length;
  }

  /** start — follows the leader gate: becoming leader lists the keys; until then nothing is queued. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.opts.leader?.onChange((leader) => (leader ? this.activate() : this.deactivate()));
    if (!this.opts.leader || this.opts.leader.isLeader) this.activate();
  }

  /** enqueue — reconcile this key soon (once, however often it is asked before its turn). */
  enqueue(key: string): void {
    void this.add(key);
  }

  /**
   * enqueueAfter — reconcile this key `ms` from now, on the Clock. A key already due sooner keeps its sooner time;
   * one due later is brought forward.
   */
  enqueueAfter(key: string, ms: number): void {
    if (!this.active) return;
    if (ms <= 0) return this.enqueue(key);
    const at = this.opts.clock.now().getTime() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.at <= at) return;
    existing?.timer.cancel();
    const timer = this.opts.clock.setTimer(ms, () => {
      if (this.delayed.get(key)?.timer === timer) this.delayed.delete(key);
      return this.add(key);
    });
    this.delayed.set(key, { at, timer });
  }

  /**
   * request — enqueue the key and wait for a reconcile of it that started after this call: its result, or its error
   * thrown; undefined when this process does not reconcile (not the leader, stopping). For commands and tests.
   */
  async request(key: string): Promise<R | undefined> {
    const o = await this.add(key);
    if (o.error !== undefined) throw o.error;
    return o.result;
  }

  /** settled — resolves once nothing is being listed, queued or reconciled (timers for later aside). */
  async settled(): Promise<void> {
    while (!this.idle()) await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /**
   * stop — no new key; timers cancelled; reconciles in flight see their signal aborted and are awaited, at most
   * `stopTimeoutMs` (then left to finish on their own, logged).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.deactivate();
    const running = [...this.inFlight.values()];
    if (running.length === 0) return;
    let bound: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((r) => {
      bound = setTimeout(() => r(true), this.opts.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS);
      bound.unref();
    });
    const late = await Promise.race([Promise.allSettled(running).then(() => false), timedOut]);
    clearTimeout(bound);
    if (late) this.opts.logger?.warn('reconciles still running at stop', { ...this.labels, keys: [...this.inFlight.keys()] });
  }

  private activate(): void {
    if (this.active || this.stopping || !this.started) return;
    this.active = true;
    this.fence = this.opts.leader?.fence?.() ?? UNFENCED;
    this.term = this.fence.term || randomUUID();
    this.abort = new AbortController();
    this.listFailures = 0;
    void this.relist('start');
  }

  private deactivate(): void {
    if (!this.active) return;
    this.active = false;
    this.abort.abort();
    this.resync?.cancel();
    this.resync = undefined;
    for (const { timer } of this.delayed.values()) timer.cancel();
    this.delayed.clear();
    this.queue.clear();
    this.addedAt.clear();
    this.backoff.clear();
    this.traces.clear();
    const dropped = [...this.waiting.values()].flat();
    this.waiting.clear();
    for (const w of dropped) w({ reconciled: false });
    this.gauge();
    this.wakeIdle();
  }

  /** relist — enqueue every key of the source, then arm the next resync; the work it set off is its promise. */
  private async relist(why: 'start' | 'resync'): Promise<void> {
    const { listKeys, resyncMs } = this.opts;
    const term = this.term;
    this.resync?.cancel();
    this.resync = undefined;
    let requests: Promise<Outcome<R>>[] = [];
    if (listKeys) {
      let keys: Iterable<string>;
      this.listing++;
      try {
        await this.whenReady();
        keys = [...(await listKeys(why))];
        this.listFailures = 0;
      } catch (err) {
        if (!this.active || this.term !== term) return;
        const delay = Math.min(resyncMs ?? Number.POSITIVE_INFINITY, DEFAULT_BACKOFF.baseMs * 2 ** Math.min(this.listFailures++, 8));
        this.opts.logger?.warn('listing keys failed; listed again later', { ...this.labels, err: (err as Error).message, retryInMs: delay });
        this.resync = this.opts.clock.setTimer(delay, () => this.relist(why));
        return;
      } finally {
        this.listing--;
        this.wakeIdle();
      }
      requests = [...keys].map((k) => this.add(k));
    }
    if (!this.active || this.term !== term) return;
    if (resyncMs) this.resync = this.opts.clock.setTimer(resyncMs, () => this.relist('resync'));
    await Promise.all(requests);
  }

  /** whenReady — this term's wait for `ready` (resolved at once without one). */
  private whenReady(): Promise<void> {
    if (!this.opts.ready) return Promise.resolve();
    if (this.readyWait?.term === this.term) return this.readyWait.done;
    const wait = { term: this.term, done: this.opts.ready() };
    wait.done.catch(() => {
      if (this.readyWait === wait) this.readyWait = undefined;
    });
    this.readyWait = wait;
    return wait.done;
  }

  private add(key: string): Promise<Outcome<R>> {
    if (!this.active) return Promise.resolve({ reconciled: false });
    const outcome = new Promise<Outcome<R>>((resolve) => {
      const list = this.waiting.get(key) ?? [];
      list.push(resolve);
      this.waiting.set(key, list);
    });
    this.traces.add(key);
    if (!this.addedAt.has(key)) this.addedAt.set(key, performance.now());
    this.queue.add(key);
    this.pump();
    return outcome;
  }

  private pump(): void {
    while (this.active && this.running < this.concurrency) {
      const key = this.queue.get();
      if (key === undefined) break;
      const waiters = this.waiting.get(key) ?? [];
      this.waiting.delete(key);
      const added = this.addedAt.get(key);
      this.addedAt.delete(key);
      const now = performance.now();
      if (added !== undefined) this.m?.latency.observe(this.labels, (now - added) / 1000);
      this.startedAt.set(key, now);
      this.running++;
      // With tracing on, a reconcile starts from no trace whoever pumped it: only its key's own (KeyTraces) applies.
      this.inFlight.set(key, tracingOn() ? withContext(ROOT_CONTEXT, () => this.process(key, waiters)) : this.process(key, waiters));
    }
    this.gauge();
    this.wakeIdle();
  }

  private async process(key: string, waiters: ((o: Outcome<R>) => void)[]): Promise<void> {
    const term = this.term;
    const ctx: ReconcileContext = { key, signal: this.abort.signal, retries: this.backoff.retries(key), term, fence: this.fence };
    const started = performance.now();
    let outcome: Outcome<R>;
    try {
      await this.whenReady();
      const result = (await this.traces.run(key, this.labels.controller, ctx, () => withFence(ctx.fence, () => this.opts.reconcile(key, ctx)))) ?? undefined;
      outcome = { reconciled: true, ...(result !== undefined ? { result } : {}) };
      const requeue = result?.requeueAfterMs;
      this.m?.duration.observe({ ...this.labels, result: requeue !== undefined ? 'requeue' : 'success' }, (performance.now() - started) / 1000);
      if (this.active && this.term === term) {
        this.backoff.forget(key);
        if (requeue !== undefined) this.enqueueAfter(key, Math.max(this.opts.minRequeueMs ?? 0, requeue));
        else this.traces.finished(key);
      }
    } catch (error) {
      outcome = { reconciled: true, error };
      this.m?.duration.observe({ ...this.labels, result: 'error' }, (performance.now() - started) / 1000);
      this.m?.errors.inc(this.labels);
      if (this.active && this.term === term) {
        const delay = this.backoff.next(key);
        this.m?.retries.inc(this.labels);
        this.opts.logger?.warn('reconcile failed; retried with back-off', { ...this.labels, key, retries: ctx.retries + 1, retryInMs: delay, err: (error as Error)?.message ?? String(error) });
        this.enqueueAfter(key, delay);
      }
    }
    this.queue.done(key);
    this.inFlight.delete(key);
    this.startedAt.delete(key);
    this.running--;
    for (const w of waiters) w(outcome);
    this.pump();
  }

  /** longestRunningSeconds — how long the oldest reconcile in flight has been running; 0 when none is. */
  longestRunningSeconds(): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const at of this.startedAt.values()) oldest = Math.min(oldest, at);
    return oldest === Number.POSITIVE_INFINITY ? 0 : (performance.now() - oldest) / 1000;
  }

  private gauge(): void {
    this.m?.depth.set(this.labels, this.queue.length);
  }

  private idle(): boolean {
    return this.listing === 0 && this.queue.length === 0 && this.running === 0;
  }

  private wakeIdle(): void {
    if (!this.idle()) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
