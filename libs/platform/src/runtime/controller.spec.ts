import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../clock/fake-clock.js';
import { Metrics } from '../health/metrics.js';
import { lintExposition } from '../testing/metrics-lint.js';
import { Controller, type ControllerOptions, type LeaderGate, type ReconcileContext, type ReconcileResult } from './controller.js';

/** FakeLeader — a leader gate the test flips by hand. */
class FakeLeader implements LeaderGate {
  private readonly listeners: ((l: boolean) => void)[] = [];
  constructor(public isLeader = true) {}
  onChange(fn: (l: boolean) => void): void {
    this.listeners.push(fn);
  }
  set(leader: boolean): void {
    this.isLeader = leader;
    for (const l of this.listeners) l(leader);
  }
}

/** Gate — a reconcile the test ends by hand. */
interface Gate {
  key: string;
  ctx: ReconcileContext;
  end(r?: ReconcileResult): void;
  fail(e: Error): void;
}

/**
 * aController — a controller on a FakeClock whose reconcile records each call. `answer` decides what a reconcile
 * answers (default: success); with `gated`, each reconcile waits for the test to end it.
 */
function aController(o: Partial<ControllerOptions> & { answer?: (key: string, n: number) => ReconcileResult | Error; gated?: boolean } = {}) {
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const calls: { key: string; at: number; retries: number }[] = [];
  const gates: Gate[] = [];
  let running = 0;
  let maxRunning = 0;
  const start = clock.now().getTime();
  const metrics = new Metrics();
  const controller = new Controller({
    name: 'test',
    service: 'uncordon',
    clock,
    metrics,
    random: () => 0,
    reconcile: async (key, ctx) => {
      calls.push({ key, at: clock.now().getTime() - start, retries: ctx.retries });
      running++;
      maxRunning = Math.max(maxRunning, running);
      try {
        if (o.gated) return await new Promise<ReconcileResult | void>((end, fail) => gates.push({ key, ctx, end, fail }));
        await new Promise((r) => setImmediate(r));
        const a = o.answer?.(key, calls.filter((c) => c.key === key).length) ?? {};
        if (a instanceof Error) throw a;
        return a;
      } finally {
        running--;
      }
    },
    ...o,
  });
  const keys = () => calls.map((c) => c.key);
  const tick = () => new Promise((r) => setImmediate(r));
  return { clock, controller, calls, keys, gates, tick, metrics, maxRunning: () => maxRunning };
}

