import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource, LeaderElector, Metrics, runMigrations } from '@nodes-manager/platform';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { migrations } from '../../../migrations/uncordon/index.js';
import { entities } from '../src/adapters/outbound/uncordon.entities.js';
import { UncordonRepository } from '../src/auto-uncordon/uncordon.repository.js';
import { DrainRepository } from '../src/drain/drain.repository.js';

/*
 * A deposed leader cannot overwrite a drain (docs/leader-election.md#terms): the leader gate stops new reconciles, not
 * the one in flight, and a process keeps running after it lost the lock. Here the first leader's lock session is
 * terminated, a second process takes the lock (a new term) and saves its step; the first one's step, still in
 * flight, comes after it and is refused — the second one's `state` stands, and the refusal is counted.
 */
const NOW = new Date('2026-03-01T10:00:00Z');
const options = { timeoutSeconds: 600, force: false, deleteEmptyDirData: false, ignoreDaemonSets: true };

describe('drain steps are fenced by the leader term', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: DrainRepository;
  const electors: LeaderElector[] = [];
  const metrics = new Metrics();
  const elector = () => {
    const e = new LeaderElector(db.url, 'uncordon', undefined, 100, { service: 'uncordon', metrics });
    electors.push(e);
    return e;
  };
  const staleWrites = async (table: string): Promise<number> =>
    (await metrics.registry.getSingleMetric('nodes_manager_stale_writes_total')!.get()).values.find((v) => v.labels['table'] === table)?.value ?? 0;

  beforeEach(async () => {
    db = await createTestDatabase('nm_drain_fence');
    const spec = { service: 'uncordon' as const, url: db.url, entities, migrations };
    ds = createDataSource(spec);
    await ds.initialize();
    await runMigrations(ds, spec);
    repo = new DrainRepository(ds, new UncordonRepository(ds));
  });

  afterEach(async () => {
    for (const e of electors.splice(0)) await e.stop();
    await ds.destroy();
    await db.drop();
  });

  it("a deposed leader's saveStep is refused while the new leader's state stands", async () => {
    const id = randomUUID();
    await repo.create({ id, node: 'n-1', status: 'running', actor: 'test', correlationId: null, options, progress: {}, startedAt: NOW });
    const old = elector();
    old.start();
    await waitFor(() => old.isLeader || undefined, 'the first process to lead');
    const oldFence = old.fence();
    expect(await repo.saveStep(id, { podsLeft: 3 }, { term: oldFence.term, step: 1 }, NOW, oldFence)).toBe(true);

    // The first leader's lock session dies (and it stops trying again, so that the second one surely gets the lock);
    // its reconcile in flight still holds its term's fence. A second process takes the lock, and so the next term.
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'nodes-manager/leader/uncordon'`);
    await waitFor(() => !old.isLeader || undefined, 'the first process to step down', 5_000);
    await old.stop();
    const next = elector();
    next.start();
    await waitFor(() => next.isLeader || undefined, 'the second process to lead', 5_000);
    const nextFence = next.fence();
    expect(Number(nextFence.term)).toBeGreaterThan(Number(oldFence.term));
    expect(await repo.saveStep(id, { podsLeft: 1, results: ['evicted'] }, { term: nextFence.term, step: 2, present: ['b'] }, NOW, nextFence)).toBe(true);

    // The first leader's reconcile, still in flight, saves what it reached: refused, counted, and nothing changes.
    expect(await repo.saveStep(id, { podsLeft: 2 }, { term: oldFence.term, step: 2, present: ['a', 'b'] }, NOW, oldFence)).toBe(false);
    const [row] = await db.query<{ progress: unknown; state: unknown }>(`SELECT progress, state FROM nodes.drain_operations WHERE id = $1`, [id]);
    expect(row).toEqual({ progress: { podsLeft: 1, results: ['evicted'] }, state: { term: nextFence.term, step: 2, present: ['b'] } });
    expect(await staleWrites('drain_operations')).toBe(1);
  }, 20_000);
});
