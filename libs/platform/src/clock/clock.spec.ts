import { describe, expect, it } from '@jest/globals';
import { SystemClock } from './clock.js';
import { FakeClock } from './fake-clock.js';

const T0 = '2026-01-01T00:00:00Z';
/** io — a step of work that leaves the promise queue, as a database or HTTP call does. */
const io = () => new Promise<void>((r) => setImmediate(r));
const at = (c: FakeClock) => c.now().getTime() - Date.parse(T0);

describe('FakeClock', () => {
  it.each([
    { when: 'timers set out of order fire in time order', delays: [300, 100, 200], step: 1_000, fired: ['100@100', '200@200', '300@300'] },
    { when: 'timers due at the same instant fire in the order they were set', delays: [100, 100, 50], step: 100, fired: ['50@50', '100@100', '100@100'] },
    { when: 'a timer due after the step does not fire', delays: [100, 1_001], step: 1_000, fired: ['100@100'] },
    { when: 'a timer due exactly at the end of the step fires', delays: [1_000], step: 1_000, fired: ['1000@1000'] },
  ])('$when', async ({ delays, step, fired }) => {
    const clock = new FakeClock(T0);
    const seen: string[] = [];
    for (const d of delays) clock.setTimer(d, () => void seen.push(`${d}@${at(clock)}`));
    await clock.step(step);
    expect(seen).toEqual(fired);
    expect(at(clock)).toBe(step);
  });

  it("lets each fired timer's work settle before it fires the next", async () => {
    const clock = new FakeClock(T0);
    const log: string[] = [];
    clock.setTimer(10, async () => {
      for (let i = 0; i < 5; i++) await io();
      log.push('first done');
    });
    clock.setTimer(20, () => void log.push('second fired'));
    await clock.step(30);
    expect(log).toEqual(['first done', 'second fired']);
  });

  it('fires, within the same step, timers that work set while it ran', async () => {
    const clock = new FakeClock(T0);
    const polls: number[] = [];
    const poll = async () => {
      await io();
      polls.push(at(clock));
      if (polls.length < 4) clock.setTimer(2_000, poll);
    };
    clock.setTimer(2_000, poll);
    await clock.step(7_000);
    expect(polls).toEqual([2_000, 4_000, 6_000]);
    await clock.step(1_000);
    expect(polls).toEqual([2_000, 4_000, 6_000, 8_000]);
  });

  it('resumes work that sleeps on the clock when its sleep falls due, in the same step', async () => {
    const clock = new FakeClock(T0);
    const log: string[] = [];
    clock.setTimer(500, async () => {
      log.push(`slept at ${at(clock)}`);
      await clock.sleep(1_000);
      await io();
      log.push(`woke at ${at(clock)}`);
    });
    await clock.step(2_000);
    expect(log).toEqual(['slept at 500', 'woke at 1500']);
  });

  it('does not wait for work that sleeps past the end of the step; the next step wakes it', async () => {
    const clock = new FakeClock(T0);
    let woke = false;
    clock.setTimer(100, async () => {
      await clock.sleep(10_000);
      woke = true;
    });
    await clock.step(1_000);
    expect(woke).toBe(false);
    await clock.step(9_100);
    expect(woke).toBe(true);
  });

  it('never fires a cancelled timer, and a sleep ends early when its signal aborts', async () => {
    const clock = new FakeClock(T0);
    let fired = false;
    clock.setTimer(100, () => void (fired = true)).cancel();
    const abort = new AbortController();
    let slept = false;
    const sleeping = clock.sleep(60_000, abort.signal).then(() => (slept = true));
    abort.abort();
    await sleeping;
    await clock.step(1_000);
    expect({ fired, slept, pending: clock.pendingTimers }).toEqual({ fired: false, slept: true, pending: 0 });
  });

  it('advance fires the due timers without waiting for their work; set moves time and fires nothing', async () => {
    const clock = new FakeClock(T0);
    const log: string[] = [];
    clock.setTimer(100, async () => {
      await io();
      log.push('work done');
    });
    clock.advance(200);
    expect(log).toEqual([]);
    await clock.settle();
    expect(log).toEqual(['work done']);
    clock.setTimer(100, () => void log.push('not fired'));
    clock.set('2026-01-02T00:00:00Z');
    expect(log).toEqual(['work done']);
    expect(clock.nextTimerInMs).toBeLessThan(0);
  });

  it('fails the step whose timer work failed', async () => {
    const clock = new FakeClock(T0);
    clock.setTimer(10, async () => {
      await io();
      throw new Error('boom');
    });
    await expect(clock.step(20)).rejects.toThrow('boom');
    await expect(clock.step(20)).resolves.toBeUndefined();
  });
});

describe('SystemClock', () => {
  it('fires a timer, never a cancelled one, and wakes a sleep when its signal aborts', async () => {
    const clock = new SystemClock();
    let cancelledFired = false;
    clock.setTimer(1, () => void (cancelledFired = true)).cancel();
    await new Promise<void>((r) => clock.setTimer(5, r));
    expect(cancelledFired).toBe(false);
    const abort = new AbortController();
    const sleeping = clock.sleep(3_600_000, abort.signal);
    abort.abort();
    await expect(sleeping).resolves.toBeUndefined();
  });
});
