import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { EventTypes } from '@nodes-manager/contracts';
import { createDataSource, makeEvent, Outbox, runMigrations } from '@nodes-manager/platform';
import { createTestDatabase, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet } from '@nodes-manager/sim';
import { migrations } from '../../../migrations/node-sync/index.js';
import { entities } from '../src/adapters/outbound/node-sync.entities.js';
import { toLiveNode, toLivePod } from '../src/adapters/outbound/kube-cache.adapter.js';
import { NodeSyncRepository, type StoreBatches } from '../src/adapters/outbound/node-sync.repository.js';
import { planSync, type SyncPlan } from '../src/domain/plan-sync.js';

/**
 * The first write in batches (docs/node-sync.md#a-sync-cycle): the COPY stream built a few lines at a time and the
 * outbox written a few events per statement give exactly the rows and events of one batch holding everything — with
 * batch boundaries inside every table, and values that COPY's text format must escape — and the stored state read
 * back a few rows at a time is the whole store.
 */

const NOW = new Date('2026-01-15T12:00:00.000Z');
/** Every character COPY's text format or JSON escapes, and some that neither does. */
const ODD = 'tab\there "quoted" back\\slash\nnew line\r\\N é ✓';
const fleet = generateFleet({ seed: 5, nodes: 23, podsPerNode: 6 });
fleet.nodes[4]!.metadata!.labels!['example.com/odd'] = ODD;
fleet.nodes[4]!.metadata!.annotations = { ...fleet.nodes[4]!.metadata!.annotations, 'example.com/odd': ODD };
fleet.pods[9]!.metadata!.labels = { ...fleet.pods[9]!.metadata!.labels, 'example.com/odd': ODD };
const nodes = fleet.nodes.map(toLiveNode);
const pods = fleet.pods.map((p) => toLivePod(p));
const firstPlan = (): SyncPlan => planSync({ nodes, pods, storedNodes: new Map(), storedPods: new Map() });

interface Store {
  db: TestDatabase;
  ds: DataSource;
  repo: NodeSyncRepository;
  outbox: Outbox;
}
const stores: Store[] = [];
async function storeWith(batches: StoreBatches, outboxStatementEvents: number): Promise<Store> {
  const db = await createTestDatabase('nm_node_sync_repo');
  const spec = { service: 'node-sync' as const, url: db.url, entities, migrations };
  const ds = createDataSource(spec);
  await ds.initialize();
  await runMigrations(ds, spec);
  const store = { db, ds, repo: new NodeSyncRepository(ds, batches), outbox: new Outbox('node-sync', { statementEvents: outboxStatementEvents }) };
  stores.push(store);
  return store;
}

/** write — the plan with its events (one per planned event, then the cycle's summary) in one transaction. */
const write = (s: Store, plan: SyncPlan) =>
  s.repo.write(
    plan,
    (written) => [
      ...plan.events.map((e) => makeEvent('node-sync', e.type, e.data, NOW, { subject: e.subject })),
      makeEvent('node-sync', EventTypes.nodesSynced, { written }, NOW),
    ],
    s.outbox,
    NOW,
  );

/** dump — every row of both tables (the generated id left out) and the outbox's events in order. */
async function dump(s: Store) {
  return {
    nodes: (await s.db.query<{ r: unknown }>(`SELECT to_jsonb(n) - 'id' AS r FROM nodes.nodes n ORDER BY name`)).map((x) => x.r),
    pods: (await s.db.query<{ r: unknown }>(`SELECT to_jsonb(p) AS r FROM nodes.pods p ORDER BY uid`)).map((x) => x.r),
    events: (await s.db.query<{ type: string; subject: string | null }>(`SELECT type, payload->>'subject' AS subject FROM nodes.outbox_node_sync ORDER BY seq`)),
  };
}

let whole: Store;
let batched: Store;
beforeAll(async () => {
  const all = nodes.length + pods.length + 100;
  whole = await storeWith({ copy: all, read: all }, all);
  batched = await storeWith({ copy: 7, read: 5 }, 3);
});
afterAll(async () => {
  for (const s of stores) {
    await s.ds.destroy();
    await s.db.drop();
  }
});

