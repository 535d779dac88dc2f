import { describe, expect, it } from '@jest/globals';
import { Controllers, FakeClock, JsonLogger, Metrics, type LeaderElector } from '@nodes-manager/platform';
import type { NodeSyncConfig } from './config.js';
import { NodeSyncController } from './node-sync.controller.js';
import type { NodeSyncService, SyncCycleResult } from './node-sync.service.js';
import type { KubeCache } from './adapters/outbound/kube-cache.adapter.js';

const SCAN_MS = 30_000;
const DEBOUNCE_MS = 500;

/** FakeLeader — the election, flipped by hand. */
class FakeLeader {
  private readonly listeners: ((l: boolean) => void)[] = [];
  constructor(public isLeader = false) {}
  onChange(fn: (l: boolean) => void): void {
    this.listeners.push(fn);
  }
  async stillLeader(): Promise<boolean> {
    return this.isLeader;
  }
  set(leader: boolean): void {
    this.isLeader = leader;
    for (const l of this.listeners) l(leader);
  }
}

/** FakeCache — the informers' change and list notifications, fired by hand. */
class FakeCache {
  private change: (() => void)[] = [];
  private listed: ((what: 'nodes' | 'pods', info: { reason: string }) => void)[] = [];
  onChange(fn: () => void): void {
    this.change.push(fn);
  }
  onListed(fn: (what: 'nodes' | 'pods', info: { reason: string }) => void): void {
    this.listed.push(fn);
  }
  changed(): void {
    for (const f of this.change) f();
  }
  list(what: 'nodes' | 'pods', reason = 'initial'): void {
    for (const f of this.listed) f(what, { reason });
  }
}

/**
 * FakeSync — records each cycle (its trigger, when, whether the stored hashes were to be re-read);
 * `failNext` makes the next cycle throw, `hold` keeps each cycle running until the test ends it.
 */
class FakeSync {
  readonly cycles: { trigger: string; at: number; reload: boolean }[] = [];
  forgotten = 0;
  failNext = 0;
  running = 0;
  maxRunning = 0;
  hold = false;
  readonly held: (() => void)[] = [];
  private reload = false;
  constructor(private readonly clock: FakeClock, private readonly t0: number) {}
  forget(): void {
    this.forgotten++;
  }
  reconcileNext(): void {
    this.reload = true;
  }
  async runCycle(trigger: string): Promise<SyncCycleResult> {
    this.cycles.push({ trigger, at: this.clock.now().getTime() - this.t0, reload: this.reload });
    this.reload = false;
    this.maxRunning = Math.max(this.maxRunning, ++this.running);
    try {
      if (this.hold) await new Promise<void>((r) => this.held.push(r));
      if (this.failNext > 0) {
        this.failNext--;
        throw new Error('database unavailable');
      }
      return { skipped: 'cache-not-synced' };
    } finally {
      this.running--;
    }
  }
}

function aNodeSync() {
  const clock = new FakeClock('2026-03-01T10:00:00Z');
  const t0 = clock.now().getTime();
  const leader = new FakeLeader();
  const cache = new FakeCache();
  const sync = new FakeSync(clock, t0);
  const config = { SCAN_INTERVAL_SECONDS: SCAN_MS / 1000, SYNC_DEBOUNCE_MS: DEBOUNCE_MS } as NodeSyncConfig;
  const c = new NodeSyncController(
    config,
    new Controllers('node-sync', clock, new Metrics(), new JsonLogger('node-sync', 'error', () => undefined)),
    leader as unknown as LeaderElector,
    cache as unknown as KubeCache,
    sync as unknown as NodeSyncService,
  );
  c.controller.start();
  /** lead — becomes leader and lets the first cycle run. */
  const lead = async () => {
    leader.set(true);
    await c.controller.settled();
  };
  const triggers = () => sync.cycles.map((x) => x.trigger);
  return { clock, leader, cache, sync, c, lead, triggers };
}

