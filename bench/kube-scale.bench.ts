/**
 * Scaling of the watching services (docs/benchmarks.md#scaling-of-the-watching-services). For each fleet size the
 * Kubernetes simulator runs in its own process (the fleet generated in batches, never held whole), and each service's
 * cluster access runs in another, once listing by WatchList and once by paged LIST, so that the peak RSS measured is
 * that service's alone:
 *  - node-sync: its informers (nodes, pods) and one sync cycle into a fresh Postgres database (COPY + one merge per
 *    table); no-change cycle = the periodic reconcile (cache replay + the rows' hashes re-read);
 *  - uncordon: its node informer; no-change cycle = the scan over the cached nodes for cordons;
 *  - scheduler-scoring: its five informers; no-change cycle = one cluster snapshot; plus one consolidation plan.
 * Each row reports the first sync (every list plus the first cycle), the no-change cycle, the peak RSS, the cache's
 * heap and bytes per cached node and pod, and the requests the API server answered by verb with the bytes it sent, at
 * start and during the no-change cycle. Pods per node: 30 up to 20,000 nodes, 10 above (`--pods-per-node N` forces).
 *
 * Resumable: each (size, list mode, service) row is written to `--out` (default bench-results/kube-scale) as it is
 * measured, and a run skips the rows already there (`--fresh` starts over). Prints the whole table as JSON and as the
 * Markdown of docs/benchmarks.md.
 *   npm run build && node dist/bench/kube-scale.bench.js [--sizes 1000,5000,20000,50000,100000] [--modes watchlist,list]
 *     [--services node-sync,uncordon,scheduler-scoring] [--out DIR] [--fresh]
 */
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import { createDataSource, FakeClock, JsonLogger, Metrics, Outbox, runMigrations, type LeaderElector } from '@nodes-manager/platform';
import { createTestDatabase } from '@nodes-manager/platform/testing';
import { planConsolidation } from '@nodes-manager/scoring';
import { generateFleet, startKubeSim, type Stats } from '@nodes-manager/sim';
import { priceTable } from '../libs/scoring/src/testing/prices.js';
import { migrations } from '../migrations/node-sync/index.js';
import { entities } from '../services/node-sync/src/adapters/outbound/node-sync.entities.js';
import { KubeCache, toLiveNode } from '../services/node-sync/src/adapters/outbound/kube-cache.adapter.js';
import { NodeSyncRepository } from '../services/node-sync/src/adapters/outbound/node-sync.repository.js';
import { NodeSyncService } from '../services/node-sync/src/node-sync.service.js';
import { InformerNodeSource } from '../services/uncordon/src/adapters/outbound/node-source.adapter.js';
import { projectUncordonNode } from '../services/uncordon/src/adapters/outbound/node-projection.mapper.js';
import { InformerClusterCache } from '../services/scheduler-scoring/src/adapters/outbound/cluster-cache.adapter.js';
import { projectNode as projectScoringNode } from '../services/scheduler-scoring/src/adapters/outbound/kube-projection.mapper.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const SERVICES = ['node-sync', 'uncordon', 'scheduler-scoring'] as const;
type Service = (typeof SERVICES)[number];
type Mode = 'watchlist' | 'list';
const MiB = 1048576;

/** Requests and bytes by verb, as the API server counted them. */
interface Traffic {
  requests: Record<string, number>;
  bytes: Record<string, number>;
}
interface Result {
  service: Service;
  mode: Mode;
  firstSyncMs: number;
  noChangeMs: number;
  planMs?: number;
  peakRssMb: number;
  cacheMb: number;
  bytesPerNode: number;
  bytesPerPod?: number;
  atStart: Traffic;
  noChange: Traffic;
  fellBack: boolean;
  /** Per phase (the lists, node-sync's first cycle, the no-change cycle): its time and the peak RSS within it, with the heap and off-heap memory at that peak. */
  phases?: Record<string, PhasePeak>;
}
interface PhasePeak {
  ms: number;
  /** CPU time of the service's own process in the phase (user + system): what it spent, not what it waited for. */
  cpuMs: number;
  peakRssMb: number;
  heapMb: number;
  externalMb: number;
}
interface Row extends Result {
  nodes: number;
  pods: number;
  podsPerNode: number;
}

const podsPerNodeFor = (nodes: number): number => Number(arg('pods-per-node', nodes > 20_000 ? '10' : '30'));

