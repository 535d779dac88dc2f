import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { Controller, FakeClock, fenced, LeaderElector, Metrics, NOT_LOCKED, STALE_WRITE, UNFENCED, withAdvisoryLock } from '@nodes-manager/platform';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';

/*
 * The runtime's promise down to the row (docs/leader-election.md#terms, #locks): a reconcile still in flight in a
 * deposed leader writes nothing once another process took the lock — through `fenced`, which takes the reconcile's
 * fence from its async context — and an advisory lock taken with `withAdvisoryLock` never outlives its call.
 */
describe('write fences and advisory locks (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const electors: LeaderElector[] = [];
  const metrics = new Metrics();
  const elector = (name: string) => {
    const e = new LeaderElector(db.url, name, undefined, 100, { service: 'uncordon', metrics });
    electors.push(e);
    return e;
  };
  const stale = async (table: string): Promise<number> =>
    (await metrics.registry.getSingleMetric('nodes_manager_stale_writes_total')!.get()).values.find((v) => v.labels['table'] === table)?.value ?? 0;

  beforeEach(async () => {
    db = await createTestDatabase('nm_fence');
    await db.query(`CREATE SCHEMA nodes`);
    await db.query(`CREATE TABLE nodes.leader_terms (name text PRIMARY KEY, term bigint NOT NULL, since timestamptz NOT NULL)`);
    await db.query(`CREATE TABLE nodes.things (key text PRIMARY KEY, written_by text NOT NULL)`);
    ds = new DataSource({ type: 'postgres', url: db.url, extra: { max: 4 } });
    await ds.initialize();
  });

  afterEach(async () => {
    for (const e of electors.splice(0)) await e.stop();
    await ds.destroy();
    await db.drop();
  });

  const write = (key: string, by: string) => fenced(ds, 'things', (tx) => tx.query(`INSERT INTO nodes.things VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET written_by = $2`, [key, by]));
  const writer = async (key: string) => (await db.query<{ written_by: string }>(`SELECT written_by FROM nodes.things WHERE key = $1`, [key]))[0]?.written_by;

  it("a reconcile in flight when its process lost the lock writes nothing: the new leader's row stands, the refusal is counted", async () => {
    const name = `fence-${process.pid}-${Date.now()}`;
    const old = elector(name);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let outcome: unknown;
    const controller = new Controller({
      name: 'things',
      service: 'uncordon',
      clock: new FakeClock('2026-03-01T10:00:00Z'),
      leader: old,
      reconcile: async (key) => {
        await held; // an API call that is slow to answer
        outcome = await write(key, 'old');
      },
    });
    old.start();
    await waitFor(() => old.isLeader || undefined, 'the first process to lead');
    controller.start();
    controller.enqueue('k');
    await waitFor(() => controller.depth === 0 || undefined, 'the reconcile to start');

    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`nodes-manager/leader/${name}`]);
    await waitFor(() => !old.isLeader || undefined, 'the first process to step down', 5_000);
    await old.stop();
    const next = elector(name);
    next.start();
    await waitFor(() => next.isLeader || undefined, 'the second process to lead', 5_000);
    expect(await fenced(ds, 'things', (tx) => tx.query(`INSERT INTO nodes.things VALUES ('k', 'next')`), next.fence())).not.toBe(STALE_WRITE);

    release();
    await controller.stop();
    expect(outcome).toBe(STALE_WRITE);
    expect(await writer('k')).toBe('next');
    expect(await stale('things')).toBe(1);
  }, 30_000);

  it('outside a reconcile a write is unfenced: a plain transaction', async () => {
    expect(await write('cmd', 'command')).not.toBe(STALE_WRITE);
    expect(await writer('cmd')).toBe('command');
    expect(UNFENCED.term).toBe('');
  });

  it('withAdvisoryLock: one holder at a time; no lock outlives its call, even when fn throws mid-transaction', async () => {
    const heldBy: string[] = [];
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    const first = withAdvisoryLock(ds, 'nm.test.lock', async () => {
      heldBy.push('first');
      inside();
      await done;
    });
    await entered;
    // Held: a try answers NOT_LOCKED at once.
    expect(await withAdvisoryLock(ds, 'nm.test.lock', async () => heldBy.push('try'), { wait: false })).toBe(NOT_LOCKED);
    finish();
    await first;
    // A holder whose transaction fails (its statement errors, so no unlock could even run on it) leaves nothing held.
    await expect(withAdvisoryLock(ds, 'nm.test.lock', async (tx) => tx.query(`SELECT 1 / 0`))).rejects.toThrow(/division by zero/);
    const advisory = await db.query(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`);
    expect(advisory).toEqual([]);
    expect(await withAdvisoryLock(ds, 'nm.test.lock', async () => 'got', { wait: false })).toBe('got');
    expect(heldBy).toEqual(['first']);
  }, 30_000);
});