describe('NodeSyncController: when a cycle runs (FakeClock, in milliseconds)', () => {
  it('runs one cycle on becoming leader, with the stored hashes re-read, and none while another replica leads', async () => {
    const { clock, cache, sync, lead, triggers } = aNodeSync();
    cache.changed();
    cache.list('nodes');
    await clock.step(SCAN_MS * 2);
    expect(sync.cycles).toEqual([]);
    await lead();
    expect(sync.cycles).toEqual([{ trigger: 'leader', at: SCAN_MS * 2, reload: true }]);
    expect(sync.forgotten).toBe(1);
    expect(triggers()).toEqual(['leader']);
  });

  it.each([
    ['one change', [0], [[DEBOUNCE_MS - 1, 0], [DEBOUNCE_MS, 1]]],
    ['a burst of changes, timed from its first', [0, 100, DEBOUNCE_MS - 1], [[DEBOUNCE_MS - 1, 0], [DEBOUNCE_MS, 1], [DEBOUNCE_MS * 3, 1]]],
    ['two changes further apart than the debounce', [0, DEBOUNCE_MS + 100], [[DEBOUNCE_MS, 1], [DEBOUNCE_MS * 2 + 99, 1], [DEBOUNCE_MS * 2 + 100, 2]]],
  ] as const)('%s: synced SYNC_DEBOUNCE_MS after, not a millisecond before', async (_, changesAt, expected) => {
    const { clock, cache, sync, lead } = aNodeSync();
    await lead();
    sync.cycles.length = 0;
    const t0 = clock.now().getTime();
    let at = 0;
    const changes = [...changesAt];
    for (const [until, cycles] of expected) {
      while (changes.length > 0 && changes[0]! <= until) {
        const next = changes.shift()!;
        await clock.step(next - at);
        at = next;
        cache.changed();
      }
      await clock.step(until - at);
      at = until;
      expect([clock.now().getTime() - t0, sync.cycles.length]).toEqual([until, cycles]);
    }
    expect(sync.cycles.every((x) => x.trigger === 'watch' && !x.reload)).toBe(true);
  });

  it('runs at once after a complete list, saying which', async () => {
    const { cache, sync, c, lead, triggers } = aNodeSync();
    await lead();
    cache.list('pods', 'relist-410');
    await c.controller.settled();
    expect(triggers()).toEqual(['leader', 'relist-410-list-pods']);
    expect(sync.cycles[1]!.at).toBe(0);
  });

  it.each([
    ['just before the interval: only the cycle of becoming leader', SCAN_MS - 1, ['leader']],
    ['at the interval: the reconcile, re-reading the stored hashes', SCAN_MS, ['leader', 'reconcile']],
    ['three intervals: three reconciles', SCAN_MS * 3, ['leader', 'reconcile', 'reconcile', 'reconcile']],
  ])('the reconcile every SCAN_INTERVAL_SECONDS — %s', async (_, ms, expected) => {
    const { clock, sync, lead, triggers } = aNodeSync();
    await lead();
    await clock.step(ms);
    expect(triggers()).toEqual(expected);
    expect(sync.cycles.map((x) => x.at)).toEqual(expected.map((_t, i) => i * SCAN_MS));
    expect(sync.cycles.every((x) => x.reload)).toBe(true);
  });

  it('a change during a cycle makes exactly one more cycle right after it, never two at once', async () => {
    const { clock, cache, sync, c, lead, triggers } = aNodeSync();
    await lead();
    sync.hold = true;
    cache.list('nodes');
    await new Promise((r) => setImmediate(r));
    expect(sync.cycles).toHaveLength(2);
    for (let i = 0; i < 5; i++) cache.changed();
    cache.list('pods');
    await new Promise((r) => setImmediate(r));
    expect(sync.cycles).toHaveLength(2);
    sync.hold = false;
    sync.held.shift()!();
    await c.controller.settled();
    expect(triggers()).toEqual(['leader', 'initial-list-nodes', 'watch']);
    // The changes' debounce still falls due: one more cycle, then none.
    await clock.step(DEBOUNCE_MS);
    expect(triggers()).toEqual(['leader', 'initial-list-nodes', 'watch', 'watch']);
    await clock.step(DEBOUNCE_MS * 4);
    expect(sync.cycles).toHaveLength(4);
    expect(sync.maxRunning).toBe(1);
  });

  it('a cycle that fails is retried with back-off, within a second the first time', async () => {
    const { clock, cache, sync, lead } = aNodeSync();
    await lead();
    sync.failNext = 1;
    cache.changed();
    await clock.step(DEBOUNCE_MS);
    expect(sync.cycles).toHaveLength(2);
    await clock.step(1_000);
    expect(sync.cycles).toHaveLength(3);
    expect(sync.cycles[2]!.at - sync.cycles[1]!.at).toBeGreaterThanOrEqual(500);
    expect(sync.cycles.map((x) => x.trigger)).toEqual(['leader', 'watch', 'watch']);
  });

  it('losing leadership stops the cycles: a change, a list or an interval then runs nothing', async () => {
    const { clock, leader, cache, sync, lead } = aNodeSync();
    await lead();
    cache.changed();
    leader.set(false);
    cache.list('nodes');
    await clock.step(SCAN_MS * 2);
    expect(sync.cycles).toHaveLength(1);
    expect(sync.forgotten).toBe(2);
  });

  it('request answers a cycle that started after it, or not-leader in a replica that does not lead', async () => {
    const { c, lead, triggers } = aNodeSync();
    expect(await c.request('probe')).toEqual({ skipped: 'not-leader' });
    expect(c.last).toEqual({ skipped: 'not-leader' });
    await lead();
    await c.request('probe');
    expect(triggers()).toEqual(['leader', 'probe']);
  });
});
