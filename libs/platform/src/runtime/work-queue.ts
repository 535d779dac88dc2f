/**
 * WorkQueue — the keyed, de-duplicating queue under every controller (docs/runtime.md#the-queue). A key is in it at
 * most once however often it is added; a key being processed is never handed out again until `done`, and a key added
 * while it is processed is handed out once more right after (the "dirty while processing" policy):
 *
 * - `queue` — keys ready to be handed out, first added first;
 * - `dirty` — keys that need processing (queued, or to be queued again when their processing is done);
 * - `processing` — keys handed out and not yet `done`.
 *
 * Pure bookkeeping, no timers: delays and back-off belong to the controller, on the Clock.
 */
export class WorkQueue {
  private readonly queue = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();

  /** add — marks the key as needing work; false when it already did (nothing changes). */
  add(key: string): boolean {
    if (this.dirty.has(key)) return false;
    this.dirty.add(key);
    if (!this.processing.has(key)) this.queue.add(key);
    return true;
  }

  /** get — hands out the first queued key and marks it processing; undefined when none is queued. */
  get(): string | undefined {
    const next = this.queue.values().next();
    if (next.done) return undefined;
    const key = next.value;
    this.queue.delete(key);
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  /** done — the key's processing ended; if it was added meanwhile it is queued again (at the end). */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.queue.add(key);
  }

  /** clear — forgets every queued key and every pending "once more"; keys being processed stay processing. */
  clear(): void {
    this.queue.clear();
    this.dirty.clear();
  }

  /** length — keys waiting to be handed out. */
  get length(): number {
    return this.queue.size;
  }

  /** inProcess — keys handed out and not yet done. */
  get inProcess(): number {
    return this.processing.size;
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }
}

/** BackoffPolicy — per-key exponential back-off after failures: base × 2^(failures − 1), capped, jittered. */
export interface BackoffPolicy {
  /** The first retry's delay (before jitter). */
  readonly baseMs: number;
  /** No retry waits longer than this. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 300_000 };

/**
 * KeyBackoff — how long a failing key waits before its next attempt: the n-th consecutive failure waits
 * min(max, base × 2^(n−1)), drawn uniformly from its upper half ("equal jitter": never less than half, so a burst
 * of failures spreads out without any retry coming early). `forget` on success starts the key afresh.
 */
export class KeyBackoff {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly policy: BackoffPolicy = DEFAULT_BACKOFF,
    private readonly random: () => number = Math.random,
  ) {}

  /** next — counts one more failure of the key and returns how long it waits. */
  next(key: string): number {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    return backoffDelay(this.policy, n, this.random());
  }

  /** retries — the key's consecutive failures so far. */
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  clear(): void {
    this.failures.clear();
  }
}

/** backoffDelay — the delay after the n-th consecutive failure (n ≥ 1), for a draw `u` in [0, 1). */
export function backoffDelay(policy: BackoffPolicy, n: number, u: number): number {
  const full = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(n - 1, 52));
  return Math.round(full / 2 + (full / 2) * u);
}
