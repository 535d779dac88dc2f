/**
 * Scoring benchmark: a synthetic 5,000-node / 150,000-pod cluster. Measures the indexed scoring pass
 * against a deliberately naive one (scoreNode per pair: filter objects, map lookups, a rationale string),
 * then simulatePlacement and planConsolidation at that size. Prints JSON.
 *   npx swc libs bench -d dist && node dist/bench/scoring.bench.js
 * Measured on the shared 2-core machine: consolidation 0.44 s (0.91 s before GPUs entered the trees and they
 * remembered per request shape where a search ended; ≈21 s before the per-key free-capacity segment trees), simulate of 200,000 new pods ≈ 0.25 s, lowerBoundCost of the same ≈ 1 s
 * (existing nodes merged into super-bins, see docs/scoring.md).
 */
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import {
  allocatableFor,
  buildScoringIndex,
  countWorkloadZones,
  lowerBoundCost,
  planConsolidation,
  scoreIndexed,
  scoreNode,
  simulatePlacement,
  type ScoringNode,
  type ScoringPod,
} from '@nodes-manager/scoring';
import { mulberry32, priceTable } from '../libs/scoring/src/testing/prices.js';

const NODES = 5_000;
const PODS = 150_000;
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const GiB = 1024 ** 3;
const rnd = mulberry32(42);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const types = INSTANCE_TYPES.filter((t) => t.gpu === 0 && t.vcpu >= 4);
const prices = priceTable(INSTANCE_TYPES, ZONES, 42);

const nodes: ScoringNode[] = [];
const pods: ScoringPod[] = [];
const requested = new Map<string, { cpu: number; mem: number; pods: number }>();
for (let i = 0; i < NODES; i++) {
  const t = pick(types);
  const zone = pick(ZONES);
  const capacityType = rnd() < 0.7 ? ('spot' as const) : ('on-demand' as const);
  const a = allocatableFor(t);
  nodes.push({
    name: `ip-10-0-${i}`,
    zone,
    instanceType: t.name,
    capacityType,
    labels: { 'topology.kubernetes.io/zone': zone, 'node.kubernetes.io/instance-type': t.name, 'karpenter.sh/capacity-type': capacityType, 'kubernetes.io/hostname': `ip-10-0-${i}` },
    taints: i % 50 === 0 ? [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] : [],
    unschedulable: i % 200 === 0,
    ready: true,
    allocatable: a,
    requested: { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 },
  });
  requested.set(`ip-10-0-${i}`, { cpu: 0, mem: 0, pods: 0 });
}
for (let j = 0; j < PODS; j++) {
  const w = j % 1500;
  const node = nodes[Math.floor(rnd() * NODES)]!;
  const cpuMilli = 10 * (1 + Math.floor(rnd() * 20));
  const pod: ScoringPod = {
    uid: `u${j}`,
    namespace: `ns${w % 40}`,
    name: `w${w}-${j}`,
    nodeName: node.name,
    requests: { cpuMilli, memoryBytes: Math.round(cpuMilli * 2.5 * 1024 * 1024), gpu: 0 },
    ownerKind: w % 10 === 0 ? 'StatefulSet' : w % 10 === 1 ? 'Job' : 'ReplicaSet',
    ownerName: `w${w}`,
    workload: `w${w}`,
    labels: { app: `w${w}` },
    annotations: {},
    tolerations: [],
    ...(w % 7 === 0 ? { nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' } } : {}),
  };
  pods.push(pod);
  const r = requested.get(node.name)!;
  r.cpu += cpuMilli;
  r.mem += pod.requests.memoryBytes;
  r.pods += 1;
}
for (let i = 0; i < NODES; i++) {
  const r = requested.get(nodes[i]!.name)!;
  nodes[i] = { ...nodes[i]!, requested: { cpuMilli: r.cpu, memoryBytes: r.mem, gpu: 0, pods: r.pods } };
}

const time = <T>(f: () => T): [T, number] => {
  const t0 = process.hrtime.bigint();
  const out = f();
  return [out, Number(process.hrtime.bigint() - t0) / 1e6];
};

const ctx = { prices, zones: ZONES, workloadZoneCounts: countWorkloadZones(pods, nodes) };
const [index, buildMs] = time(() => buildScoringIndex(nodes, ctx));

// Fast pass: a sample of pods (spread across workloads) against all nodes.
const FAST_PODS = 10_000;
const totals = new Float64Array(NODES);
let sink = 0;
const [, fastMs] = time(() => {
  for (let k = 0; k < FAST_PODS; k++) sink += scoreIndexed(pods[(k * 15) % PODS]!, index, totals);
});
const NAIVE_PODS = 60;
const [, naiveMs] = time(() => {
  for (let k = 0; k < NAIVE_PODS; k++) {
    const pod = pods[(k * 2503) % PODS]!;
    let best = -1;
    for (const node of nodes) {
      const s = scoreNode(pod, node, ctx);
      if (s.feasible && s.total > best) best = s.total;
    }
    sink += best;
  }
});
const fastRate = (FAST_PODS * NODES) / (fastMs / 1000);
const naiveRate = (NAIVE_PODS * NODES) / (naiveMs / 1000);

const simInput = {
  pods: Array.from({ length: 20 }, (_, g) => ({
    name: `new-${g}`,
    requests: { cpuMilli: 250 * (1 + (g % 8)), memoryBytes: (1 + (g % 5)) * GiB, gpu: 0 },
    count: 10_000,
    class: g % 4 === 0 ? ('stateful' as const) : ('stateless' as const),
  })),
  nodes,
  catalog: INSTANCE_TYPES,
  prices,
  constraints: { zones: ZONES },
};
const [sim, simMs] = time(() => simulatePlacement(simInput));
const [bound, boundMs] = time(() => lowerBoundCost(simInput));
const [plan, consMs] = time(() => planConsolidation({ nodes, pods, pdbs: [{ name: 'w3', namespace: 'ns3', selector: { app: 'w3' }, disruptionsAllowed: 1 }], prices, threshold: 0.5 }));

process.stdout.write(
  JSON.stringify(
    {
      cluster: { nodes: NODES, pods: PODS },
      scoring: {
        indexBuildMs: Math.round(buildMs),
        fast: { pods: FAST_PODS, evaluations: FAST_PODS * NODES, ms: Math.round(fastMs), evaluationsPerSecond: Math.round(fastRate), podsPerSecond: Math.round(FAST_PODS / (fastMs / 1000)) },
        naive: { pods: NAIVE_PODS, evaluations: NAIVE_PODS * NODES, ms: Math.round(naiveMs), evaluationsPerSecond: Math.round(naiveRate) },
        speedup: Math.round((fastRate / naiveRate) * 10) / 10,
        fullPassEstimateSeconds: { fast: Math.round(((PODS * NODES) / fastRate) * 10) / 10, naive: Math.round((PODS * NODES) / naiveRate) },
      },
      simulate: { newPods: 200_000, ms: Math.round(simMs), placedOnExisting: sim.placedOnExistingCount, additions: sim.additions.reduce((s, a) => s + a.count, 0), hourlyCostUsd: sim.hourlyCostUsd, algorithm: sim.algorithm, lowerBound: { ms: Math.round(boundMs), usdPerHour: Math.round(bound.usdPerHour * 1e4) / 1e4 } },
      consolidation: { ms: Math.round(consMs), remove: plan.remove.length, blocked: plan.blocked.length, hourlySavingsUsd: plan.hourlySavingsUsd },
      checksum: sink > 0,
    },
    null,
    2,
  ) + '\n',
);