const role = arg('role', 'main');
if (role === 'sim') await serveSim();
else if (role === 'main') await main();
else {
  process.send!(await measure(role as Service, arg('mode', 'watchlist') as Mode, arg('kubeconfig', ''), Number(arg('nodes', '0')), Number(arg('pods', '0'))));
  process.exit(0);
}

/** serveSim — the simulator with the fleet loaded batch by batch; tells the parent its kubeconfig, then serves. */
async function serveSim(): Promise<void> {
  const nodes = Number(arg('nodes', '1000'));
  const t0 = performance.now();
  const sim = await startKubeSim({ bookmarkIntervalMs: 60_000, kubelet: false });
  let pods = 0;
  const fleet = generateFleet({ seed: 42, nodes, podsPerNode: podsPerNodeFor(nodes), podSink: (batch) => {
    pods += batch.length;
    sim.loadPods(batch);
  } });
  sim.load(fleet);
  const loadMs = Math.round(performance.now() - t0);
  (globalThis as { gc?: () => void }).gc?.();
  process.send!({ kubeconfig: sim.kubeconfigPath, nodes: fleet.nodes.length, pods, loadMs, rssMb: Math.round(process.memoryUsage().rss / MiB) });
  process.on('message', (m: { watchList?: 'serve' | 'refuse' }) => {
    if (m.watchList) sim.setWatchList(m.watchList);
    process.send!({ ok: true });
  });
  process.on('disconnect', () => void sim.stop().finally(() => process.exit(0)));
}

function child(args: string[], heapMb: number, flags: string[] = []): Promise<{ proc: ReturnType<typeof fork>; first: any }> {
  const proc = fork(fileURLToPath(import.meta.url), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [`--max-old-space-size=${heapMb}`, '--expose-gc', ...flags] });
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve({ proc, first: m }));
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  // V8 flags for each service's process, as a deployment would set them in NODE_OPTIONS (`--service-flags "--max-semi-space-size=64"`).
  const serviceFlags = arg('service-flags', '').split(' ').filter(Boolean);
  const sizes = arg('sizes', '1000,5000,20000,50000,100000').split(',').map(Number);
  const modes = arg('modes', 'watchlist,list').split(',') as Mode[];
  const services = arg('services', SERVICES.join(',')).split(',') as Service[];
  const out = arg('out', 'bench-results/kube-scale');
  if (process.argv.includes('--fresh')) rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const file = (nodes: number, mode: Mode, service: Service) => join(out, `${nodes}-${mode}-${service}.json`);
  const sims: Record<string, unknown>[] = [];
  for (const nodes of sizes) {
    const todo = modes.flatMap((mode) => services.map((service) => ({ mode, service }))).filter((t) => !existsSync(file(nodes, t.mode, t.service)));
    if (todo.length === 0) continue;
    const sim = await child(['--role', 'sim', '--nodes', String(nodes), ...(process.argv.includes('--pods-per-node') ? ['--pods-per-node', arg('pods-per-node', '30')] : [])], 16_384, ['--max-semi-space-size=64']);
    sims.push({ nodes, ...sim.first });
    writeFileSync(join(out, `${nodes}-simulator.json`), JSON.stringify({ nodes, ...sim.first }));
    console.error(JSON.stringify({ simulator: sim.first }));
    for (const { mode, service } of todo) {
      await new Promise<void>((resolve) => {
        sim.proc.once('message', () => resolve());
        sim.proc.send({ watchList: 'serve' });
      });
      const r = (await child(['--role', service, '--mode', mode, '--kubeconfig', sim.first.kubeconfig, '--nodes', String(sim.first.nodes), '--pods', String(sim.first.pods)], 8_192, serviceFlags)).first as Result;
      const row: Row = { nodes: sim.first.nodes, pods: sim.first.pods, podsPerNode: podsPerNodeFor(nodes), ...r };
      writeFileSync(file(nodes, mode, service), JSON.stringify(row));
      console.error(JSON.stringify(row));
    }
    sim.proc.disconnect();
    await new Promise((r) => sim.proc.once('exit', r));
  }
  const rows: Row[] = sizes.flatMap((n) => modes.flatMap((m) => services.map((s) => file(n, m, s)))).filter(existsSync).map((f) => JSON.parse(readFileSync(f, 'utf8')) as Row);
  const simulators = sizes.map((n) => join(out, `${n}-simulator.json`)).filter(existsSync).map((f) => JSON.parse(readFileSync(f, 'utf8')));
  console.log(JSON.stringify({ simulators, rows }, null, 2));
  console.log(markdown(rows));
}

