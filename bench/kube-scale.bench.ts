/**
 * Scaling of the watching services: for each fleet size (`--sizes 1000,5000,20000` nodes, `--pods-per-node 30`) the
 * Kubernetes simulator runs in its own process, and each service's cluster access runs in another, so that the peak
 * RSS measured is that service's alone:
 *  - node-sync: its informers (nodes, pods) and one sync cycle into a fresh Postgres database; no-change cycle = the
 *    periodic reconcile (cache replay + the rows' hashes re-read);
 *  - uncordon: its node informer; no-change cycle = the scan over the cached nodes for cordons;
 *  - scheduler-scoring: its five informers; no-change cycle = one cluster snapshot (what a scoring pass reads).
 * Each reports first-sync time (LIST of everything + the first cycle), the no-change cycle's time, the LIST requests it
 * made (must be 0) and the peak RSS. Prints one JSON table.
 *   npm run build && node dist/bench/kube-scale.bench.js [--sizes 1000,5000,20000] [--pods-per-node 30]
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { createDataSource, FakeClock, JsonLogger, Metrics, Outbox, runMigrations, type LeaderElector } from '@nodes-manager/platform';
import { createTestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startKubeSim } from '@nodes-manager/sim';
import { migrations } from '../migrations/node-sync/index.js';
import { entities } from '../services/node-sync/src/adapters/outbound/node-sync.entities.js';
import { KubeCache } from '../services/node-sync/src/adapters/outbound/kube-cache.adapter.js';
import { NodeSyncRepository } from '../services/node-sync/src/adapters/outbound/node-sync.repository.js';
import { NodeSyncService } from '../services/node-sync/src/node-sync.service.js';
import { InformerNodeSource } from '../services/uncordon/src/adapters/outbound/node-source.adapter.js';
import { InformerClusterCache } from '../services/scheduler-scoring/src/adapters/outbound/cluster-cache.adapter.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const SERVICES = ['node-sync', 'uncordon', 'scheduler-scoring'] as const;
type Service = (typeof SERVICES)[number];
interface Result {
  service: Service;
  firstSyncMs: number;
  noChangeMs: number;
  noChangeLists: number;
  peakRssMb: number;
}

const role = arg('role', 'main');
if (role === 'sim') {
  const nodes = Number(arg('nodes', '1000'));
  const sim = await startKubeSim({ bookmarkIntervalMs: 60_000 });
  sim.load(generateFleet({ seed: 42, nodes, podsPerNode: Number(arg('pods-per-node', '30')) }));
  process.send!({ kubeconfig: sim.kubeconfigPath, pods: sim.api.store.count({ group: '', plural: 'pods' } as never) });
  process.on('disconnect', () => void sim.stop().finally(() => process.exit(0)));
} else if (role === 'main') {
  await main();
} else {
  process.send!(await measure(role as Service, arg('kubeconfig', '')));
  process.exit(0);
}

function child(args: string[]): Promise<{ proc: ReturnType<typeof fork>; first: any }> {
  const proc = fork(fileURLToPath(import.meta.url), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--max-old-space-size=8192'] });
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve({ proc, first: m }));
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  const sizes = arg('sizes', '1000,5000,20000').split(',').map(Number);
  const table: Record<string, unknown>[] = [];
  for (const nodes of sizes) {
    const sim = await child(['--role', 'sim', '--nodes', String(nodes), '--pods-per-node', arg('pods-per-node', '30')]);
    for (const service of SERVICES) {
      const r = (await child(['--role', service, '--kubeconfig', sim.first.kubeconfig])).first as Result;
      table.push({ nodes, pods: sim.first.pods, ...r });
      console.error(JSON.stringify(table.at(-1)));
    }
    sim.proc.disconnect();
  }
  console.log(JSON.stringify({ podsPerNode: Number(arg('pods-per-node', '30')), table }, null, 2));
}

async function measure(service: Service, kubeconfig: string): Promise<Result> {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const logger = new JsonLogger(service, 'error');
  const stats = async (): Promise<{ byVerb: Record<string, number> }> => {
    // A kept-alive connection the simulator closed meanwhile fails once: ask again on a fresh one.
    for (let attempt = 0; ; attempt++) {
      try {
        return (await (await fetch(`${kc.getCurrentCluster()!.server}/_sim/stats`, { headers: { connection: 'close' } })).json()) as never;
      } catch (err) {
        if (attempt >= 2) throw err;
      }
    }
  };
  const lists = async (): Promise<number> => (await stats()).byVerb['list'] ?? 0;
  const t0 = performance.now();
  let firstSyncMs: number;
  let noChange: () => Promise<void>;
  let stop: () => Promise<void>;
  if (service === 'node-sync') {
    const db = await createTestDatabase('nm_bench_scale');
    const spec = { service: 'node-sync', url: db.url, entities, migrations };
    const ds = createDataSource(spec);
    await ds.initialize();
    await runMigrations(ds, spec);
    const cache = new KubeCache(kc, { pageSize: 500, resyncMs: 0, logger });
    const leader = { isLeader: true, stillLeader: async () => true } as unknown as LeaderElector;
    const svc = new NodeSyncService(new FakeClock('2026-01-15T12:00:00Z'), logger, new Outbox('node-sync'), new Metrics(), new NodeSyncRepository(ds), cache, leader);
    cache.start();
    await cache.waitForSync(1_800_000);
    await svc.runCycle('initial');
    firstSyncMs = performance.now() - t0;
    noChange = async () => {
      cache.nodes.resync();
      cache.pods.resync();
      svc.reconcileNext();
      const r = await svc.runCycle('reconcile');
      if (!r.skipped && r.rowsWritten.nodeRows + r.rowsWritten.podRows > 0) throw new Error('a no-change cycle wrote rows');
    };
    stop = async () => {
      await cache.stop();
      await ds.destroy();
      await db.drop();
    };
  } else if (service === 'uncordon') {
    const source = new InformerNodeSource(kc, logger, {}, 1_800_000);
    await source.start();
    source.list().filter((n) => n.spec?.unschedulable === true);
    firstSyncMs = performance.now() - t0;
    noChange = async () => {
      source.list().filter((n) => n.spec?.unschedulable === true);
    };
    stop = () => source.stop();
  } else {
    const cache = new InformerClusterCache(kc, { logger });
    cache.start();
    await cache.waitForSync(1_800_000);
    cache.snapshot();
    firstSyncMs = performance.now() - t0;
    noChange = async () => {
      cache.snapshot();
    };
    stop = () => cache.stop();
  }
  const before = await lists();
  const t1 = performance.now();
  await noChange();
  const noChangeMs = performance.now() - t1;
  const noChangeLists = (await lists()) - before;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  await stop();
  return { service, firstSyncMs: Math.round(firstSyncMs), noChangeMs: Math.round(noChangeMs), noChangeLists, peakRssMb: Math.round(peak / 1048576) };
}
