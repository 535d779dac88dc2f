import { afterEach, describe, expect, it } from '@jest/globals';
import { LeaderElector } from '@nodes-manager/platform';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';

let db: TestDatabase | undefined;
const electors: LeaderElector[] = [];
afterEach(async () => {
  for (const e of electors.splice(0)) await e.stop();
  await db?.drop();
});

/** termsDatabase — a test database with the leader's terms, as a service that elects a leader migrates it. */
const termsDatabase = async (): Promise<TestDatabase> => {
  const d = await createTestDatabase();
  await d.query(`CREATE SCHEMA IF NOT EXISTS nodes`);
  await d.query(`CREATE TABLE IF NOT EXISTS nodes.leader_terms (name text PRIMARY KEY, term bigint NOT NULL, since timestamptz NOT NULL)`);
  return d;
};

const elector = (name: string) => {
  const e = new LeaderElector(db!.url, name, undefined, 100);
  electors.push(e);
  return e;
};

describe('leader election (Postgres advisory lock)', () => {
  it('elects exactly one of two replicas, and the other takes over when the leader stops', async () => {
    db = await termsDatabase();
    const name = `uncordon-${process.pid}-${Date.now()}`;
    const a = elector(name);
    const b = elector(name);
    a.start();
    await waitFor(() => a.isLeader, 'the first replica to lead');
    b.start();
    await new Promise((r) => setTimeout(r, 500));
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    expect(await a.stillLeader()).toBe(true);
    expect(await b.stillLeader()).toBe(false);

    await a.stop();
    await waitFor(() => b.isLeader, 'the second replica to take over', 5000);
    expect(await b.stillLeader()).toBe(true);
  });

  it('a leader whose connection is killed stops leading at once, and another replica is elected', async () => {
    db = await termsDatabase();
    const name = `node-sync-${process.pid}-${Date.now()}`;
    const a = elector(name);
    const b = elector(name);
    const changes: boolean[] = [];
    a.onChange((l) => changes.push(l));
    a.start();
    await waitFor(() => a.isLeader, 'a to lead');
    b.start();
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`nodes-manager/leader/${name}`]);
    await waitFor(() => changes.includes(false), 'the killed leader to step down', 5000);
    await waitFor(() => b.isLeader || a.isLeader, 'someone to lead again', 5000);
    expect(changes[0]).toBe(true);
    expect(Number(a.isLeader) + Number(b.isLeader)).toBe(1);
  });

  it('an elector stopped while it is still connecting leaves no session behind and never takes the lock', async () => {
    db = await termsDatabase();
    const name = `stopped-${process.pid}-${Date.now()}`;
    const a = elector(name);
    a.start();
    await a.stop();
    await new Promise((r) => setTimeout(r, 500));
    expect(await db.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [`nodes-manager/leader/${name}`])).toEqual([]);
    expect(a.isLeader).toBe(false);
    const b = elector(name);
    b.start();
    await waitFor(() => b.isLeader, 'another replica to take the free lock');
  });

  it('locks of different names are independent', async () => {
    db = await termsDatabase();
    const a = elector(`x-${Date.now()}`);
    const b = elector(`y-${Date.now()}`);
    a.start();
    b.start();
    await waitFor(() => a.isLeader && b.isLeader, 'both to lead their own name');
  });

  it('each process that takes the lock takes the next term, and one without the terms table does not lead', async () => {
    db = await termsDatabase();
    const name = `terms-${process.pid}-${Date.now()}`;
    const a = elector(name);
    a.start();
    await waitFor(() => a.isLeader, 'a to lead');
    const first = Number(a.fence().term);
    const b = elector(name);
    b.start();
    await a.stop();
    await waitFor(() => b.isLeader, 'b to take over', 5000);
    expect(Number(b.fence().term)).toBe(first + 1);

    await db.query(`DROP TABLE nodes.leader_terms`);
    const c = elector(`no-terms-${process.pid}-${Date.now()}`);
    c.start();
    await new Promise((r) => setTimeout(r, 500));
    expect(c.isLeader).toBe(false);
  });
});
