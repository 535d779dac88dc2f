import { describe, expect, it } from '@jest/globals';
import {
  HOURS_PER_MONTH,
  ignoredForDrain,
  LARGE_FLEET,
  pdbExhaustedDetail,
  PdbIndex,
  planConsolidation,
  podBlockReason,
  utilization,
  type ConsolidationBlockReason,
  type ConsolidationInput,
  type ConsolidationPlan,
  type NodeRemoval,
  type PdbInfo,
} from './consolidation.js';
import { filterNode, staticFiltersPass } from './filters.js';
import { pricing } from './prices.js';
import { aNode, aPod, GiB, MiB } from './testing/builders.js';
import { mulberry32 } from './testing/prices.js';
import type { NodeResources, ScoringNode, ScoringPod } from './types.js';

/**
 * The plan as docs/scoring.md states it, without any index: every staying node scanned in order with every hard
 * filter, every budget of the namespace matched. planConsolidation's segment trees and budget index only skip
 * nodes and budgets that cannot match, so both must give the same plan, move for move.
 */
function referencePlan(input: ConsolidationInput): ConsolidationPlan {
  const threshold = input.threshold ?? 0.5;
  const podsOf = (n: ScoringNode) =>
    input.pods.filter((p) => p.nodeName === n.name && p.phase !== 'Succeeded' && p.phase !== 'Failed' && !ignoredForDrain(p));
  const price = (n: ScoringNode) => pricing(input.prices, n.instanceType, n.zone, n.capacityType, n.priceUsdPerHour).usdPerHour;
  const all = input.nodes
    .filter((n) => n.ready && !n.unschedulable && utilization(n) < threshold && (input.candidates?.(n) ?? true))
    .map((n) => ({ n, u: utilization(n), usd: price(n), pods: podsOf(n) }));
  const dests = input.nodes.filter((n) => n.ready && !n.unschedulable).sort((a, b) => utilization(b) - utilization(a));
  const orders = input.nodes.length <= LARGE_FLEET ? ['savings', 'utilization', 'pods'] : ['savings'];
  const plans = orders.map((order): ConsolidationPlan => {
    const candidates = [...all].sort((a, b) => {
      if (order === 'savings') return (b.usd ?? 0) - (a.usd ?? 0) || a.u - b.u;
      if (order === 'utilization') return a.u - b.u || (b.usd ?? 0) - (a.usd ?? 0);
      return a.pods.length - b.pods.length || (b.usd ?? 0) - (a.usd ?? 0);
    });
    const extra = new Map<string, NodeResources>(dests.map((d) => [d.name, { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 }]));
    const gone = new Set<string>();
    const used = input.pdbs.map(() => 0);
    const remove: NodeRemoval[] = [];
    const blocked: { node: string; reason: ConsolidationBlockReason; detail: string; pdbs?: string[] }[] = [];
    for (const c of candidates) {
      const block = (reason: ConsolidationBlockReason, detail: string, pdbs?: string[]) => blocked.push({ node: c.n.name, reason, detail, ...(pdbs ? { pdbs } : {}) });
      const mine = extra.get(c.n.name);
      if (c.n.annotations?.['karpenter.sh/do-not-disrupt'] === 'true') block('node_do_not_disrupt', `${c.n.name} is annotated karpenter.sh/do-not-disrupt`);
      else if (mine && (mine.pods > 0 || mine.cpuMilli > 0 || mine.memoryBytes > 0)) block('node_receives_pods', `${c.n.name} takes pods from another removed node`);
      else if (c.pods.some((p) => podBlockReason(p) !== undefined)) {
        const p = c.pods.find((x) => podBlockReason(x) !== undefined)!;
        block(podBlockReason(p)!, `pod ${p.namespace}/${p.name}`);
      } else {
        const need = new Map<number, number>();
        for (const p of c.pods) {
          input.pdbs.forEach((b, i) => {
            if (b.namespace === p.namespace && Object.keys(b.selector).every((k) => p.labels[k] === b.selector[k])) need.set(i, (need.get(i) ?? 0) + 1);
          });
        }
        const exhausted = [...need].filter(([i, k]) => used[i]! + k > input.pdbs[i]!.disruptionsAllowed);
        if (exhausted.length > 0) {
          block('pdb_exhausted', exhausted.map(([i, k]) => pdbExhaustedDetail(input.pdbs[i]!, used[i]!, k)).join('; '), [...new Set(exhausted.map(([i]) => `${input.pdbs[i]!.namespace}/${input.pdbs[i]!.name}`))].sort());
          continue;
        }
        const before = new Map(extra);
        const moves: { pod: string; to: string }[] = [];
        const sorted = [...c.pods].sort((a, b) => b.requests.cpuMilli - a.requests.cpuMilli || b.requests.memoryBytes - a.requests.memoryBytes);
        const misfit = sorted.find((p) => {
          const to = dests.find((d) => d.name !== c.n.name && !gone.has(d.name) && filterNode(p, d, extra.get(d.name)).length === 0);
          if (!to) return true;
          const e = extra.get(to.name)!;
          const r = p.requests;
          extra.set(to.name, { cpuMilli: e.cpuMilli + r.cpuMilli, memoryBytes: e.memoryBytes + r.memoryBytes, gpu: e.gpu + r.gpu, pods: e.pods + (r.pods ?? 1) });
          moves.push({ pod: `${p.namespace}/${p.name}`, to: to.name });
          return false;
        });
        if (misfit) {
          before.forEach((v, k) => extra.set(k, v));
          block('pods_do_not_fit', `pod ${misfit.namespace}/${misfit.name} fits on no remaining node`);
          continue;
        }
        for (const [i, k] of need) used[i]! += k;
        gone.add(c.n.name);
        remove.push({ node: c.n.name, reason: c.pods.length === 0 ? 'empty' : 'underutilized', utilization: c.u, pods: moves, savingsUsdPerHour: c.usd ?? 0, priceKnown: c.usd !== undefined });
      }
    }
    const hourly = remove.reduce((s, r) => s + r.savingsUsdPerHour, 0);
    return {
      remove,
      blocked,
      pdbImpact: input.pdbs.map((b, i) => ({ pdb: `${b.namespace}/${b.name}`, disruptionsUsed: used[i]!, disruptionsAllowed: b.disruptionsAllowed })),
      hourlySavingsUsd: Math.round(hourly * 1e6) / 1e6,
      monthlySavingsUsd: Math.round(hourly * HOURS_PER_MONTH * 100) / 100,
    };
  });
  return plans.sort((a, b) => b.hourlySavingsUsd - a.hourlySavingsUsd)[0]!;
}

