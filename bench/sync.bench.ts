/**
 * node-sync benchmark: a simulated 5,000-node / 150,000-pod fleet (flags `--nodes N --pods N`), synced into a
 * fresh Postgres database by the real informers and NodeSyncService. Reports in one run, as JSON:
 *  - the first full sync (paged LIST of nodes and pods through the informers, then one cycle writing every row),
 *  - a resync in which nothing changed (full relist + cycle) and the rows it wrote (must be 0),
 *  - the same first write done row by row with TypeORM's `repository.save()`, and the ratio,
 *  - peak RSS and heap of this process while syncing (the simulator runs in a child process so that its own
 *    copy of the fleet does not count).
 * Needs Postgres at TEST_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 *   npm run build && node dist/bench/sync.bench.js [--nodes 5000] [--pods 150000] [--baseline-rows N]
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
import { entities, NodeEntity, PodEntity } from '../services/node-sync/src/adapters/outbound/entities.js';
import { KubeCache } from '../services/node-sync/src/adapters/outbound/kube-cache.adapter.js';
import { NodeSyncRepository } from '../services/node-sync/src/adapters/outbound/node-sync.repository.js';
import { planSync, workloadClassOf } from '../services/node-sync/src/domain/plan-sync.js';
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

  // 2. A resync in which nothing changed: full relist of both collections, then a cycle.
  const lists = cache.nodes.stats.lists + cache.pods.stats.lists;
  const t1 = performance.now();
  cache.nodes.resync();
  cache.pods.resync();
  while (cache.nodes.stats.lists + cache.pods.stats.lists < lists + 2) await new Promise((r) => setTimeout(r, 10));
  const relistMs = performance.now() - t1;
  const resync = await service.runCycle('resync');
  const resyncMs = performance.now() - t1;
  if (resync.skipped) throw new Error(`resync skipped: ${resync.skipped}`);
  clearInterval(sampler);
  sample();
  const [counts] = await ds.query(`SELECT (SELECT count(*) FROM nodes.nodes) AS nodes, (SELECT count(*) FROM nodes.pods) AS pods`);

  // 3. Baseline: the same rows written one by one with the TypeORM repository (a fresh set of tables).
  const plan = planSync({ nodes: cache.nodes.values(), pods: cache.pods.values(), storedNodes: new Map(), storedPods: new Map() });
  const baselineRows = Math.min(arg('baseline-rows', Infinity), plan.nodeWrites.length + plan.podWrites.length);
  await ds.query('TRUNCATE nodes.nodes, nodes.pods');
  const now = new Date('2026-01-15T12:00:00Z');
  const nodeRepo = ds.getRepository(NodeEntity);
  const podRepo = ds.getRepository(PodEntity);
  const t2 = performance.now();
  let saved = 0;
  for (const w of plan.nodeWrites) {
    if (saved >= baselineRows) break;
    const r = w.row;
    await nodeRepo.save(nodeRepo.create({
      id: crypto.randomUUID(), name: r.name, uid: r.uid, providerId: r.providerId, instanceId: r.instanceId, instanceType: r.instanceType,
      zone: r.zone, capacityType: r.capacityType, nodePool: r.nodePool, ready: r.ready, unschedulable: r.unschedulable, state: r.state,
      taints: [...r.taints], labels: { ...r.labels }, annotations: { ...r.annotations }, conditions: [...r.conditions],
      allocCpuMilli: String(r.allocatable.cpuMilli), allocMemoryBytes: String(r.allocatable.memoryBytes), allocGpu: r.allocatable.gpu,
      allocPods: r.allocatable.pods, reqCpuMilli: String(r.requested.cpuMilli), reqMemoryBytes: String(r.requested.memoryBytes),
      reqGpu: r.requested.gpu, podCount: r.podCount, contentHash: w.hash, resourceVersion: w.resourceVersion,
      k8sCreatedAt: r.createdAt ? new Date(r.createdAt) : null, firstSeenAt: now, lastSeenAt: now, changedAt: now, deletedAt: null,
    }));
    saved++;
  }
  for (const p of plan.podWrites) {
    if (saved >= baselineRows) break;
    const r = p.row;
    await podRepo.save(podRepo.create({
      uid: r.uid, namespace: r.namespace, name: r.name, nodeName: r.nodeName, phase: r.phase, ownerKind: r.ownerKind, ownerName: r.ownerName,
      workloadClass: workloadClassOf(r), qos: r.qos, cpuMilli: String(r.requests.cpuMilli), memoryBytes: String(r.requests.memoryBytes),
      gpu: r.gpu, hasPvc: r.hasPvc, hasLocalStorage: r.hasLocalStorage, mirror: r.mirror, daemonset: r.daemonset,
      labels: { ...r.labels }, annotations: { ...r.annotations }, contentHash: p.hash,
      k8sCreatedAt: r.createdAt ? new Date(r.createdAt) : null, firstSeenAt: now, changedAt: now, deletedAt: null,
    }));
    saved++;
  }
  const baselineMs = performance.now() - t2;
  const totalRows = first.rowsWritten.nodeRows + first.rowsWritten.podRows;
  const baselineFullMs = (baselineMs / saved) * totalRows;

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
    noChangeResync: { totalMs: round(resyncMs), relistMs: round(relistMs), cycleMs: resync.durationMs, rowsWritten: resync.rowsWritten },
    stored: { nodes: Number(counts.nodes), pods: Number(counts.pods) },
    baselineRepositorySave: {
      rowsSaved: saved,
      ms: round(baselineMs),
      rowsPerSecond: Math.round(saved / (baselineMs / 1000)),
      extrapolatedFullMs: round(baselineFullMs),
      ratioVsSetBasedCycle: Math.round((baselineFullMs / first.durationMs) * 10) / 10,
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
