import { describe, expect, it } from '@jest/globals';
import { backoffDelay, KeyBackoff, WorkQueue } from './work-queue.js';

/** drain — hands out every queued key, marking each done at once. */
const drain = (q: WorkQueue): string[] => {
  const out: string[] = [];
  for (let k = q.get(); k !== undefined; k = q.get()) {
    out.push(k);
    q.done(k);
  }
  return out;
};

describe('WorkQueue', () => {
  it('hands out a key added many times once, in the order keys were first added', () => {
    const q = new WorkQueue();
    for (const k of ['b', 'a', 'b', 'c', 'a']) q.add(k);
    expect(q.length).toBe(3);
    expect(drain(q)).toEqual(['b', 'a', 'c']);
  });

  it('never hands out a key being processed; added meanwhile, it comes back once, after done', () => {
    const q = new WorkQueue();
    q.add('n-1');
    expect(q.get()).toBe('n-1');
    expect(q.add('n-1')).toBe(true);
    expect(q.add('n-1')).toBe(false);
    q.add('n-2');
    expect(q.get()).toBe('n-2');
    expect(q.get()).toBeUndefined();
    q.done('n-2');
    q.done('n-1');
    expect(drain(q)).toEqual(['n-1']);
  });

  it('clear drops queued keys and any "once more" of keys in process', () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    expect(q.get()).toBe('a');
    q.add('a');
    q.clear();
    q.done('a');
    expect({ length: q.length, inProcess: q.inProcess, next: q.get() }).toEqual({ length: 0, inProcess: 0, next: undefined });
  });
});

describe('back-off', () => {
  const policy = { baseMs: 1_000, maxMs: 60_000 };
  it.each([
    { failures: 1, u: 0, ms: 500 },
    { failures: 1, u: 0.999999, ms: 1_000 },
    { failures: 2, u: 0.5, ms: 1_500 },
    { failures: 3, u: 0, ms: 2_000 },
    { failures: 7, u: 0, ms: 30_000 },
    { failures: 8, u: 0, ms: 30_000 },
    { failures: 8, u: 0.999999, ms: 60_000 },
    { failures: 80, u: 0.5, ms: 45_000 },
  ])('the $failures. consecutive failure waits $ms ms for a draw of $u (doubling from 1 s, capped at 60 s, jittered in the upper half)', ({ failures, u, ms }) => {
    expect(backoffDelay(policy, failures, u)).toBe(ms);
  });

  it('counts failures per key and forgets a key on success', () => {
    const b = new KeyBackoff(policy, () => 0);
    expect([b.next('a'), b.next('a'), b.next('b'), b.next('a')]).toEqual([500, 1_000, 500, 2_000]);
    expect(b.retries('a')).toBe(3);
    b.forget('a');
    expect([b.retries('a'), b.next('a'), b.retries('b')]).toEqual([0, 500, 1]);
  });
});
