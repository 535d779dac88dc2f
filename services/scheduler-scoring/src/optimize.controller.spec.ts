import { describe, expect, it } from '@jest/globals';
import { Controllers, FakeClock, JsonLogger, Metrics, type LeaderElector } from '@nodes-manager/platform';
import type { SchedulerScoringConfig } from './config.js';
import { OptimizeController } from './optimize.controller.js';
import type { OptimizeCycleService } from './optimize-cycle.service.js';
import type { ClusterCache } from './adapters/outbound/cluster-cache.adapter.js';

const SCAN_MS = 10_000;

/** FakeLeader — the election flipped by hand, and the server's word on it. */
class FakeLeader {
  private readonly listeners: ((l: boolean) => void)[] = [];
  serverSaysLeader = true;
  constructor(public isLeader = false) {}
  onChange(fn: (l: boolean) => void): void {
    this.listeners.push(fn);
  }
  async stillLeader(): Promise<boolean> {
    return this.serverSaysLeader;
  }
  set(leader: boolean): void {
    this.isLeader = leader;
    for (const l of this.listeners) l(leader);
  }
}

/**
 * FakeService — records each loop cycle it is asked for (when, in which mode, whether it ran); `hold` keeps each
 * cycle running until the test ends it, `fail` makes the next cycles throw this error.
 */
class FakeService {
  readonly calls: { at: number; mode: string; ran: boolean }[] = [];
  readonly held: (() => void)[] = [];
  hold = false;
  fail: Error[] = [];
  running = 0;
  maxRunning = 0;
  /** The actor of each trigger cycle run. */
  readonly triggered: string[] = [];
  constructor(private readonly clock: FakeClock, private readonly t0: number) {}
  async runCycle(o: { mode: string; meta: { actor: string } }): Promise<{ mode: string }> {
    this.triggered.push(o.meta.actor);
    if (this.hold) await new Promise<void>((r) => this.held.push(r));
    return { mode: o.mode };
  }
  async runLoopCycle(mode: string, stillLeader: () => Promise<boolean>): Promise<undefined> {
    const call = { at: this.clock.now().getTime() - this.t0, mode, ran: false };
    this.calls.push(call);
    this.maxRunning = Math.max(this.maxRunning, ++this.running);
    try {
      if (this.hold) await new Promise<void>((r) => this.held.push(r));
      call.ran = await stillLeader();
      const err = this.fail.shift();
      if (err) throw err;
      return undefined;
    } finally {
      this.running--;
    }
  }
}

const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

function anOptimizer(o: { synced?: boolean } = {}) {
  const clock = new FakeClock('2026-03-11T10:00:00Z');
  const t0 = clock.now().getTime();
  const leader = new FakeLeader();
  let markSynced!: () => void;
  const synced = new Promise<void>((r) => (markSynced = r));
  const cluster = { synced: o.synced ?? true, waitForSync: () => (cluster.synced ? Promise.resolve() : synced) };
  /** sync — the cluster cache has listed everything now. */
  const sync = () => {
    cluster.synced = true;
    markSynced();
  };
  const svc = new FakeService(clock, t0);
  const config = { OPTIMIZE_MODE: 'plan', SCAN_INTERVAL_SECONDS: SCAN_MS / 1000 } as SchedulerScoringConfig;
  const opt = new OptimizeController(
    config,
    new Controllers('scheduler-scoring', clock, new Metrics(), new JsonLogger('scheduler-scoring', 'error', () => undefined)),
    leader as unknown as LeaderElector,
    cluster as unknown as ClusterCache,
    svc as unknown as OptimizeCycleService,
  );
  opt.controller.start();
  const lead = async () => {
    leader.set(true);
    await opt.controller.settled();
  };
  const at = () => svc.calls.map((c) => c.at);
  return { clock, leader, sync, svc, opt, lead, at };
}