const TYPES = [
  { name: 'm5.large', cpu: 1930, mem: 7, pods: 29, gpu: 0 },
  { name: 'm5.xlarge', cpu: 3920, mem: 14, pods: 58, gpu: 0 },
  { name: 'c5.2xlarge', cpu: 7910, mem: 14, pods: 58, gpu: 0 },
  { name: 'r5.xlarge', cpu: 3920, mem: 29, pods: 58, gpu: 0 },
  { name: 'g5.xlarge', cpu: 3920, mem: 14, pods: 58, gpu: 1 },
  { name: 'g5.12xlarge', cpu: 47810, mem: 180, pods: 234, gpu: 4 },
];
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const NAMESPACES = ['payments', 'web', 'ml'];
const GPU_TAINT = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' as const };

/**
 * fleet — a seeded fleet with what the indexes skip over: GPU nodes (tainted) whose GPUs are mostly taken while
 * their cpu is not, GPU pods, node selectors, required affinity, volume zones, cordoned and not-Ready nodes, blockers,
 * DaemonSet and finished pods, and many budgets per namespace (by app, by app and tier, by tier, empty selectors).
 */
function fleet(seed: number, count: number): ConsolidationInput {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const nodes: ScoringNode[] = [];
  const pods: ScoringPod[] = [];
  for (let i = 0; i < count; i++) {
    const t = rnd() < 0.15 ? pick(TYPES.slice(4)) : pick(TYPES.slice(0, 4));
    const name = `n${i}`;
    const zone = pick(ZONES);
    const pool = t.gpu > 0 ? 'gpu' : pick(['general', 'general', 'memory']);
    const mine: ScoringPod[] = [aPod({ name: `ds-${i}`, namespace: 'kube-system', nodeName: name, ownerKind: 'DaemonSet', requests: { cpuMilli: 100, memoryBytes: 128 * MiB, gpu: 0 } })];
    const target = rnd() < 0.4 ? 0.05 + rnd() * 0.35 : 0.5 + rnd() * 0.45;
    let cpu = 100;
    let mem = 128 * MiB;
    let gpu = 0;
    while (cpu < target * t.cpu && mine.length < t.pods) {
      const wantsGpu = t.gpu > 0 && gpu < t.gpu && rnd() < 0.7;
      const c = wantsGpu ? pick([500, 1000]) : pick([50, 100, 250, 400, 750, 1000]);
      const m = pick([64, 256, 512, 1024, 2048]) * MiB;
      if (cpu + c > t.cpu || mem + m > t.mem * GiB) break;
      const app = `app${Math.floor(rnd() * 12)}`;
      const ns = wantsGpu ? 'ml' : pick(NAMESPACES);
      const r = rnd();
      mine.push(
        aPod({
          name: `p${i}-${mine.length}`,
          namespace: ns,
          nodeName: name,
          requests: { cpuMilli: c, memoryBytes: m, gpu: wantsGpu ? 1 : 0 },
          labels: { app, tier: pick(['front', 'back']), ...(rnd() < 0.3 ? { 'pod-template-hash': pick(['a1', 'b2']) } : {}) },
          ...(wantsGpu || t.gpu > 0 ? { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] } : {}),
          ...(r < 0.1 ? { nodeSelector: { 'karpenter.sh/nodepool': pool } } : {}),
          ...(r >= 0.1 && r < 0.15 ? { requiredNodeAffinity: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'NotIn' as const, values: [pick(ZONES)] }] }] } : {}),
          ...(r >= 0.15 && r < 0.25 ? { pvcZones: [zone], hasPvc: true } : {}),
          ...(rnd() < 0.02 ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}),
          ...(rnd() < 0.02 ? { ownerKind: undefined } : {}),
          ...(rnd() < 0.05 ? { phase: 'Succeeded' } : {}),
        }),
      );
      if (mine.at(-1)!.phase === 'Succeeded') continue;
      cpu += c;
      mem += m;
      if (wantsGpu) gpu += 1;
    }
    pods.push(...mine);
    nodes.push(
      aNode({
        name,
        zone,
        instanceType: t.name,
        capacityType: t.gpu > 0 || rnd() < 0.4 ? 'on-demand' : 'spot',
        labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone, 'node.kubernetes.io/instance-type': t.name, 'karpenter.sh/nodepool': pool },
        taints: t.gpu > 0 ? [GPU_TAINT] : [],
        unschedulable: rnd() < 0.03,
        ready: rnd() > 0.02,
        allocatable: { cpuMilli: t.cpu, memoryBytes: t.mem * GiB, gpu: t.gpu, pods: t.pods },
        requested: { cpuMilli: cpu, memoryBytes: mem, gpu, pods: mine.filter((p) => p.phase !== 'Succeeded').length },
        ...(rnd() < 0.02 ? { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}),
      }),
    );
  }
  const pdbs: PdbInfo[] = [];
  for (const ns of NAMESPACES) {
    for (let a = 0; a < 12; a++) {
      if (rnd() < 0.5) pdbs.push({ name: `app${a}`, namespace: ns, selector: { app: `app${a}` }, disruptionsAllowed: Math.floor(rnd() * 6) });
      if (rnd() < 0.2) pdbs.push({ name: `app${a}-front`, namespace: ns, selector: { tier: 'front', app: `app${a}` }, disruptionsAllowed: Math.floor(rnd() * 4) });
    }
    if (rnd() < 0.5) pdbs.push({ name: 'back', namespace: ns, selector: { tier: 'back' }, disruptionsAllowed: 3 + Math.floor(rnd() * 20) });
    if (rnd() < 0.3) pdbs.push({ name: 'all', namespace: ns, selector: {}, disruptionsAllowed: 10 + Math.floor(rnd() * 40) });
  }
  return { nodes, pods, pdbs: pdbs.sort(() => rnd() - 0.5), threshold: 0.5 };
}

