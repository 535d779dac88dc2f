/**
 * Kubernetes simulator at scale: generates a fleet in batches straight into the simulator (the fleet is never held
 * whole), then reads every pod through the real client twice — a paged LIST (`CoreV1Api.listPodForAllNamespaces`,
 * pages of 500) and a WatchList (the client's stock `Watch` with `sendInitialEvents=true`, up to the
 * initial-events-end bookmark) — and reports times and the simulator's memory as JSON.
 *   npm run build && node --expose-gc --max-old-space-size=16384 dist/bench/sim-scale.js [nodes] [podsPerNode]
 * (defaults 5,000 nodes of 30 pods; `100000 10` is the 100,000-node / ~1,000,000-pod fleet.)
 */
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { generateFleet, startKubeSim } from '@nodes-manager/sim';

const nodes = Number(process.argv[2] ?? 5000);
const podsPerNode = Number(process.argv[3] ?? 30);
const mib = (n: number): number => Math.round(n / 1048576);
const gc = (globalThis as { gc?: () => void }).gc;

const sim = await startKubeSim({ karpenter: true, kubelet: false, bookmarkIntervalMs: 60_000 });
const t0 = performance.now();
let pods = 0;
const fleet = generateFleet({ seed: 1, nodes, podsPerNode, podSink: (batch) => {
  pods += batch.length;
  sim.loadPods(batch);
} });
sim.load(fleet);
const generateAndLoadMs = performance.now() - t0;
const counts = { nodes: fleet.nodes.length, pods, pdbs: fleet.pdbs.length };
gc?.();
const afterLoad = process.memoryUsage();

const kc = sim.kubeConfig('sim-bench/1.0');
const core = kc.makeApiClient(CoreV1Api);
const t2 = performance.now();
let cont: string | undefined;
let listed = 0;
let pages = 0;
do {
  const page = await core.listPodForAllNamespaces({ limit: 500, ...(cont ? { _continue: cont } : {}) });
  listed += page.items.length;
  pages++;
  cont = page.metadata?._continue;
} while (cont);
const listMs = performance.now() - t2;

const t3 = performance.now();
let streamed = 0;
let ctl: AbortController | undefined;
await new Promise<void>((resolve, reject) => {
  void new Watch(kc)
    .watch('/api/v1/pods', { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }, (type, obj) => {
      if (type === 'ADDED') streamed++;
      else if (type === 'BOOKMARK' && obj?.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true') resolve();
    }, (err) => (err ? reject(err as Error) : resolve()))
    .then((c) => (ctl = c), reject);
});
ctl?.abort();
const watchListMs = performance.now() - t3;
gc?.();
const end = process.memoryUsage();
const stats = sim.stats();
await sim.stop();

console.log(JSON.stringify({
  ...counts,
  generateAndLoadMs: Math.round(generateAndLoadMs),
  listAllPodsPagedMs: Math.round(listMs),
  listedPods: listed,
  pages,
  watchListAllPodsMs: Math.round(watchListMs),
  watchListedPods: streamed,
  bytesSent: { list: mib(stats.bytesByVerbResource['list pods'] ?? 0), watch: mib(stats.bytesByVerbResource['watch pods'] ?? 0) },
  rssAfterLoadMiB: mib(afterLoad.rss),
  heapAfterLoadMiB: mib(afterLoad.heapUsed),
  rssEndMiB: mib(end.rss),
  heapEndMiB: mib(end.heapUsed),
}, null, 2));
