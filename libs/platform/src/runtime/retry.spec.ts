import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock/fake-clock.js';
import { retryOnClock } from './retry.js';

const policy = { baseMs: 200, maxMs: 1_000 };

/** aFlakyCall — fails its first `failures` calls, recording when (ms since the start) each call was made. */
function aFlakyCall(clock: FakeClock, failures: number) {
  const t0 = clock.now().getTime();
  const at: number[] = [];
  const fn = async (attempt: number) => {
    at.push(clock.now().getTime() - t0);
    if (attempt <= failures) throw new Error(`failure ${attempt}`);
    return `ok after ${attempt}`;
  };
  return { fn, at };
}

/** drive — steps the clock a millisecond at a time until the promise settles (or `limitMs` passes). */
async function drive<T>(clock: FakeClock, p: Promise<T>, limitMs = 10_000): Promise<{ value?: T; error?: Error }> {
  let out: { value?: T; error?: Error } | undefined;
  p.then((value) => (out = { value }), (error: Error) => (out = { error }));
  for (let t = 0; t <= limitMs && !out; t++) await clock.step(1);
  return out ?? {};
}

describe('retryOnClock (FakeClock, in milliseconds; no jitter: each wait the upper end of its half)', () => {
  it.each([
    ['succeeds at once: one call, no wait', 0, 5, ['ok after 1'], [0]],
    ['fails twice: waits 200 then 400 ms', 2, 5, ['ok after 3'], [0, 200, 600]],
    ['fails four times: the waits are capped at 1 000 ms', 4, 5, ['ok after 5'], [0, 200, 600, 1400, 2400]],
    ['fails every time: gives up after the last attempt with its error', 9, 3, [undefined, 'failure 3'], [0, 200, 600]],
  ] as const)('%s', async (_, failures, attempts, [value, error], at) => {
    const clock = new FakeClock();
    const call = aFlakyCall(clock, failures);
    const out = await drive(clock, retryOnClock(clock, call.fn, { attempts, backoff: policy, random: () => 0.999999 }));
    expect(out.value).toBe(value);
    expect(out.error?.message).toBe(error);
    expect(call.at.map((t) => Math.round(t / 10) * 10)).toEqual(at);
  });

  it('a wait is never shorter than half its back-off, whatever the jitter draws', async () => {
    const clock = new FakeClock();
    const call = aFlakyCall(clock, 1);
    await drive(clock, retryOnClock(clock, call.fn, { attempts: 2, backoff: policy, random: () => 0 }));
    expect(call.at).toEqual([0, 100]);
  });

  it('stops waiting when its signal aborts, with the last error', async () => {
    const clock = new FakeClock();
    const call = aFlakyCall(clock, 5);
    const ac = new AbortController();
    const p = retryOnClock(clock, call.fn, { attempts: 5, backoff: policy, signal: ac.signal });
    await clock.step(50);
    ac.abort();
    await expect(p).rejects.toThrow('failure 1');
    expect(call.at).toEqual([0]);
  });
});