/** markdown — the scaling table of docs/benchmarks.md. */
function markdown(rows: Row[]): string {
  const n = (v: number | undefined) => (v === undefined ? '—' : v.toLocaleString('en-US'));
  const s = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`);
  const mb = (b: number) => (b >= 10 * MiB ? `${n(Math.round(b / MiB))} MB` : `${(b / MiB).toFixed(1)} MB`);
  const traffic = (t: Traffic) => `${n(t.requests.list ?? 0)} LIST, ${n(t.requests.watch ?? 0)} WATCH; ${mb((t.bytes.list ?? 0) + (t.bytes.watch ?? 0))}`;
  const lines = [
    '| nodes | pods | service | lists by | first sync | no-change cycle | peak RSS | cache | bytes per node / pod | at start: requests; bytes sent | no-change cycle: requests |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${n(r.nodes)} | ${n(r.pods)} | ${r.service} | ${r.mode === 'watchlist' ? 'WatchList' : 'paged LIST'} | ${s(r.firstSyncMs)}${r.planMs !== undefined ? ` (plan ${s(r.planMs)})` : ''} | ${s(r.noChangeMs)} | ${n(r.peakRssMb)} MB | ${n(r.cacheMb)} MB | ${n(r.bytesPerNode)}${r.bytesPerPod !== undefined ? ` / ${n(r.bytesPerPod)}` : ''} | ${traffic(r.atStart)} | ${n(r.noChange.requests.list ?? 0)} LIST, ${n(r.noChange.requests.watch ?? 0)} WATCH |`,
    );
  }
  return lines.join('\n');
}

