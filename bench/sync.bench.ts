/**
 * node-sync benchmark: a simulated 5,000-node / 150,000-pod fleet (flags `--nodes N --pods N`), synced into a
 * fresh Postgres database by the real informers and NodeSyncService. Reports in one run, as JSON:
 *  - the first full sync (paged LIST of nodes and pods through the informers, then one cycle writing every row),
 *  - a no-change cycle (the periodic reconcile: the cache replayed and compared with the rows' hashes re-read from
 *    Postgres), the LIST requests it made and the rows it wrote (both must be 0), and its time against the first sync,
 *  - the baseline: the same rows loaded by a plain `COPY` into a staging table plus one `INSERT … SELECT … ON
 *    CONFLICT` merge per table, and node-sync's write rate against it,
 *  - peak RSS and heap of this process while syncing (the simulator runs in a child process so that its own
 *    copy of the fleet does not count).
 * Needs Postgres at TEST_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 *   npm run build && node dist/bench/sync.bench.js [--nodes 5000] [--pods 150000]
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import type { DataSource } from 'typeorm';
import { createDataSource, FakeClock, JsonLogger, Metrics, Outbox, runMigrations, type LeaderElector } from '@nodes-manager/platform';
import { createTestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startKubeSim } from '@nodes-manager/sim';
import { migrations } from '../migrations/node-sync/index.js';
import { entities } from '../services/node-sync/src/adapters/outbound/node-sync.entities.js';
import { KubeCache } from '../services/node-sync/src/adapters/outbound/kube-cache.adapter.js';
import { NodeSyncRepository } from '../services/node-sync/src/adapters/outbound/node-sync.repository.js';
import { planSync } from '../services/node-sync/src/domain/plan-sync.js';
import { copyFrom, copyTextFrom } from './support/copy-from.js';
import { POD_COPY_COLUMNS } from '../services/node-sync/src/adapters/outbound/pod-copy.mapper.js';
import { NodeSyncService } from '../services/node-sync/src/node-sync.service.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const NODES = arg('nodes', 5_000);
const PODS = arg('pods', 150_000);
const SEED = 42;

if (process.argv.includes('--serve-sim')) {
  // Child: the simulator with the fleet loaded; tells the parent its kubeconfig, then serves until killed.
  const sim = await startKubeSim({ bookmarkIntervalMs: 60_000 });
  // The generator caps pods per node by capacity and workload mix, so it is asked for ~10% more per node to reach
  // the target total (150,432 pods for 5,000 nodes at seed 1; the report gives the real count).
  sim.load(generateFleet({ seed: SEED, nodes: NODES, podsPerNode: Math.ceil((PODS / NODES) * 1.1) }));
  process.send!({ kubeconfig: sim.kubeconfigPath, nodes: sim.api.store.count({ group: '', plural: 'nodes' } as never), pods: sim.api.store.count({ group: '', plural: 'pods' } as never) });
  process.on('disconnect', () => void sim.stop().finally(() => process.exit(0)));
} else {
  await main();
}

/** copyAndMerge — COPY both row sets into session-local staging tables and merge each with one INSERT … ON CONFLICT. */
async function copyAndMerge(ds: DataSource, nodeCols: string[], podCols: string[], nodeRows: unknown[][], podLines: string[]): Promise<number> {
  const single = ds.createQueryRunner();
  await single.connect();
  try {
    const one = { createQueryRunner: () => ({ connect: async () => (single as unknown as { databaseConnection: unknown }).databaseConnection, release: async () => undefined }) } as unknown as DataSource;
    await single.query('CREATE TEMP TABLE IF NOT EXISTS nodes_stage (LIKE nodes.nodes INCLUDING DEFAULTS); CREATE TEMP TABLE IF NOT EXISTS pods_stage (LIKE nodes.pods INCLUDING DEFAULTS)');
    await copyFrom(one, 'nodes_stage', nodeCols, nodeRows);
    await copyTextFrom(one, 'pods_stage', podCols, podLines);
    const set = (cols: string[], key: string) => cols.filter((c) => c !== key && c !== 'first_seen_at').map((c) => `${c} = EXCLUDED.${c}`).join(', ');
    const n = await single.query(`INSERT INTO nodes.nodes (${nodeCols.join(', ')}) SELECT ${nodeCols.join(', ')} FROM nodes_stage ON CONFLICT (name) DO UPDATE SET ${set(nodeCols, 'name')}`, [], true);
    const p = await single.query(`INSERT INTO nodes.pods (${podCols.join(', ')}) SELECT ${podCols.join(', ')} FROM pods_stage ON CONFLICT (uid) DO UPDATE SET ${set(podCols, 'uid')}`, [], true);
    return ((n as { affected?: number }).affected ?? 0) + ((p as { affected?: number }).affected ?? 0);
  } finally {
    await single.release();
  }
}

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--serve-sim'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const simInfo = await new Promise<{ kubeconfig: string; nodes: number; pods: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as never));
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const db = await createTestDatabase('nm_bench_sync');
  const spec = { service: 'node-sync', url: db.url, entities, migrations };
  const ds: DataSource = createDataSource(spec);
  await ds.initialize();
  await runMigrations(ds, spec);

  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const sampler = setInterval(sample, 20);
  const baseline = process.memoryUsage();

  const kc = new k8s.KubeConfig();
  kc.loadFromFile(simInfo.kubeconfig);
  const logger = new JsonLogger('node-sync', 'warn');
  const cache = new KubeCache(kc, { pageSize: 500, resyncMs: 0, logger });
  const leader = { isLeader: true, stillLeader: async () => true } as unknown as LeaderElector;
  const repo = new NodeSyncRepository(ds);
  const service = new NodeSyncService(new FakeClock('2026-01-15T12:00:00Z'), logger, new Outbox('node-sync'), new Metrics(), repo, cache, leader);

  // 1. First full sync: LIST everything (paged, projected), then one cycle that writes every row.
  const t0 = performance.now();
  cache.start();
  await cache.waitForSync(600_000);
  const listMs = performance.now() - t0;
  const first = await service.runCycle('initial');
  const firstSyncMs = performance.now() - t0;
  sample();
  if (first.skipped) throw new Error(`first cycle skipped: ${first.skipped}`);

  // 2. A no-change cycle: the periodic reconcile (cache replay, no request) against the rows' hashes re-read from Postgres.
  const simStats = async (): Promise<{ byVerb: Record<string, number> }> => (await fetch(`${kc.getCurrentCluster()!.server}/_sim/stats`)).json() as never;
  const listsBefore = (await simStats()).byVerb['list'] ?? 0;
  const t1 = performance.now();
  cache.nodes.resync();
  cache.pods.resync();
  service.reconcileNext();
  const noChange = await service.runCycle('reconcile');
  const noChangeMs = performance.now() - t1;
  const noChangeLists = ((await simStats()).byVerb['list'] ?? 0) - listsBefore;
  if (noChange.skipped) throw new Error(`no-change cycle skipped: ${noChange.skipped}`);
  clearInterval(sampler);
  sample();
  const [counts] = await ds.query(`SELECT (SELECT count(*) FROM nodes.nodes) AS nodes, (SELECT count(*) FROM nodes.pods) AS pods`);

  // 3. Baseline: the same rows by COPY into staging tables and one INSERT … SELECT … ON CONFLICT merge each.
  const plan = planSync({ nodes: cache.nodes.values(), pods: cache.pods.values(), storedNodes: new Map(), storedPods: new Map() });
  await ds.query('TRUNCATE nodes.nodes, nodes.pods');
  const now = new Date('2026-01-15T12:00:00Z').toISOString();
  const NODE_COLS = ['name', 'uid', 'provider_id', 'instance_id', 'instance_type', 'zone', 'capacity_type', 'node_pool', 'ready', 'unschedulable', 'state', 'taints', 'labels', 'annotations', 'conditions', 'alloc_cpu_milli', 'alloc_memory_bytes', 'alloc_gpu', 'alloc_pods', 'req_cpu_milli', 'req_memory_bytes', 'req_gpu', 'pod_count', 'content_hash', 'resource_version', 'k8s_created_at', 'first_seen_at', 'last_seen_at', 'changed_at'];
  const POD_COLS = [...POD_COPY_COLUMNS, 'content_hash', 'first_seen_at', 'changed_at'];
  const t2 = performance.now();
  const nodeRows = plan.nodeWrites.map((w) => {
    const r = w.row;
    return [r.name, r.uid, r.providerId, r.instanceId, r.instanceType, r.zone, r.capacityType, r.nodePool, r.ready, r.unschedulable, r.state, r.taints, r.labels, r.annotations, r.conditions, r.allocatable.cpuMilli, r.allocatable.memoryBytes, r.allocatable.gpu, r.allocatable.pods, r.requested.cpuMilli, r.requested.memoryBytes, r.requested.gpu, r.podCount, w.hash, w.resourceVersion, r.createdAt, now, now, now];
  });
  const podLines = plan.podWrites.map((p) => `${p.row}\t${p.hash}\t${now}\t${now}\n`);
  // The staging tables are temporary: load and merge on one session.
  const copied = await copyAndMerge(ds, NODE_COLS, POD_COLS, nodeRows, podLines);
  const baselineMs = performance.now() - t2;
  const totalRows = first.rowsWritten.nodeRows + first.rowsWritten.podRows;
  const ourRate = totalRows / (first.durationMs / 1000);
  const baselineRate = copied / (baselineMs / 1000);

  const mb = (b: number) => Math.round(b / 1024 / 1024);
  const round = (ms: number) => Math.round(ms);
  console.log(JSON.stringify({
    fleet: { nodes: simInfo.nodes, pods: simInfo.pods, pageSize: 500 },
    firstSync: {
      totalMs: round(firstSyncMs),
      listMs: round(listMs),
      cycleMs: first.durationMs,
      rowsWritten: first.rowsWritten,
      rowsPerSecond: Math.round(totalRows / (first.durationMs / 1000)),
      informer: { nodes: cache.nodes.stats, pods: cache.pods.stats },
    },
    noChangeCycle: {
      totalMs: round(noChangeMs),
      listRequests: noChangeLists,
      rowsWritten: noChange.rowsWritten,
      shareOfFirstSync: Math.round((noChangeMs / firstSyncMs) * 1000) / 1000,
    },
    stored: { nodes: Number(counts.nodes), pods: Number(counts.pods) },
    baselineCopyMerge: {
      rows: copied,
      ms: round(baselineMs),
      rowsPerSecond: Math.round(baselineRate),
      nodeSyncRowsPerSecond: Math.round(ourRate),
      ratio: Math.round((ourRate / baselineRate) * 100) / 100,
    },
    memory: {
      before: { rssMb: mb(baseline.rss), heapMb: mb(baseline.heapUsed) },
      peak: { rssMb: mb(peakRss), heapMb: mb(peakHeap) },
      cacheRetained: { heapMb: mb(process.memoryUsage().heapUsed) },
    },
  }, null, 2));

  await cache.stop();
  await ds.destroy();
  await db.drop();
  child.disconnect();
  process.exit(0);
}