describe('the first write, batched', () => {
  it('writes every row once, whatever the batch', async () => {
    const plan = firstPlan();
    expect(plan.nodeWrites).toHaveLength(23);
    expect(plan.podWrites.length).toBeGreaterThan(3 * 7);
    const expected = { nodeRows: plan.nodeWrites.length, podRows: plan.podWrites.length };
    expect(await write(whole, plan)).toEqual(expected);
    expect(await write(batched, firstPlan())).toEqual(expected);
  });

  it('gives exactly the rows and events of one batch holding everything, boundaries inside every table', async () => {
    const [a, b] = [await dump(whole), await dump(batched)];
    expect(b.nodes).toEqual(a.nodes);
    expect(b.pods).toEqual(a.pods);
    expect(b.events).toEqual(a.events);
    expect(b.events).toHaveLength(firstPlan().events.length + 1);
  });

  it('keeps every value as the cluster has it, escaping included', async () => {
    const [row] = await batched.db.query<any>(`SELECT * FROM nodes.nodes WHERE name = $1`, [fleet.nodes[4]!.metadata!.name]);
    const w = firstPlan().nodeWrites.find((n) => n.row.name === row.name)!;
    expect(row).toMatchObject({
      uid: w.row.uid, provider_id: w.row.providerId, instance_id: w.row.instanceId, instance_type: w.row.instanceType, zone: w.row.zone,
      capacity_type: w.row.capacityType, node_pool: w.row.nodePool, ready: w.row.ready, unschedulable: w.row.unschedulable, state: w.row.state,
      taints: w.row.taints, labels: w.row.labels, annotations: w.row.annotations, conditions: w.row.conditions,
      alloc_cpu_milli: String(Math.round(w.row.allocatable.cpuMilli)), alloc_memory_bytes: String(Math.round(w.row.allocatable.memoryBytes)),
      alloc_gpu: w.row.allocatable.gpu, alloc_pods: w.row.allocatable.pods, req_cpu_milli: String(Math.round(w.row.requested.cpuMilli)),
      req_memory_bytes: String(Math.round(w.row.requested.memoryBytes)), req_gpu: w.row.requested.gpu, pod_count: w.row.podCount,
      content_hash: w.hash, resource_version: w.resourceVersion, k8s_created_at: w.row.createdAt ? new Date(w.row.createdAt) : null,
      first_seen_at: NOW, last_seen_at: NOW, changed_at: NOW, deleted_at: null,
    });
    expect(row.labels['example.com/odd']).toBe(ODD);
    expect(row.annotations['example.com/odd']).toBe(ODD);
    const [pod] = await batched.db.query<any>(`SELECT labels FROM nodes.pods WHERE uid = $1`, [fleet.pods[9]!.metadata!.uid]);
    expect(pod.labels['example.com/odd']).toBe(ODD);
  });

  it.each([
    ['one batch', () => whole],
    ['batches of 7 lines and 3 events, read back 5 pods at a time', () => batched],
  ])('after %s, the store equals the cluster: the next plan writes nothing, and one label changed writes one node row', async (_, store) => {
    const s = store();
    const stored = await s.repo.loadStored();
    const same = planSync({ nodes, pods, storedNodes: stored.nodes, storedPods: stored.pods });
    expect([same.nodeWrites, same.nodeRemovals, same.podWrites, same.podRemovals]).toEqual([[], [], [], []]);
    const relabelled = nodes.map((n, i) => (i === 2 ? { ...n, row: { ...n.row, labels: { ...n.row.labels, team: s === whole ? 'a' : 'b' } } } : n));
    const plan = planSync({ nodes: relabelled, pods, storedNodes: stored.nodes, storedPods: stored.pods });
    expect(await write(s, plan)).toEqual({ nodeRows: 1, podRows: 0 });
  });
});