describe('OptimizeController: the optimisation interval (FakeClock, in milliseconds)', () => {
  it.each([
    ['on becoming leader: one cycle at once', 0, [0]],
    ['a millisecond before the interval: still one', SCAN_MS - 1, [0]],
    ['at the interval: the second', SCAN_MS, [0, SCAN_MS]],
    ['three intervals: one cycle each', SCAN_MS * 3, [0, SCAN_MS, SCAN_MS * 2, SCAN_MS * 3]],
  ])('%s', async (_, ms, expected) => {
    const { clock, svc, lead, at } = anOptimizer();
    await lead();
    await clock.step(ms);
    expect(at()).toEqual(expected);
    expect(svc.calls.every((c) => c.mode === 'plan' && c.ran)).toBe(true);
  });

  it('runs nothing while another replica leads, and stops when this one loses the lead', async () => {
    const { clock, leader, lead, at } = anOptimizer();
    await clock.step(SCAN_MS * 3);
    expect(at()).toEqual([]);
    await lead();
    await clock.step(SCAN_MS);
    leader.set(false);
    await clock.step(SCAN_MS * 3);
    expect(at()).toEqual([SCAN_MS * 3, SCAN_MS * 4]);
  });

  it('never runs on a cache that has not synced; the sync itself starts a cycle, not the next interval', async () => {
    const { clock, leader, sync, opt, at } = anOptimizer({ synced: false });
    leader.set(true);
    await clock.step(SCAN_MS * 2 + 1_000);
    expect(at()).toEqual([]);
    // The runtime waits for the cache (`ready`): its sync lets the waiting listing go on, and that is the cycle.
    sync();
    await opt.controller.settled();
    expect(at()).toEqual([SCAN_MS * 2 + 1_000]);
    // The interval counts from that first cycle's listing.
    await clock.step(SCAN_MS);
    expect(at()).toEqual([SCAN_MS * 2 + 1_000, SCAN_MS * 3 + 1_000]);
  });

  it('makes one more cycle of the ticks that come while a cycle runs, never more, never two at once', async () => {
    const { clock, svc, opt, lead, at } = anOptimizer();
    svc.hold = true;
    lead();
    await new Promise((r) => setImmediate(r));
    expect(at()).toEqual([0]);
    // Three intervals pass while the first cycle runs (a slow one): their ticks make one more cycle, not three.
    clock.advance(SCAN_MS * 3);
    await new Promise((r) => setImmediate(r));
    expect(svc.calls).toHaveLength(1);
    svc.hold = false;
    svc.held.shift()!();
    await opt.controller.settled();
    expect(at()).toEqual([0, SCAN_MS * 3]);
    expect(svc.maxRunning).toBe(1);
  });

  it.each([
    ['still leader on the server: the cycle runs', true, true],
    ['leadership lost by the time the cycle gets its turn: it does not run', false, false],
  ])('%s', async (_, serverSaysLeader, runs) => {
    const { leader, svc, lead } = anOptimizer();
    leader.serverSaysLeader = serverSaysLeader;
    await lead();
    expect(svc.calls.map((c) => c.ran)).toEqual([runs]);
  });

  it.each([
    ["another replica's execution in progress (CONFLICT): skipped until the next interval", coded('CONFLICT', 'an optimisation run is in progress'), [0, SCAN_MS]],
    ['any other failure: retried with back-off, within a second the first time', coded('UPSTREAM_ERROR', 'prices unavailable'), [0, 'retry', SCAN_MS]],
  ] as const)('%s', async (_, error, expected) => {
    const { clock, svc, lead, at } = anOptimizer();
    svc.fail = [error];
    await lead();
    await clock.step(SCAN_MS);
    const got = at();
    expect(got).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      if (e !== 'retry') return expect(got[i]).toBe(e);
      expect(got[i]).toBeGreaterThanOrEqual(500);
      expect(got[i]).toBeLessThanOrEqual(1_000);
    });
  });

  it('cycle() answers once a cycle that started after the call has run', async () => {
    const { opt, lead, at } = anOptimizer();
    await lead();
    await opt.cycle();
    expect(at()).toEqual([0, 0]);
  });
});

describe('OptimizeController: optimize.trigger through its key', () => {
  const meta = (actor: string) => ({ actor, correlationId: `c-${actor}` });

  it('N triggers while a trigger cycle runs make one more cycle, not N, and every caller gets a result', async () => {
    const { svc, opt } = anOptimizer();
    opt.triggers.start();
    svc.hold = true;
    const first = opt.trigger({ dryRun: true }, meta('a'));
    await new Promise((r) => setImmediate(r));
    const more = ['b', 'c', 'd', 'e'].map((a) => opt.trigger({ dryRun: true }, meta(a)));
    await new Promise((r) => setImmediate(r));
    expect(svc.triggered).toEqual(['a']);
    svc.hold = false;
    svc.held.shift()!();
    const answers = await Promise.all([first, ...more]);
    // The second cycle is b's (the first who asked); c, d and e share it.
    expect(svc.triggered).toEqual(['a', 'b']);
    expect(answers.map((x) => x.mode)).toEqual(['plan', 'plan', 'plan', 'plan', 'plan']);
  });

  it('a plan trigger and an execute trigger are two keys: each mode its own cycle', async () => {
    const { svc, opt } = anOptimizer();
    opt.triggers.start();
    const [plan, execute] = await Promise.all([opt.trigger({ dryRun: true }, meta('p')), opt.trigger({ dryRun: false }, meta('x'))]);
    expect([plan.mode, execute.mode]).toEqual(['plan', 'execute']);
    expect(svc.triggered.sort()).toEqual(['p', 'x']);
  });

  it("a cycle's error is its callers', and is not retried by the runtime", async () => {
    const { clock, svc, opt } = anOptimizer();
    opt.triggers.start();
    svc.runCycle = async () => {
      svc.triggered.push('failed');
      throw coded('CONFLICT', 'an optimisation run is in progress');
    };
    await expect(opt.trigger({ dryRun: false }, meta('x'))).rejects.toThrow('an optimisation run is in progress');
    await clock.step(60_000);
    expect(svc.triggered).toEqual(['failed']);
  });
});
