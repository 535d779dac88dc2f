import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import type { CloudEvent } from '@nodes-manager/contracts';
import { createRuntime, FakeClock, RETENTION, type Retention, type Runtime } from '@nodes-manager/platform';
import { createTestDatabase, startTestApp, testEnv, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { testGatewayModule } from '../../../test/support/gateway.js';
import { loadNodeSyncConfig } from '../src/config.js';
import { NodeSyncModule } from '../src/node-sync.module.js';
import { NodeSyncController } from '../src/node-sync.controller.js';
import type { SyncCycleResult } from '../src/node-sync.service.js';
import { KUBE_CACHE } from '../src/tokens.js';
import type { KubeCache } from '../src/adapters/outbound/kube-cache.adapter.js';

jest.setTimeout(60_000);

const NODES = 30;
const fleet = generateFleet({ seed: 11, nodes: NODES, podsPerNode: 8 });
const names = fleet.nodes.map((n) => n.metadata!.name!).sort();
const [cordoned, flipped, removed] = [names[3]!, names[7]!, names[11]!];
const SCAN_MS = 60_000;
const DEBOUNCE_MS = 50;

/**
 * The runtime's clock: every timer of node-sync's controllers (the debounce, the reconcile every SCAN_INTERVAL_SECONDS,
 * back-off) is on it, and the test steps it. It starts at the wall clock's now because the purge compares it with
 * Postgres' now().
 */
const clock = new FakeClock(new Date());

let sim: KubeSim;
let db: TestDatabase;
let runtime: Runtime;
let app: INestApplication;
let url: string;
let loop: NodeSyncController;
let cache: KubeCache;
const events: CloudEvent[] = [];
const cycles: SyncCycleResult[] = [];

const nodeSyncEnv = (dbUrl: string) =>
  testEnv(dbUrl, { KUBECONFIG: sim.kubeconfigPath, SYNC_DEBOUNCE_MS: String(DEBOUNCE_MS), SYNC_PAGE_SIZE: '40', SCAN_INTERVAL_SECONDS: String(SCAN_MS / 1000) });

async function startNodeSync(dbUrl: string, withGateway: boolean) {
  const rt = createRuntime({ mode: 'all-in-one', logLevel: 'warn', leaderRetryMs: 200, clock });
  const imports = [NodeSyncModule.forRoot(loadNodeSyncConfig(nodeSyncEnv(dbUrl)))];
  @Module({ imports: withGateway ? [testGatewayModule(dbUrl), ...imports] : imports })
  class Root {}
  const started = await startTestApp({ service: 'api-gateway', module: { module: Root }, runtime: rt, transport: withGateway ? 'in-process' : 'none', ...(withGateway ? { httpPort: 0 } : {}) });
  return { ...started, runtime: rt, loop: started.app.get(NodeSyncController, { strict: false }), cache: started.app.get<KubeCache>(KUBE_CACHE, { strict: false }) };
}

/** seen — waits until the informers' cache holds what `probe` looks for (the watch delivers it over HTTP). */
const seen = (probe: (c: KubeCache) => boolean, what: string) => waitFor(() => probe(cache), `the cache to see ${what}`);

beforeAll(async () => {
  sim = await startKubeSim();
  sim.load(structuredClone(fleet));
  db = await createTestDatabase('nm_node_sync');
  const s = await startNodeSync(db.url, true);
  ({ app, runtime, loop, cache } = s);
  url = s.url!;
  runtime.eventBus!.tap((e) => events.push(e));
  loop.onCycle((r) => cycles.push(r));
});

afterAll(async () => {
  await app?.close();
  await sim?.stop();
  await db?.drop();
});

const api = async (path: string) => {
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${testToken('nodes:read')}` } });
  return { status: res.status, body: (await res.json()) as any };
};
const wroteSomething = (r: SyncCycleResult) => !r.skipped && r.rowsWritten.nodeRows + r.rowsWritten.podRows > 0;

describe('node-sync against the Kubernetes simulator and Postgres', () => {
  it('projects the generated fleet into nodes.nodes and nodes.pods on the first sync', async () => {
    await waitFor(async () => (await db.query<{ n: string }>('SELECT count(*) AS n FROM nodes.nodes'))[0]!.n === String(NODES), 'the first sync');
    const pods = await db.query<{ n: string }>('SELECT count(*) AS n FROM nodes.pods WHERE deleted_at IS NULL');
    expect(Number(pods[0]!.n)).toBe(fleet.pods.length);

    const raw = fleet.nodes.find((n) => n.metadata!.name === names[0])!;
    const labels = raw.metadata!.labels!;
    const [row] = await db.query<any>('SELECT * FROM nodes.nodes WHERE name = $1', [names[0]]);
    const bound = fleet.pods.filter((p) => p.spec!.nodeName === names[0] && !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''));
    expect(row).toMatchObject({
      uid: raw.metadata!.uid,
      provider_id: raw.spec!.providerID,
      instance_id: raw.spec!.providerID!.split('/').pop(),
      instance_type: labels['node.kubernetes.io/instance-type'],
      zone: labels['topology.kubernetes.io/zone'],
      capacity_type: labels['karpenter.sh/capacity-type'],
      node_pool: labels['karpenter.sh/nodepool'],
      ready: true,
      unschedulable: false,
      state: 'Ready',
      pod_count: bound.length,
      deleted_at: null,
    });
    expect(row.labels).toEqual(labels);
    expect(Number(row.alloc_pods)).toBe(Number(raw.status!.allocatable!['pods']));
    expect(Number(row.req_cpu_milli)).toBeGreaterThan(0);
    expect(row.conditions.find((c: any) => c.type === 'Ready')).toMatchObject({ status: 'True' });

    // The hash is over the projection; every written row got its events in the same transactions.
    await waitFor(() => events.filter((e) => e.type === 'node.added').length === NODES, 'a node.added per node');
    const synced = events.find((e) => e.type === 'nodes.synced')!;
    expect(synced.data).toMatchObject({ nodes: NODES });
    const [outbox] = await db.query<{ n: string }>(`SELECT count(*) AS n FROM nodes.outbox_node_sync WHERE type = 'node.added'`);
    expect(Number(outbox!.n)).toBe(NODES);
  });

  it('the periodic reconcile with nothing changed makes no request, writes zero rows and publishes nothing', async () => {
    await waitFor(() => loop.last && !loop.last.skipped && cycles.length > 0, 'a cycle');
    const [before] = await db.query<{ n: string }>('SELECT count(*) AS n FROM nodes.outbox_node_sync');
    const from = cycles.length;
    const requests = sim.stats().requests;
    await clock.step(SCAN_MS); // the reconcile's interval passes: its cycle runs, and the step waits for it
    expect(cycles.slice(from).some((c) => !c.skipped && c.trigger === 'reconcile')).toBe(true);
    for (const c of cycles.slice(from)) {
      expect(c).toMatchObject({ rowsWritten: { nodeRows: 0, podRows: 0 }, nodesAdded: 0, nodesChanged: 0, nodesRemoved: 0 });
    }
    const [after] = await db.query<{ n: string }>('SELECT count(*) AS n FROM nodes.outbox_node_sync');
    expect(after!.n).toBe(before!.n);
    expect(sim.stats().requests).toBe(requests);
    expect(cache.nodes.stats.lists).toBe(1);
  });

  it('the reconcile repairs rows changed or deleted behind its back, from the cache and without a LIST', async () => {
    const [victim, gone, pod] = [names[20]!, names[21]!, fleet.pods.find((p) => p.spec!.nodeName === names[22])!.metadata!.uid!];
    await db.query(`UPDATE nodes.nodes SET state = 'Bogus', unschedulable = true, content_hash = 'tampered' WHERE name = $1`, [victim]);
    await db.query(`DELETE FROM nodes.nodes WHERE name = $1`, [gone]);
    await db.query(`DELETE FROM nodes.pods WHERE uid = $1`, [pod]);
    const from = cycles.length;
    const eventsFrom = clock.now().toISOString();
    const lists = sim.stats().byVerb['list'] ?? 0;
    await clock.step(SCAN_MS);
    expect(cycles.slice(from).some((c) => !c.skipped && c.trigger === 'reconcile')).toBe(true);
    const c = cycles.slice(from).find((x) => !x.skipped && x.trigger === 'reconcile')!;
    expect(c).toMatchObject({ rowsWritten: { nodeRows: 2, podRows: 1 } });
    const rows = await db.query<{ name: string; state: string; unschedulable: boolean }>(`SELECT name, state, unschedulable FROM nodes.nodes WHERE name = ANY($1) ORDER BY name`, [[victim, gone]]);
    expect(rows).toEqual([{ name: victim, state: 'Ready', unschedulable: false }, { name: gone, state: 'Ready', unschedulable: false }].sort((x, y) => (x.name < y.name ? -1 : 1)));
    expect(await db.query(`SELECT uid FROM nodes.pods WHERE uid = $1 AND deleted_at IS NULL`, [pod])).toHaveLength(1);
    expect(sim.stats().byVerb['list'] ?? 0).toBe(lists);
    // The row deleted behind its back comes back as node.added, published by the outbox relay after the commit.
    await waitFor(() => events.some((e) => e.type === 'node.added' && e.subject === gone && e.time >= eventsFrom), 'node.added of the restored row');
  });

  it('a cordon, a Ready flip and a node deletion change exactly those rows and publish the right events', async () => {
    const from = events.length;
    const cyclesFrom = cycles.length;
    sim.scenario.cordonAsKubectl(cordoned);
    sim.scenario.setReady(flipped, false);
    sim.scenario.deleteNode(removed);
    await seen((c) => c.nodes.get(cordoned)?.row.unschedulable === true && c.nodes.get(flipped)?.row.ready === false && !c.nodes.get(removed), 'the three changes');

    // Nothing is written before the debounce has passed since the first change; at SYNC_DEBOUNCE_MS, all of it.
    await clock.step(DEBOUNCE_MS - 1);
    expect(cycles.slice(cyclesFrom).filter(wroteSomething)).toEqual([]);
    await clock.step(1);
    expect(cycles.slice(cyclesFrom).filter(wroteSomething)).toHaveLength(1);
    await waitFor(() => events.slice(from).some((e) => e.type === 'node.removed'), 'node.removed');
    const states = await db.query<any>('SELECT name, state FROM nodes.nodes WHERE name = ANY($1)', [[cordoned, flipped]]);
    expect(states.every((r) => r.state === (r.name === cordoned ? 'Cordoned' : 'NotReady'))).toBe(true);
    await waitFor(() => events.slice(from).filter((e) => e.type === 'node.changed').length >= 2, 'node.changed events');

    const rows = await db.query<any>('SELECT name, state, ready, unschedulable, deleted_at FROM nodes.nodes WHERE name = ANY($1) ORDER BY name', [[cordoned, flipped, removed]]);
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(byName[cordoned]).toMatchObject({ state: 'Cordoned', unschedulable: true, ready: true, deleted_at: null });
    expect(byName[flipped]).toMatchObject({ state: 'NotReady', ready: false, unschedulable: false, deleted_at: null });
    expect(byName[removed]).toMatchObject({ state: 'Deleted' });
    expect(byName[removed].deleted_at).not.toBeNull();

    const mine = events.slice(from);
    const changed = mine.filter((e) => e.type === 'node.changed') as CloudEvent<any>[];
    const cordonEv = changed.find((e) => e.subject === cordoned)!;
    expect(cordonEv.data.changed).toEqual(expect.arrayContaining(['unschedulable', 'state']));
    expect(cordonEv.data.after).toMatchObject({ unschedulable: true, state: 'Cordoned' });
    const flipEv = changed.find((e) => e.subject === flipped)!;
    expect(flipEv.data.changed).toEqual(expect.arrayContaining(['ready', 'state']));
    expect(flipEv.data.before).toMatchObject({ ready: true });
    expect(mine.find((e) => e.type === 'node.removed')).toMatchObject({ subject: removed, data: { name: removed, lastState: 'Ready' } });
    expect(mine.filter((e) => e.type === 'node.added')).toHaveLength(0);
    expect(mine.every((e) => e.actor === 'system:node-sync')).toBe(true);
    // Only the three nodes were written (pods did not change).
    const written = cycles.slice(cyclesFrom).reduce((n, c) => n + (c.skipped ? 0 : c.rowsWritten.nodeRows), 0);
    expect(written).toBe(3);
    expect(cycles.slice(cyclesFrom).reduce((n, c) => n + (c.skipped ? 0 : c.rowsWritten.podRows), 0)).toBe(0);
  });

  it('GET /api/v1/nodes pages through every live node in name order, with filters', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await api(`/api/v1/nodes?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((n: any) => n.name));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(names.filter((n) => n !== removed));
    expect(pages).toBe(Math.ceil((NODES - 1) / 7));

    const zone = fleet.nodes[0]!.metadata!.labels!['topology.kubernetes.io/zone']!;
    const byZone = await api(`/api/v1/nodes?zone=${zone}&limit=500`);
    const expectedZone = fleet.nodes.filter((n) => n.metadata!.labels!['topology.kubernetes.io/zone'] === zone && n.metadata!.name !== removed);
    expect(byZone.body.items.map((n: any) => n.name).sort()).toEqual(expectedZone.map((n) => n.metadata!.name).sort());

    const spot = await api('/api/v1/nodes?capacityType=spot&limit=500');
    expect(spot.body.items.length).toBeGreaterThan(0);
    expect(spot.body.items.every((n: any) => n.capacityType === 'spot')).toBe(true);

    expect((await api('/api/v1/nodes?state=Cordoned')).body.items.map((n: any) => n.name)).toEqual([cordoned]);
    expect((await api('/api/v1/nodes?state=NotReady')).body.items.map((n: any) => n.name)).toEqual([flipped]);
    expect((await api('/api/v1/nodes?state=Deleted')).body.items.map((n: any) => n.name)).toEqual([removed]);
    const all = await api('/api/v1/nodes?includeDeleted=true&limit=500');
    expect(all.body.items).toHaveLength(NODES);

    const desc = await api('/api/v1/nodes?sort=-name&limit=3');
    expect(desc.body.items.map((n: any) => n.name)).toEqual(names.filter((n) => n !== removed).reverse().slice(0, 3));

    // -created: newest first, the same order on every page.
    const byCreated: any[] = [];
    cursor = undefined;
    do {
      const r = await api(`/api/v1/nodes?sort=-created&limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      byCreated.push(...r.body.items);
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(byCreated).toHaveLength(NODES - 1);
    const keys = byCreated.map((n) => `${n.createdAt}|${n.name}`);
    expect(keys).toEqual([...keys].sort().reverse());
  });

  it.each([
    ['an unknown state', '/api/v1/nodes?state=Bogus'],
    ['a zero limit', '/api/v1/nodes?limit=0'],
    ['an unknown sort', '/api/v1/nodes?sort=zone'],
    ['an unknown parameter', '/api/v1/nodes?colour=blue'],
    ['a cursor that is not ours', '/api/v1/nodes?cursor=garbage'],
  ])('answers 400 for %s', async (_, path) => {
    const r = await api(path);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
  });

  it('GET /api/v1/nodes/{name} and /{id} answer the node with its running pods; an unknown node is 404', async () => {
    const name = names[0]!;
    const r = await api(`/api/v1/nodes/${name}`);
    expect(r.status).toBe(200);
    const bound = fleet.pods.filter((p) => p.spec!.nodeName === name && !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''));
    expect(r.body).toMatchObject({ name, state: 'Ready', podCount: bound.length });
    expect(r.body.pods.map((p: any) => p.uid).sort()).toEqual(bound.map((p) => p.metadata!.uid).sort());
    expect(r.body.pods[0]).toEqual(expect.objectContaining({ namespace: expect.any(String), workloadClass: expect.any(String), requests: expect.any(Object) }));

    const byId = await api(`/api/v1/nodes/${r.body.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.name).toBe(name);

    const missing = await api('/api/v1/nodes/no-such-node');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  it('answers readiness with the kube-cache check, and exports sync metrics', async () => {
    const r = await runtime.health.run('node-sync');
    expect(r.checks['node-sync.kube-cache']).toMatchObject({ ok: true });
    const text = await runtime.metrics.registry.metrics();
    expect(text).toMatch(/nodes_manager_node_sync_duration_seconds_count\{[^}]*\} [1-9]/);
    expect(text).toMatch(/nodes_manager_node_sync_rows_written_total\{[^}]*table="pods"[^}]*\} [1-9]/);
    expect(text).toMatch(/nodes_manager_nodes\{[^}]*state="Cordoned"[^}]*\} 1/);
  });

  it('the retention controller deletes pod rows deleted longer ago than DELETED_POD_RETENTION_HOURS, and keeps the rest', async () => {
    const insert = (uid: string, deletedHoursAgo: number) =>
      db.query(
        `INSERT INTO nodes.pods (uid, namespace, name, content_hash, first_seen_at, changed_at, deleted_at)
         VALUES ($1, 'default', $1, 'x', now(), now(), now() - ($2::float8 * interval '1 hour'))`,
        [uid, deletedHoursAgo],
      );
    await insert('purge-old', 48);
    await insert('purge-recent', 2);
    const live = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM nodes.pods WHERE deleted_at IS NULL`))[0]!.n;
    const due = (await db.query<{ uid: string }>(`SELECT uid FROM nodes.pods WHERE deleted_at < now() - interval '24 hours'`)).map((r) => r.uid);
    expect(due).toContain('purge-old');
    const retention = app.get<Retention>(RETENTION, { strict: false }).controller;
    await waitFor(() => retention.isActive, 'the retention lock');
    await retention.request('pods');
    await retention.settled();
    expect(await db.query(`SELECT uid FROM nodes.pods WHERE uid = ANY($1::text[])`, [due])).toEqual([]);
    const left = (await db.query<{ uid: string }>(`SELECT uid FROM nodes.pods WHERE uid LIKE 'purge-%'`)).map((r) => r.uid);
    expect(left).toEqual(['purge-recent']);
    expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM nodes.pods WHERE deleted_at IS NULL`))[0]!.n).toBe(live);
  });

  it('only the leader writes; a second replica takes over when the first stops', async () => {
    const second = await startNodeSync(db.url, false);
    try {
      await second.cache.waitForSync(20_000);
      await second.loop.request('probe');
      expect(second.loop.last).toEqual({ skipped: 'not-leader' });

      await app.close();
      app = undefined as never;
      await waitFor(() => second.loop.last && !second.loop.last.skipped, 'the second replica to lead', 20_000);
      sim.scenario.uncordonAs(cordoned, 'kubectl-uncordon');
      await waitFor(() => second.cache.nodes.get(cordoned)?.row.unschedulable === false, 'the second replica to see the uncordon');
      await clock.step(DEBOUNCE_MS);
      expect((await db.query<any>('SELECT state FROM nodes.nodes WHERE name = $1', [cordoned]))[0]!.state).toBe('Ready');
    } finally {
      await second.app.close();
    }
  });
});