describe('planConsolidation against the plan without indexes', () => {
  it('gives the same plan, move for move, on seeded fleets with GPU nodes, selectors, volume zones and many budgets', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const input = fleet(seed, 20 + ((seed * 37) % 180));
      expect(planConsolidation(input)).toEqual(referencePlan(input));
    }
  });

  it('gives the same plan above the large-fleet threshold (one candidate order)', () => {
    const input = fleet(7, LARGE_FLEET + 500);
    const plan = planConsolidation(input);
    expect(plan.remove.length).toBeGreaterThan(0);
    expect(plan.remove.some((r) => r.pods.some((m) => m.to.length > 0))).toBe(true);
    expect(plan).toEqual(referencePlan(input));
  });

  it('a re-pack undone gives its room back to the pods searched for after it', () => {
    // x's two 1000m pods go to a, then (a full) past x itself to b; its third pod fits nowhere, so both moves are
    // undone. y's pod, of the same shape, must then go to a again — the first node with room — not where x's ended.
    const cpu = (cpuMilli: number) => ({ cpuMilli, memoryBytes: 0, gpu: 0 });
    const node = (name: string, used: number, instanceType = 'm5.xlarge') =>
      aNode({ name, instanceType, allocatable: { cpuMilli: 4000, memoryBytes: 16 * GiB, gpu: 0, pods: 58 }, requested: { cpuMilli: used, memoryBytes: 0, gpu: 0, pods: 3 } });
    const input: ConsolidationInput = {
      nodes: [node('a', 2800), node('b', 2400), node('x', 2600, 'm5.2xlarge'), node('y', 1000)],
      pods: [
        aPod({ name: 'x1', nodeName: 'x', requests: cpu(1000) }),
        aPod({ name: 'x2', nodeName: 'x', requests: cpu(1000) }),
        aPod({ name: 'x3', nodeName: 'x', requests: cpu(600), nodeSelector: { pool: 'none' } }),
        aPod({ name: 'y1', nodeName: 'y', requests: cpu(1000) }),
      ],
      pdbs: [],
      threshold: 0.9,
      candidates: (n) => n.name === 'x' || n.name === 'y',
    };
    const plan = planConsolidation(input);
    expect(plan.blocked.map((b) => [b.node, b.reason])).toEqual([['x', 'pods_do_not_fit']]);
    expect(plan.remove.map((r) => [r.node, r.pods.map((m) => m.to)])).toEqual([['y', ['a']]]);
    expect(plan).toEqual(referencePlan(input));
  });

  it('staticFiltersPass is filterNode without its resource reasons', () => {
    const input = fleet(11, 120);
    const resource = new Set(['insufficient_cpu', 'insufficient_memory', 'insufficient_gpu', 'too_many_pods']);
    const cordoned = { ...input.nodes[0]!, unschedulable: true };
    for (const p of input.pods.filter((_, i) => i % 7 === 0)) {
      for (const n of [...input.nodes, cordoned]) expect(staticFiltersPass(p, n)).toBe(!filterNode(p, n).some((f) => !resource.has(f.reason)));
    }
  });

  it('PdbIndex finds exactly the budgets whose selector matches, in budget order', () => {
    const input = fleet(3, 150);
    const index = new PdbIndex(input.pdbs);
    for (const p of input.pods) {
      const expected = input.pdbs.flatMap((b, i) => (b.namespace === p.namespace && Object.keys(b.selector).every((k) => p.labels[k] === b.selector[k]) ? [i] : []));
      expect(index.of(p)).toEqual(expected);
    }
  });
});