describe('Controller: the queue', () => {
  it('reconciles a key enqueued many times before its turn once', async () => {
    const { controller, keys, gates, tick } = aController({ gated: true });
    controller.start();
    controller.enqueue('a');
    await tick();
    for (const k of ['b', 'b', 'c', 'b', 'c']) controller.enqueue(k);
    expect(controller.depth).toBe(2);
    gates[0]!.end();
    await tick();
    gates[1]!.end();
    await tick();
    gates[2]!.end();
    await controller.settled();
    expect(keys()).toEqual(['a', 'b', 'c']);
  });

  it('a key enqueued while it reconciles reconciles exactly once more, right after, never at the same time', async () => {
    const { controller, keys, gates, tick, maxRunning } = aController({ gated: true, concurrency: 4 });
    controller.start();
    controller.enqueue('n-1');
    await tick();
    controller.enqueue('n-1');
    controller.enqueue('n-1');
    await tick();
    expect(keys()).toEqual(['n-1']);
    gates[0]!.end();
    await tick();
    expect(keys()).toEqual(['n-1', 'n-1']);
    gates[1]!.end();
    await controller.settled();
    expect(keys()).toEqual(['n-1', 'n-1']);
    expect(maxRunning()).toBe(1);
  });

  it('reconciles at most `concurrency` keys at once', async () => {
    const { controller, gates, tick, maxRunning } = aController({ gated: true, concurrency: 2 });
    controller.start();
    for (const k of ['a', 'b', 'c', 'd', 'e']) controller.enqueue(k);
    await tick();
    expect(gates.map((g) => g.key)).toEqual(['a', 'b']);
    gates[1]!.end();
    await tick();
    expect(gates.map((g) => g.key)).toEqual(['a', 'b', 'c']);
    for (let i = 0; i < 5; i++) {
      for (const g of gates) g.end();
      await tick();
    }
    await controller.settled();
    expect(gates.map((g) => g.key)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(maxRunning()).toBe(2);
  });

  it('keys a reconcile enqueues on its own controller wait their turn: concurrency holds', async () => {
    let running = 0;
    let most = 0;
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const controller: Controller = new Controller({
      name: 'nested',
      service: 'uncordon',
      clock,
      concurrency: 1,
      reconcile: async (key) => {
        running++;
        most = Math.max(most, running);
        if (key === 'a') for (const k of ['b', 'c']) controller.enqueue(k);
        await new Promise((r) => setImmediate(r));
        running--;
      },
    });
    controller.start();
    controller.enqueue('a');
    await controller.settled();
    expect(most).toBe(1);
  });

  it('request answers the result of a reconcile that started after it, or throws its error', async () => {
    const { controller } = aController({ answer: (k) => (k === 'bad' ? new Error('API down') : { requeueAfterMs: 5 }) });
    controller.start();
    await expect(controller.request('good')).resolves.toEqual({ requeueAfterMs: 5 });
    await expect(controller.request('bad')).rejects.toThrow('API down');
  });
});

describe('Controller: time', () => {
  it.each([
    { when: 'a requeue is due', answer: { requeueAfterMs: 30_000 }, min: 0, steps: [29_999, 1], at: [0, 30_000] },
    { when: 'a requeue sooner than the floor is rounded up to it', answer: { requeueAfterMs: 10 }, min: 1_000, steps: [999, 1], at: [0, 1_000] },
    { when: 'a requeue of 0 runs right after', answer: { requeueAfterMs: 0 }, min: 0, steps: [0], at: [0, 0] },
  ])('reconciles again when $when', async ({ answer, min, steps, at }) => {
    const { controller, clock, calls } = aController({ minRequeueMs: min, answer: (_k, n) => (n === 1 ? answer : {}) });
    controller.start();
    controller.enqueue('k');
    await controller.settled();
    for (const s of steps) await clock.step(s);
    await controller.settled();
    expect(calls.map((c) => c.at)).toEqual(at);
  });

  it('enqueueAfter keeps the sooner of two times for a key', async () => {
    const { controller, clock, calls } = aController();
    controller.start();
    controller.enqueueAfter('k', 5_000);
    controller.enqueueAfter('k', 2_000);
    controller.enqueueAfter('k', 9_000);
    await clock.step(10_000);
    expect(calls.map((c) => c.at)).toEqual([2_000]);
  });

  it('retries a failing key with doubling, capped back-off, and forgets its failures on success', async () => {
    const { controller, clock, calls, metrics } = aController({
      backoff: { baseMs: 1_000, maxMs: 4_000 },
      answer: (_k, n) => (n <= 4 ? new Error(`failure ${n}`) : {}),
    });
    controller.start();
    controller.enqueue('k');
    await controller.settled();
    await clock.step(60_000);
    // random() = 0: each wait is the lower half of 1 s, 2 s, 4 s, 4 s (capped).
    expect(calls.map((c) => [c.at, c.retries])).toEqual([[0, 0], [500, 1], [1_500, 2], [3_500, 3], [5_500, 4]]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('nodes_manager_controller_retries_total{service="uncordon",controller="test"} 4');
    expect(text).toContain('nodes_manager_controller_errors_total{service="uncordon",controller="test"} 4');
    controller.enqueue('k');
    await controller.settled();
    expect(calls.at(-1)).toMatchObject({ retries: 0 });
  });

  it('lists its keys again every resync interval, saying why it lists them', async () => {
    let keys = ['a'];
    const why: string[] = [];
    const { controller, clock, calls } = aController({ listKeys: (w) => (why.push(w), keys), resyncMs: 60_000 });
    controller.start();
    await controller.settled();
    keys = ['a', 'b'];
    await clock.step(60_000);
    expect(calls.map((c) => `${c.key}@${c.at}`)).toEqual(['a@0', 'a@60000', 'b@60000']);
    expect(why).toEqual(['start', 'resync']);
  });
});

describe('Controller: leadership and stop', () => {
  it('not the leader, it reconciles nothing; becoming leader lists its keys; losing it drops the queue and the timers', async () => {
    const leader = new FakeLeader(false);
    const { controller, clock, keys } = aController({ leader, listKeys: () => ['x', 'y'], answer: () => ({ requeueAfterMs: 1_000 }) });
    controller.start();
    controller.enqueue('z');
    await expect(controller.request('z')).resolves.toBeUndefined();
    await clock.step(5_000);
    expect(keys()).toEqual([]);

    leader.set(true);
    await controller.settled();
    expect(keys()).toEqual(['x', 'y']);
    leader.set(false);
    await clock.step(10_000);
    expect(keys()).toEqual(['x', 'y']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('becoming leader, its first listing waits for `ready` (its caches synced), and settled waits with it; a refused ready lists again with back-off', async () => {
    let synced!: () => void;
    let attempts = 0;
    const ready = () => (++attempts === 1 ? Promise.reject(new Error('informer nodes: not synced after 30000 ms')) : new Promise<void>((r) => (synced = r)));
    const { controller, clock, keys } = aController({ ready, listKeys: () => ['x'] });
    controller.start();
    await clock.step(999);
    expect([attempts, keys()]).toEqual([1, []]);
    clock.advance(1);
    let settled = false;
    void controller.settled().then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect([attempts, keys(), settled]).toEqual([2, [], false]);
    synced();
    await controller.settled();
    expect([keys(), settled]).toEqual([['x'], true]);
  });

  it('a key enqueued before its caches synced waits for them: `ready` gates every reconcile, not only the listing', async () => {
    let synced!: () => void;
    let asked = 0;
    const ready = () => {
      asked++;
      return new Promise<void>((r) => (synced = r));
    };
    const { controller, keys, tick } = aController({ ready });
    controller.start();
    controller.enqueue('node-a'); // an informer event, a command's request
    controller.enqueue('node-b');
    await tick();
    expect(keys()).toEqual([]);
    synced();
    await controller.settled();
    expect(keys()).toEqual(['node-a', 'node-b']);
    expect(asked).toBe(1); // once per term
  });

  it('aborts the signal of a reconcile in flight when leadership is lost, and gives each term its own id', async () => {
    const leader = new FakeLeader(true);
    const { controller, gates, tick } = aController({ leader, gated: true });
    controller.start();
    controller.enqueue('op-1');
    await tick();
    const first = gates[0]!;
    leader.set(false);
    expect(first.ctx.signal.aborted).toBe(true);
    first.end();
    leader.set(true);
    controller.enqueue('op-1');
    await tick();
    expect(gates[1]!.ctx.term).not.toBe(first.ctx.term);
    expect(gates[1]!.ctx.signal.aborted).toBe(false);
    gates[1]!.end();
  });

  it('stop takes no new key and waits for the reconcile in flight; one that does not end is left after the bound', async () => {
    const { controller, gates, tick, keys } = aController({ gated: true, concurrency: 2, stopTimeoutMs: 20 });
    controller.start();
    controller.enqueue('a');
    controller.enqueue('b');
    await tick();
    const stopped = controller.stop().then(() => 'stopped');
    controller.enqueue('c');
    expect(gates.every((g) => g.ctx.signal.aborted)).toBe(true);
    gates[0]!.end();
    // b never ends: stop returns after its (real-time) bound anyway.
    await expect(stopped).resolves.toBe('stopped');
    await tick();
    expect(keys()).toEqual(['a', 'b']);
  });

  it('shows a reconcile stuck on a call that never answers: the longest-running gauge grows, the queue latency of the key behind it too', async () => {
    const { controller, metrics, gates, tick } = aController({ gated: true });
    controller.start();
    controller.enqueue('hung');
    controller.enqueue('behind');
    await tick();
    const longest = async () => {
      const m = await metrics.registry.getSingleMetric('nodes_manager_controller_longest_running_reconcile_seconds')!.get();
      return m.values.find((v) => v.labels['controller'] === 'test')?.value ?? 0;
    };
    const first = await longest();
    await new Promise((r) => setTimeout(r, 30)); // real time: the gauge measures the reconcile's own
    const later = await longest();
    expect(later).toBeGreaterThanOrEqual(first + 0.025);
    gates[0]!.end();
    await tick();
    gates[1]!.end();
    await controller.settled();
    expect(await longest()).toBe(0);
    const latency = await metrics.registry.getSingleMetric('nodes_manager_controller_queue_latency_seconds')!.get();
    const named = (name: string) => latency.values.find((v) => (v as { metricName?: string }).metricName === name)!.value;
    const count = named('nodes_manager_controller_queue_latency_seconds_count');
    const sum = named('nodes_manager_controller_queue_latency_seconds_sum');
    expect(count).toBe(2);
    expect(sum).toBeGreaterThanOrEqual(0.025); // `behind` waited for the hung one's worker
    expect(lintExposition(await metrics.registry.metrics())).toEqual([]);
  });

  it('exposes its queue depth, reconcile durations, retries and errors as lint-clean metrics', async () => {
    const { controller, metrics } = aController({ answer: (k) => (k === 'bad' ? new Error('x') : {}) });
    controller.start();
    controller.enqueue('good');
    controller.enqueue('bad');
    await controller.settled();
    const text = await metrics.registry.metrics();
    expect(text).toContain('nodes_manager_controller_queue_depth{service="uncordon",controller="test"} 0');
    expect(text).toContain('nodes_manager_controller_reconcile_duration_seconds_count{service="uncordon",controller="test",result="success"} 1');
    expect(text).toContain('nodes_manager_controller_reconcile_duration_seconds_count{service="uncordon",controller="test",result="error"} 1');
    expect(lintExposition(text)).toEqual([]);
  });
});
