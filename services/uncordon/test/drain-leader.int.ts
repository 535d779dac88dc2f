import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { FakeClock } from '@nodes-manager/platform';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { DrainService } from '../src/drain/drain.service.js';
import { DRAIN_PICKUP_MS } from '../src/drain/drain.controller.js';
import { becomesLeader, startUncordon, type UncordonApp, getNode } from './uncordon.harness.js';
import { aKubeNode, aKubePod, aKubePdb } from '@nodes-manager/kube/testing';

/*
 * Drains as the leader runs them, on a fake clock shared with the simulator: the drain controller's pick-up, its
 * retries and polls and the deadlines all pass by `clock.step`. Pick-up of an operation another replica recorded,
 * API failures before the drain loop, and an operation ended by someone else while it was still being carried on.
 */
const MIN = 60_000;
const meta = { actor: 'test', correlationId: 'c-1' };
/** aDrain — a drain request as the gateway sends it, with the defaults of the API. */
const aDrain = (node: string, o: { timeoutSeconds?: number } = {}) => ({ node, timeoutSeconds: o.timeoutSeconds ?? 600, force: false, deleteEmptyDirData: false });

describe('drain: leader pick-up, deadlines, operations ended elsewhere', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let clock: FakeClock;
  const apps: UncordonApp[] = [];
  // A long scan interval: anything that happens within a test is not the scan tick's doing.
  const start = async (env: Record<string, string> = {}): Promise<UncordonApp> => {
    const a = await startUncordon({ databaseUrl: db.url, kubeconfig: sim.kubeconfigPath, clock, env: { SCAN_INTERVAL_SECONDS: '300', ...env } });
    apps.push(a);
    return a;
  };
  const drains = (a: UncordonApp) => a.app.get(DrainService);
  const operation = async (id: string) =>
    (await db.query<{ status: string; reason: string | null; progress: Record<string, unknown> }>(`SELECT status, reason, progress FROM nodes.drain_operations WHERE id = $1`, [id]))[0];
  const drainsTotal = async (a: UncordonApp): Promise<number> => {
    const metric = await a.runtime.metrics.registry.getSingleMetric('nodes_manager_drains_total')!.get();
    return metric.values.reduce((t, v) => t + v.value, 0);
  };

  beforeEach(async () => {
    clock = new FakeClock('2026-03-01T10:00:00Z');
    // Evicted pods go at once: the drains' own waits are the clock's.
    sim = await startKubeSim({ clock: () => clock.now(), podTerminationMs: 0 });
    db = await createTestDatabase('nm_drain_leader');
  });

  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close().catch(() => undefined);
    sim.faults.clear();
    await sim.stop();
    await db.drop();
  });


  /** insertPendingDrain — a drain operation recorded as `start` records it (60 s timeout), without reading the node. */
  const insertPendingDrain = async (node: string, startedAt: Date): Promise<string> => {
    const id = randomUUID();
    await db.query(
      `INSERT INTO nodes.drain_operations (id, node_name, status, actor, options, progress, started_at, updated_at)
       VALUES ($1, $2, 'pending', 'test', $3, '{}', $4, $4)`,
      [id, node, JSON.stringify({ timeoutSeconds: 60, force: false, deleteEmptyDirData: false, ignoreDaemonSets: true }), startedAt],
    );
    return id;
  };
  it('a drain requested on a replica that is not the leader starts within seconds, not at the next scan tick', async () => {
    sim.load({ nodes: [aKubeNode('n-1', { readySince: new Date(clock.now().getTime() - 60 * MIN) })], pods: [aKubePod('web-1', 'n-1')] });
    const a = await start();
    await becomesLeader(a);
    const b = await start();
    expect(b.leader.isLeader).toBe(false);

    const op = await drains(b).start(aDrain('n-1'), meta);
    expect(op.status).toBe('pending');
    // The leader's pick-up comes within DRAIN_PICKUP_MS, not at the next scan tick (300 s here).
    await clock.step(DRAIN_PICKUP_MS);
    const started = await waitFor(async () => ((await operation(op.id))?.status !== 'pending' ? true : undefined), 'the leader to pick the drain up', 8_000);
    expect(started).toBe(true);
    await a.settled();
    await waitFor(async () => ((await operation(op.id))?.status === 'completed' ? true : undefined), 'the drain to complete', 10_000);
  }, 30_000);

  it('a drain whose first API calls fail retries within its deadline and then fails with a timeout, never stays pending', async () => {
    sim.load({ nodes: [aKubeNode('n-2', { readySince: new Date(clock.now().getTime() - 60 * MIN) })] });
    const a = await start();
    await becomesLeader(a);
    sim.faults.set({ rate500: 1 });
    // Recorded as `start` records it (the API is down, so not through `start`, which reads the node first).
    const id = await insertPendingDrain('n-2', clock.now());
    a.drains.enqueue(id);
    await a.settled();
    // Within the deadline the run keeps trying (and says why) instead of crashing.
    await waitFor(async () => (((await operation(id))?.progress.errors as string[] | undefined)?.length ? true : undefined), 'a recorded API error', 6_000);
    expect((await operation(id))?.status).toBe('pending');

    await clock.step(61_000);
    const ended = await waitFor(async () => {
      const o = await operation(id);
      return o?.status === 'failed' ? o : undefined;
    }, 'the drain to fail at its deadline', 8_000);
    expect(ended.reason).toBe('TIMEOUT_PODS_NOT_GONE');
    expect(ended.progress.message).toMatch(/timed out/);
  }, 30_000);

  it('an operation already past its deadline fails at once when a leader picks it up, though the API is down', async () => {
    sim.load({ nodes: [aKubeNode('n-3', { readySince: new Date(clock.now().getTime() - 60 * MIN) })] });
    const a = await start();
    await becomesLeader(a);
    sim.faults.set({ rate500: 1 });
    const id = await insertPendingDrain('n-3', new Date(clock.now().getTime() - 2 * MIN));
    a.drains.enqueue(id);
    const ended = await waitFor(async () => {
      const o = await operation(id);
      return o?.status === 'failed' ? o : undefined;
    }, 'the drain to fail', 8_000);
    expect(ended.reason).toBe('TIMEOUT_PODS_NOT_GONE');
  }, 30_000);

  it('a run whose operation someone else ended neither counts it nor clears the annotation of a newer drain', async () => {
    sim.load({
      nodes: [aKubeNode('n-4', { readySince: new Date(clock.now().getTime() - 60 * MIN) })],
      pods: [aKubePod('db-1', 'n-4', { labels: { app: 'db' } })],
      pdbs: [aKubePdb('db', { app: 'db', minAvailable: 1 })],
    });
    const a = await start();
    await becomesLeader(a);
    const first = await drains(a).start(aDrain('n-4', { timeoutSeconds: 60 }), meta);
    a.drains.enqueue(first.id);
    await waitFor(async () => (((await operation(first.id))?.progress.pdbWaits as number | undefined) ?? 0) >= 1 || undefined, 'the PDB to block the first drain', 6_000);

    // Someone else ends the first operation; a newer drain of the node starts and marks the node as its own.
    await db.query(`UPDATE nodes.drain_operations SET status = 'failed', reason = 'CORDON_FAILED', finished_at = $2 WHERE id = $1`, [first.id, clock.now()]);
    const second = await drains(a).start(aDrain('n-4'), meta);
    a.drains.enqueue(second.id);
    await waitFor(async () => ((await getNode(sim, 'n-4')).metadata.annotations?.['nodes-manager/drain-operation'] === second.id) || undefined, 'the newer drain to mark the node', 6_000);

    // The first drain's next step (at its next poll, well before its deadline) must find it over and leave everything alone.
    await clock.step(61_000);
    await a.settled();
    expect((await operation(first.id))?.reason).toBe('CORDON_FAILED');
    expect(await drainsTotal(a)).toBe(0);
    expect((await getNode(sim, 'n-4')).metadata.annotations?.['nodes-manager/drain-operation']).toBe(second.id);
  }, 30_000);
});