async function simStats(server: string): Promise<Stats> {
  // A kept-alive connection the simulator closed meanwhile fails once: ask again on a fresh one.
  for (let attempt = 0; ; attempt++) {
    try {
      return (await (await fetch(`${server}/_sim/stats`, { headers: { connection: 'close' } })).json()) as Stats;
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}

/** traffic — the requests and bytes by verb between two readings of the simulator's stats. */
function traffic(before: Stats, after: Stats): Traffic {
  const requests: Record<string, number> = {};
  const bytes: Record<string, number> = {};
  for (const [vr, count] of Object.entries(after.byVerbResource)) {
    const verb = vr.split(' ')[0]!;
    requests[verb] = (requests[verb] ?? 0) + count - (before.byVerbResource[vr] ?? 0);
  }
  for (const [vr, b] of Object.entries(after.bytesByVerbResource)) {
    const verb = vr.split(' ')[0]!;
    bytes[verb] = (bytes[verb] ?? 0) + b - (before.bytesByVerbResource[vr] ?? 0);
  }
  for (const k of Object.keys(requests)) if (requests[k] === 0) delete requests[k];
  for (const k of Object.keys(bytes)) if (bytes[k] === 0) delete bytes[k];
  return { requests, bytes };
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  g?.();
  g?.();
}

/**
 * nodeBytes — the heap a cache of this service's node projections takes per node, measured on the first 1,000 nodes
 * (one LIST page read before the measurement starts, so it is not counted in the service's requests).
 */
async function nodeBytes(server: string, project: (raw: any) => unknown): Promise<number> {
  const page = (await (await fetch(`${server}/api/v1/nodes?limit=1000`)).json()) as { items: unknown[] };
  const raws = page.items.map((n) => JSON.stringify(n));
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = raws.map((r) => project(JSON.parse(r)));
  gc();
  const per = (process.memoryUsage().heapUsed - before) / kept.length;
  kept.length = 0;
  return Math.max(0, Math.round(per));
}

async function measure(service: Service, mode: Mode, kubeconfig: string, nodes: number, pods: number): Promise<Result> {
  let peak = 0;
  const phases: Record<string, PhasePeak> = {};
  let phase!: { name: string; t0: number; cpu0: NodeJS.CpuUsage; peak: NodeJS.MemoryUsage | undefined };
  /** start — a phase from now: its clock, its CPU and its peak. */
  const start = (name: string) => {
    phase = { name, t0: performance.now(), cpu0: process.cpuUsage(), peak: undefined };
  };
  start('lists');
  const sample = () => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    if (!phase.peak || m.rss > phase.peak.rss) phase.peak = m;
  };
  /** enter — closes the current phase (its time and peak) and starts the next. */
  const enter = (name: string) => {
    sample();
    const m = phase.peak!;
    const cpu = process.cpuUsage(phase.cpu0);
    phases[phase.name] = { ms: Math.round(performance.now() - phase.t0), cpuMs: Math.round((cpu.user + cpu.system) / 1000), peakRssMb: Math.round(m.rss / MiB), heapMb: Math.round(m.heapUsed / MiB), externalMb: Math.round((m.external + m.arrayBuffers) / MiB) };
    start(name);
  };
  const sampler = setInterval(sample, 20);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const server = kc.getCurrentCluster()!.server;
  const logger = new JsonLogger(service, 'error');
  const watch = { watchList: mode === 'watchlist', requestTimeoutMs: 600_000 };
  const perNode = await nodeBytes(server, service === 'node-sync' ? toLiveNode : service === 'uncordon' ? (raw) => projectUncordonNode(raw) : (raw) => projectScoringNode(raw));
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const stats0 = await simStats(server);
  // The lists' phase from here: what was measured before (a node's projected bytes) is not part of it.
  start('lists');
  const t0 = phase.t0;
  let noChange: () => Promise<void>;
  let stop: () => Promise<void>;
  let plan: (() => void) | undefined;
  let fellBack = false;
  if (service === 'node-sync') {
    const db = await createTestDatabase('nm_bench_scale');
    const spec = { service: 'node-sync', url: db.url, entities, migrations };
    const ds = createDataSource(spec);
    await ds.initialize();
    await runMigrations(ds, spec);
    const cache = new KubeCache(kc, { pageSize: 500, resyncMs: 0, logger, watch });
    const leader = { isLeader: true, stillLeader: async () => true } as unknown as LeaderElector;
    const svc = new NodeSyncService(new FakeClock('2026-01-15T12:00:00Z'), logger, new Outbox('node-sync'), new Metrics(), new NodeSyncRepository(ds), cache, leader);
    cache.start();
    await cache.waitForSync(3_600_000);
    enter('firstCycle');
    await svc.runCycle('initial');
    fellBack = cache.nodes.stats.watchListFallbacks + cache.pods.stats.watchListFallbacks > 0;
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
    const source = new InformerNodeSource(kc, logger, watch, 3_600_000);
    await source.start();
    source.list().filter((n) => n.spec?.unschedulable === true);
    noChange = async () => {
      source.list().filter((n) => n.spec?.unschedulable === true);
    };
    stop = () => source.stop();
  } else {
    const cache = new InformerClusterCache(kc, { logger, watch });
    cache.start();
    await cache.waitForSync(3_600_000);
    cache.snapshot();
    noChange = async () => {
      cache.snapshot();
    };
    const prices = priceTable(INSTANCE_TYPES, ['us-east-1a', 'us-east-1b', 'us-east-1c']);
    plan = () => {
      const snap = cache.snapshot();
      planConsolidation({ nodes: snap.nodes, pods: snap.pods, pdbs: snap.pdbs, prices, threshold: 0.5 });
    };
    stop = () => cache.stop();
  }
  const firstSyncMs = performance.now() - t0;
  // Every informer's watch open before the start's requests are read, so that none is counted in the cycle after.
  const informers = { 'node-sync': 2, uncordon: 1, 'scheduler-scoring': 5 }[service];
  for (let i = 0; i < 600 && Object.values((await simStats(server)).openWatches).reduce((a, b) => a + b, 0) < informers; i++) await new Promise((r) => setTimeout(r, 50));
  const stats1 = await simStats(server);
  gc();
  const cacheBytes = process.memoryUsage().heapUsed - heap0;
  enter('noChange');
  const t1 = performance.now();
  await noChange();
  const noChangeMs = performance.now() - t1;
  const stats2 = await simStats(server);
  let planMs: number | undefined;
  if (plan) {
    const t2 = performance.now();
    plan();
    planMs = Math.round(performance.now() - t2);
  }
  enter('done');
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  await stop();
  const podBytes = service === 'uncordon' ? undefined : Math.max(0, Math.round((cacheBytes - perNode * nodes) / Math.max(1, pods)));
  return {
    service,
    mode,
    firstSyncMs: Math.round(firstSyncMs),
    noChangeMs: Math.round(noChangeMs),
    ...(planMs !== undefined ? { planMs } : {}),
    peakRssMb: Math.round(peak / MiB),
    cacheMb: Math.round(cacheBytes / MiB),
    bytesPerNode: service === 'uncordon' ? Math.round(cacheBytes / Math.max(1, nodes)) : perNode,
    ...(podBytes !== undefined ? { bytesPerPod: podBytes } : {}),
    atStart: traffic(stats0, stats1),
    noChange: traffic(stats1, stats2),
    fellBack,
    phases,
  };
}
