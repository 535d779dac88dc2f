import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CloudEvent } from '@nodes-manager/contracts';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { FakeClock } from '@nodes-manager/platform';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { api, becomesLeader, startUncordon, type UncordonApp, getNode } from './uncordon.harness.js';
import { aKubeNode, aKubePod, aKubePdb } from '@nodes-manager/kube/testing';

/*
 * Drains (docs/uncordon.md#drain) through the gateway: kubectl-drain semantics against the simulator (real Eviction API, PDB 429s,
 * pods that take 300 ms to go), real Postgres, and a restart in the middle of a drain — on a fake clock shared with
 * the simulator (its terminating pods included): the drains' polls, PDB retries and deadlines pass by `clock.step`.
 */
const clock = new FakeClock('2026-03-01T10:00:00Z');
const readySince = new Date(clock.now().getTime() - 3600_000);

describe('drain', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let app: UncordonApp;
  const events: CloudEvent[] = [];
  const start = async () => {
    const a = await startUncordon({ databaseUrl: db.url, kubeconfig: sim.kubeconfigPath, gateway: true, clock, env: { SCAN_INTERVAL_SECONDS: '3600' } });
    a.runtime.eventBus!.tap((e) => void events.push(e));
    await becomesLeader(a);
    return a;
  };
  const drain = (node: string, body: Record<string, unknown> = {}) => api(app.url!, `/api/v1/nodes/${node}/drain`, { method: 'POST', body });
  /** ended — steps the clock half a second at a time until the drain is over (at most ten simulated minutes). */
  const ended = async (id: string) => {
    for (let t = 0; t <= 600_000; t += 500) {
      await app.settled();
      const r = await api(app.url!, `/api/v1/drains/${id}`);
      if (r.body.status === 'completed' || r.body.status === 'failed') return r.body;
      await clock.step(500);
    }
    throw new Error(`drain ${id} did not end within ten simulated minutes`);
  };
  const podsOn = async (node: string): Promise<string[]> => {
    const res = (await fetch(`${sim.url}/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`).then((r) => r.json())) as { items: any[] };
    return res.items.map((p) => p.metadata.name).sort();
  };

  beforeAll(async () => {
    sim = await startKubeSim({ podTerminationMs: 300, clock: () => clock.now(), timers: clock });
    db = await createTestDatabase('nm_drain');
    sim.load({
      nodes: ['d-1', 'd-2', 'd-3', 'd-4', 'spare'].map((n) => aKubeNode(n, { readySince })),
      pods: [
        aKubePod('ds-agent', 'd-1', { owner: { kind: 'DaemonSet', name: 'agent' } }),
        aKubePod('static-proxy', 'd-1', { owner: 'mirror' }),
        aKubePod('web-1', 'd-1'),
        aKubePod('db-1', 'd-1', { labels: { app: 'db' } }),
        aKubePod('naked', 'd-2', { owner: 'none' }),
        aKubePod('cache-1', 'd-3', { labels: { app: 'cache' } }),
        aKubePod('queue-1', 'd-4', { labels: { app: 'queue' } }),
      ],
      pdbs: [aKubePdb('db', { app: 'db', minAvailable: 1 }), aKubePdb('cache', { app: 'cache', minAvailable: 1 }), aKubePdb('queue', { app: 'queue', minAvailable: 1 })],
    });
    app = await start();
  }, 40_000);

  afterAll(async () => {
    await app?.close();
    await sim?.stop();
    await db?.drop();
  });

  it('skips DaemonSet and mirror pods, waits on a PDB (429s) and completes when the budget allows', async () => {
    const res = await drain('d-1', { timeoutSeconds: 60 });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: expect.any(String), node: 'd-1', status: 'pending' });
    const id = res.body.id as string;

    const blocked = await waitFor(async () => {
      const r = await api(app.url!, `/api/v1/drains/${id}`);
      return r.body.progress?.pdbWaits >= 1 ? r.body : undefined;
    }, 'a PDB wait');
    expect(blocked.status).toBe('running');
    expect(blocked.progress.skipped).toEqual(
      expect.arrayContaining([{ pod: 'default/ds-agent', reason: 'DAEMONSET' }, { pod: 'default/static-proxy', reason: 'MIRROR' }]),
    );
    // Why the node is not drained yet is visible: a Warning Event on the Node naming the budget (once, not per
    // retry), and the gauge of nodes a PodDisruptionBudget holds.
    const pdbEvents = () => sim.objects('events').filter((e) => e.involvedObject?.name === 'd-1' && e.reason === 'DisruptionBlockedByPDB');
    await waitFor(() => pdbEvents().length > 0 || undefined, 'the DisruptionBlockedByPDB Event on d-1');
    expect(pdbEvents()[0]).toMatchObject({ type: 'Warning', message: expect.stringContaining('PodDisruptionBudget default/db') });
    const gauge = await app.runtime.metrics.registry.getSingleMetric('nodes_manager_pdb_blocked_nodes')!.get();
    expect(gauge.values).toContainEqual(expect.objectContaining({ labels: { service: 'uncordon', source: 'drain', pdb: 'default/db' }, value: 1 }));
    const node = await getNode(sim, 'd-1');
    expect(node.spec.unschedulable).toBe(true);
    expect(node.metadata.annotations['nodes-manager/drain-operation']).toBe(id);
    await clock.step(300);
    await waitFor(async () => !(await podsOn('d-1')).includes('web-1'), 'web-1 evicted');
    expect(await podsOn('d-1')).toEqual(['db-1', 'ds-agent', 'static-proxy']);

    // A second replica of the database elsewhere: the budget now allows one disruption.
    sim.load({ pods: [aKubePod('db-2', 'spare', { labels: { app: 'db' } })] });
    const done = await ended(id);
    expect(done).toMatchObject({ status: 'completed', progress: { podsLeft: 0 } });
    expect(pdbEvents()).toHaveLength(1);
    const gaugeAfter = await app.runtime.metrics.registry.getSingleMetric('nodes_manager_pdb_blocked_nodes')!.get();
    expect(gaugeAfter.values.filter((v) => v.labels['source'] === 'drain')).toEqual([]);
    expect(done.progress.outcomes).toEqual(
      expect.arrayContaining([
        { pod: 'default/web-1', outcome: 'EVICTED' },
        { pod: 'default/db-1', outcome: 'EVICTED' },
        { pod: 'default/ds-agent', outcome: 'SKIPPED_DAEMONSET' },
        { pod: 'default/static-proxy', outcome: 'SKIPPED_MIRROR' },
      ]),
    );
    expect(await podsOn('d-1')).toEqual(['ds-agent', 'static-proxy']);
    const after = await getNode(sim, 'd-1');
    expect(after.spec.unschedulable).toBe(true);
    expect(after.metadata.annotations?.['nodes-manager/drain-operation']).toBeUndefined();

    const rows = await db.query<{ action: string; operation_id: string }>(`SELECT action, operation_id FROM nodes.scaling_events WHERE node_name = 'd-1' ORDER BY created_at`);
    expect(rows.map((r) => r.action)).toEqual(['drain.started', 'drain.completed']);
    await waitFor(() => events.some((e) => e.type === 'node.drain.completed' && e.subject === 'd-1'), 'node.drain.completed');
    // A drain through the API is also recorded as an executed approval of kind drain (docs/approvals.md), at once.
    expect(events.filter((e) => e.subject === 'd-1').map((e) => e.type)).toEqual(['approval.approved', 'approval.executed', 'node.drain.started', 'node.drain.completed']);

    // The node's latest drain is readable by node (what a node view shows); our cordon is never auto-reversed.
    const cordons = await api(app.url!, '/api/v1/cordons');
    expect(cordons.body.items.find((c: any) => c.node === 'd-1')).toMatchObject({ decision: 'skip', reason: 'CORDONED_BY_OTHER_MANAGER', evidence: { cordonManagerKind: 'nodes-manager' } });
  }, 40_000);

  it('refuses a pod without a controller unless forced, and fails with a reason', async () => {
    const res = await drain('d-2');
    const done = await ended(res.body.id);
    expect(done).toMatchObject({ status: 'failed', reason: 'PODS_REFUSED', progress: { refused: [{ pod: 'default/naked', reason: 'NO_CONTROLLER' }] } });
    expect(await podsOn('d-2')).toEqual(['naked']);
    await waitFor(() => events.some((e) => e.type === 'node.drain.failed' && e.subject === 'd-2'), 'node.drain.failed');

    const forced = await drain('d-2', { force: true });
    expect(await ended(forced.body.id)).toMatchObject({ status: 'completed' });
    expect(await podsOn('d-2')).toEqual([]);
  }, 30_000);

  it('fails at the timeout while a PDB still refuses, and answers 404 / 409 where it should', async () => {
    const res = await drain('d-3', { timeoutSeconds: 2 });
    const again = await drain('d-3');
    // The answer a client that asks again (after a 504) relies on: the drain already recorded, by its id.
    expect([again.status, again.body.code, again.body.details?.operationId]).toEqual([409, 'CONFLICT', res.body.id]);
    const done = await ended(res.body.id);
    expect(done).toMatchObject({ status: 'failed', reason: 'TIMEOUT_BLOCKED_BY_PDB' });
    expect(done.progress.outcomes).toEqual([{ pod: 'default/cache-1', outcome: 'BLOCKED_BY_PDB' }]);
    expect((await drain('no-such-node')).status).toBe(404);
  }, 30_000);

  it('a drain interrupted by a restart is resumed by the next leader', async () => {
    const res = await drain('d-4', { timeoutSeconds: 60 });
    const id = res.body.id as string;
    await waitFor(async () => (await api(app.url!, `/api/v1/drains/${id}`)).body.progress?.pdbWaits >= 1, 'a PDB wait');
    await app.close();
    const [row] = await db.query<{ status: string }>(`SELECT status FROM nodes.drain_operations WHERE id = $1`, [id]);
    expect(row?.status).toBe('running');

    sim.load({ pods: [aKubePod('queue-2', 'spare', { labels: { app: 'queue' } })] });
    app = await start();
    const done = await ended(id);
    expect(done).toMatchObject({ status: 'completed', progress: { resumed: 1 } });
    expect(await podsOn('d-4')).toEqual([]);
  }, 40_000);
});
