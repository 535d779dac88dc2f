/**
 * Kubernetes simulator at scale: generates a 5,000-node fleet (about 150,000 pods), loads it, then lists
 * every pod through the real client in pages of 500, and reports times and memory as JSON.
 *   npx swc libs bench -d dist && node --expose-gc dist/bench/sim-scale.js [nodes] [podsPerNode]
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { generateFleet, startKubeSim, type Fleet } from '@nodes-manager/sim';

const nodes = Number(process.argv[2] ?? 5000);
const podsPerNode = Number(process.argv[3] ?? 33);
const mib = (n: number): number => Math.round(n / 1048576);
const gc = (globalThis as { gc?: () => void }).gc;

const t0 = performance.now();
let fleet: Fleet | undefined = generateFleet({ seed: 1, nodes, podsPerNode });
const generateMs = performance.now() - t0;
const counts = { nodes: fleet.nodes.length, pods: fleet.pods.length, pdbs: fleet.pdbs.length };

const sim = await startKubeSim({ karpenter: true });
const t1 = performance.now();
sim.load(fleet);
const loadMs = performance.now() - t1;
fleet = undefined;
gc?.();
const afterLoad = process.memoryUsage();

const core = sim.kubeConfig('sim-bench/1.0').makeApiClient(CoreV1Api);
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
const nodeList = await core.listNode();
const listNodesMs = performance.now() - t3;
gc?.();
const end = process.memoryUsage();
await sim.stop();

console.log(JSON.stringify({
  ...counts,
  generateMs: Math.round(generateMs),
  loadMs: Math.round(loadMs),
  listAllPodsPagedMs: Math.round(listMs),
  listedPods: listed,
  pages,
  listAllNodesUnpagedMs: Math.round(listNodesMs),
  listedNodes: nodeList.items.length,
  rssAfterLoadMiB: mib(afterLoad.rss),
  heapAfterLoadMiB: mib(afterLoad.heapUsed),
  rssEndMiB: mib(end.rss),
  heapEndMiB: mib(end.heapUsed),
}, null, 2));
