/**
 * CycleRunner — the one way a loop runs its cycles (docs/design.md#cycles): cycles never overlap in a process, and a
 * request that arrives while a cycle runs is not lost — it makes exactly one more cycle run right after the current
 * one. Requests during the same cycle coalesce into that one more cycle, which gets the argument of the first of
 * them. `request` resolves with the result of the last cycle of the run it joined, so a caller's wait always covers
 * a cycle that started after its request; a cycle that throws ends the run and rejects its callers.
 */
export class CycleRunner<T, A = void> {
  private running?: Promise<T>;
  private pending?: { readonly arg: A };

  constructor(private readonly cycle: (arg: A) => Promise<T>) {}

  /** busy — a cycle is running (or about to run again). */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** request — run a cycle now, or once more right after the one in progress. */
  request(arg: A): Promise<T> {
    if (this.running) {
      this.pending ??= { arg };
      return this.running;
    }
    this.running = (async () => {
      try {
        let next: { readonly arg: A } | undefined = { arg };
        let result: T;
        do {
          this.pending = undefined;
          result = await this.cycle(next.arg);
          next = this.pending;
        } while (next);
        return result;
      } finally {
        this.running = undefined;
        this.pending = undefined;
      }
    })();
    return this.running;
  }

  /** idle — resolves once no cycle runs (never rejects); for shutdown. */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }
}
