/**
 * Interner — one copy of values that many cached objects repeat (a node's name on each of its pods, a zone, a label
 * set shared by a workload's replicas, a request shape): a projection asks for the shared copy, so a cache of a
 * million pods holds each repeated value once. Shared values must never be mutated. Bounded: past `max` entries it
 * starts over (what the cache already references stays; new objects get new shared copies).
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly values = new Map<string, unknown>();

  constructor(private readonly max = 500_000) {}

  /** string — the shared copy of `s`. */
  string(s: string): string {
    const have = this.strings.get(s);
    if (have !== undefined) return have;
    if (this.strings.size >= this.max) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }

  /** shared — the value already made for `key`, or `make()`'s, kept for the next caller with the same key. */
  shared<V>(key: string, make: () => V): V {
    const have = this.values.get(key);
    if (have !== undefined) return have as V;
    if (this.values.size >= this.max) this.values.clear();
    const v = make();
    this.values.set(key, v);
    return v;
  }

  /** record — a string record (labels, selectors) as one shared object per distinct content, with shared values. */
  record(r: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> {
    if (!r) return EMPTY;
    const keys = Object.keys(r);
    if (keys.length === 0) return EMPTY;
    let key = '';
    for (const k of keys) key += `${k}\u0000${r[k]}\u0001`;
    return this.shared(key, () => {
      const out: Record<string, string> = {};
      for (const k of keys) out[k] = this.string(r[k]!);
      return out;
    });
  }
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});
