import { classifyWorkload, workloadKey } from './classify.js';
import {
  matchesNodeAffinity,
  nodeSelectorMismatch,
  firstUntoleratedTaint,
  toleratesUnschedulable,
  type FilterReason,
} from './filters.js';
import { FILTER_REASONS } from '@nodes-manager/contracts';
import { costBasisPrice } from './expected-cost.js';
import { pricing } from './prices.js';
import {
  costEfficiencyScore,
  dataLocalityScore,
  interruptionRiskScore,
  resourceFitScore,
  zoneSpreadScore,
} from './scorers.js';
import {
  classAvoidsSpot,
  decidingFactors,
  DIMENSION_LABELS,
  effectiveWeights,
  scoreNode,
  type NodeScore,
  type ScoringContext,
} from './score-node.js';
import type { ScoringNode, ScoringPod, Taint, WorkloadClass } from './types.js';

/**
 * ScoringIndex — the nodes of one scoring pass laid out as typed arrays, with everything that depends only
 * on the node (prices → cost and risk scores, zone index, taint set) computed once. Per pod, what depends
 * only on the pod and a zone or a taint set is computed once per zone / per distinct set; the per-node inner
 * loop then only reads arrays and does arithmetic, and allocates nothing. `requested` and the spread counts
 * are updated by {@link commitPlacement}, so a pass can place pods one after another.
 */
export interface ScoringIndex {
  readonly nodes: readonly ScoringNode[];
  readonly size: number;
  readonly ctx: ScoringContext;
  readonly zones: readonly string[];
  readonly zoneOf: Int32Array;
  readonly allocCpu: Float64Array;
  readonly allocMem: Float64Array;
  readonly allocGpu: Float64Array;
  readonly allocPods: Float64Array;
  readonly reqCpu: Float64Array;
  readonly reqMem: Float64Array;
  readonly reqGpu: Float64Array;
  readonly reqPods: Float64Array;
  /** 0 schedulable, 1 cordoned (Ready), 2 not Ready. */
  readonly status: Uint8Array;
  readonly taintSetOf: Int32Array;
  readonly taintSets: readonly (readonly Taint[])[];
  readonly cost: Float64Array;
  readonly risk: Float64Array;
  readonly riskSpotAverse: Float64Array;
  readonly selectorMasks: Map<string, Uint8Array>;
  readonly tolerationMasks: Map<string, Uint8Array>;
  readonly spreadCounts: Map<string, Float64Array>;
  readonly scratch: { spread: Float64Array; locality: Float64Array; zoneOk: Uint8Array };
}

/** Failure codes of the indexed filters, in filterNode's order; 0 = feasible. */
export const INDEX_REASONS: readonly (FilterReason | 'feasible')[] = ['feasible', ...FILTER_REASONS];

const MASK_CACHE_LIMIT = 4096;

/** buildScoringIndex — precompute per node; O(nodes). Spread counts over `ctx.zones` plus every node's zone. */
export function buildScoringIndex(nodes: readonly ScoringNode[], ctx: ScoringContext = {}): ScoringIndex {
  const n = nodes.length;
  const zones = ctx.zones ? [...ctx.zones] : [];
  const zoneId = new Map(zones.map((z, i) => [z, i]));
  const taintSetId = new Map<string, number>();
  const taintSets: (readonly Taint[])[] = [];
  const index = {
    nodes,
    size: n,
    ctx: { ...ctx, zones },
    zones,
    zoneOf: new Int32Array(n),
    allocCpu: new Float64Array(n),
    allocMem: new Float64Array(n),
    allocGpu: new Float64Array(n),
    allocPods: new Float64Array(n),
    reqCpu: new Float64Array(n),
    reqMem: new Float64Array(n),
    reqGpu: new Float64Array(n),
    reqPods: new Float64Array(n),
    status: new Uint8Array(n),
    taintSetOf: new Int32Array(n),
    taintSets,
    cost: new Float64Array(n),
    risk: new Float64Array(n),
    riskSpotAverse: new Float64Array(n),
    selectorMasks: new Map<string, Uint8Array>(),
    tolerationMasks: new Map<string, Uint8Array>(),
    spreadCounts: new Map<string, Float64Array>(),
    scratch: { spread: new Float64Array(0), locality: new Float64Array(0), zoneOk: new Uint8Array(0) },
  };
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!;
    let z = zoneId.get(node.zone);
    if (z === undefined) {
      z = zones.length;
      zones.push(node.zone);
      zoneId.set(node.zone, z);
    }
    index.zoneOf[i] = z;
    index.allocCpu[i] = node.allocatable.cpuMilli;
    index.allocMem[i] = node.allocatable.memoryBytes;
    index.allocGpu[i] = node.allocatable.gpu;
    index.allocPods[i] = node.allocatable.pods;
    index.reqCpu[i] = node.requested.cpuMilli;
    index.reqMem[i] = node.requested.memoryBytes;
    index.reqGpu[i] = node.requested.gpu;
    index.reqPods[i] = node.requested.pods;
    index.status[i] = !node.ready ? 2 : node.unschedulable ? 1 : 0;
    const hard = node.taints.filter((t) => t.effect !== 'PreferNoSchedule');
    const sig = hard.map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`).sort().join('|');
    let s = taintSetId.get(sig);
    if (s === undefined) {
      s = taintSets.length;
      taintSets.push(hard);
      taintSetId.set(sig, s);
    }
    index.taintSetOf[i] = s;
    const p = pricing(ctx.prices, node.instanceType, node.zone, node.capacityType, node.priceUsdPerHour);
    index.cost[i] = costEfficiencyScore(costBasisPrice(p.usdPerHour, p.expected), p.onDemandUsdPerHour);
    index.risk[i] = interruptionRiskScore(node.capacityType, p.interruptionBucket, false);
    index.riskSpotAverse[i] = interruptionRiskScore(node.capacityType, p.interruptionBucket, true);
  }
  const nz = zones.length;
  index.scratch = { spread: new Float64Array(nz), locality: new Float64Array(nz), zoneOk: new Uint8Array(nz) };
  return index;
}

function selectorMask(index: ScoringIndex, pod: ScoringPod): Uint8Array | undefined {
  const hasSelector = pod.nodeSelector !== undefined && Object.keys(pod.nodeSelector).length > 0;
  if (!hasSelector && pod.requiredNodeAffinity === undefined) return undefined;
  const key = JSON.stringify([pod.nodeSelector ?? null, pod.requiredNodeAffinity ?? null]);
  let mask = index.selectorMasks.get(key);
  if (!mask) {
    mask = new Uint8Array(index.size);
    for (let i = 0; i < index.size; i++) {
      const labels = index.nodes[i]!.labels;
      if (nodeSelectorMismatch(pod.nodeSelector, labels) !== undefined) mask[i] = 1;
      else if (pod.requiredNodeAffinity && !matchesNodeAffinity(pod.requiredNodeAffinity, labels, index.nodes[i]!.name)) mask[i] = 2;
    }
    if (index.selectorMasks.size >= MASK_CACHE_LIMIT) index.selectorMasks.clear();
    index.selectorMasks.set(key, mask);
  }
  return mask;
}

function tolerationMask(index: ScoringIndex, pod: ScoringPod): Uint8Array {
  const key = pod.tolerations.length === 0 ? '' : JSON.stringify(pod.tolerations);
  let mask = index.tolerationMasks.get(key);
  if (!mask) {
    mask = new Uint8Array(index.taintSets.length);
    for (let s = 0; s < mask.length; s++) mask[s] = firstUntoleratedTaint(index.taintSets[s]!, pod.tolerations) ? 0 : 1;
    if (index.tolerationMasks.size >= MASK_CACHE_LIMIT) index.tolerationMasks.clear();
    index.tolerationMasks.set(key, mask);
  }
  return mask;
}

function spreadCountsFor(index: ScoringIndex, key: string | undefined): Float64Array | undefined {
  if (key === undefined) return undefined;
  let counts = index.spreadCounts.get(key);
  if (!counts) {
    const given = index.ctx.workloadZoneCounts?.get(key);
    if (!given) return undefined;
    counts = new Float64Array(index.zones.length);
    for (let z = 0; z < index.zones.length; z++) counts[z] = given.get(index.zones[z]!) ?? 0;
    index.spreadCounts.set(key, counts);
  }
  return counts;
}

/**
 * scoreIndexed — the total of every node for `pod` into `totals` (−1 where infeasible) and, when given, the
 * first failing filter into `reasons` (an {@link INDEX_REASONS} code). Returns the best node's position, or −1.
 * Ties go to the earlier node. Same numbers as {@link scoreNode}.
 */
export function scoreIndexed(
  pod: ScoringPod,
  index: ScoringIndex,
  totals?: Float64Array,
  reasons?: Uint8Array,
): number {
  const cls = classifyWorkload(pod);
  const w = effectiveWeights(cls, index.ctx);
  const wFit = w.resourceFit;
  const wSpread = w.zoneSpread;
  const wCost = w.costEfficiency;
  const wRisk = w.interruptionRisk;
  const wLoc = w.dataLocality;
  const risk = classAvoidsSpot(cls, index.ctx) ? index.riskSpotAverse : index.risk;
  const sel = selectorMask(index, pod);
  const tol = tolerationMask(index, pod);
  const allowCordoned = toleratesUnschedulable(pod.tolerations);

  // Per-zone terms: spread, locality, volume zone.
  const { spread, locality, zoneOk } = index.scratch;
  const nz = index.zones.length;
  const counts = spreadCountsFor(index, workloadKey(pod));
  let min = Infinity;
  let peers = 0;
  for (let z = 0; z < nz; z++) {
    const c = counts ? counts[z]! : 0;
    if (c < min) min = c;
    peers += c;
  }
  if (min === Infinity) min = 0;
  const vol = pod.pvcZones && pod.pvcZones.length > 0 ? pod.pvcZones : undefined;
  for (let z = 0; z < nz; z++) {
    const c = counts ? counts[z]! : 0;
    const inVol = vol ? vol.includes(index.zones[z]!) : true;
    zoneOk[z] = inVol ? 1 : 0;
    spread[z] = zoneSpreadScore(c, min);
    locality[z] = dataLocalityScore(vol !== undefined, inVol, c, peers);
  }

  const pc = pod.requests.cpuMilli;
  const pm = pod.requests.memoryBytes;
  const pg = pod.requests.gpu;
  const pp = pod.requests.pods ?? 1;
  const { allocCpu, allocMem, allocGpu, allocPods, reqCpu, reqMem, reqGpu, reqPods, status, taintSetOf, zoneOf, cost } =
    index;
  let best = -1;
  let bestTotal = -1;
  for (let i = 0; i < index.size; i++) {
    let code = 0;
    const st = status[i]!;
    const zi = zoneOf[i]!;
    if (st === 1 && !allowCordoned) code = 1;
    else if (st === 2) code = 2;
    else if (reqCpu[i]! + pc > allocCpu[i]!) code = 3;
    else if (reqMem[i]! + pm > allocMem[i]!) code = 4;
    else if (reqGpu[i]! + pg > allocGpu[i]!) code = 5;
    else if (reqPods[i]! + pp > allocPods[i]!) code = 6;
    else if (tol[taintSetOf[i]!] === 0) code = 7;
    else if (sel !== undefined && sel[i] !== 0) code = sel[i] === 1 ? 8 : 9;
    else if (zoneOk[zi] === 0) code = 10;
    if (code !== 0) {
      if (totals) totals[i] = -1;
      if (reasons) reasons[i] = code;
      continue;
    }
    const fit = resourceFitScore(pc, pm, pg, allocCpu[i]!, allocMem[i]!, allocGpu[i]!, reqCpu[i]!, reqMem[i]!);
    const total =
      wFit * fit +
      wSpread * spread[zi]! +
      wCost * cost[i]! +
      wRisk * risk[i]! +
      wLoc * locality[zi]!;
    if (totals) totals[i] = total;
    if (reasons) reasons[i] = 0;
    if (total > bestTotal) {
      bestTotal = total;
      best = i;
    }
  }
  return best;
}

/** commitPlacement — record that `pod` now runs on node `i`: its requests and its workload's zone count. */
export function commitPlacement(index: ScoringIndex, i: number, pod: ScoringPod): void {
  index.reqCpu[i]! += pod.requests.cpuMilli;
  index.reqMem[i]! += pod.requests.memoryBytes;
  index.reqGpu[i]! += pod.requests.gpu;
  index.reqPods[i]! += pod.requests.pods ?? 1;
  const key = workloadKey(pod);
  const z = index.zoneOf[i]!;
  if (key === undefined) return;
  let counts = spreadCountsFor(index, key);
  if (!counts) {
    counts = new Float64Array(index.zones.length);
    index.spreadCounts.set(key, counts);
  }
  counts[z]! += 1;
}

/** indexedNode — node `i` with the requested amounts the index currently holds (for explaining a score). */
export function indexedNode(index: ScoringIndex, i: number): ScoringNode {
  const node = index.nodes[i]!;
  return {
    ...node,
    requested: { cpuMilli: index.reqCpu[i]!, memoryBytes: index.reqMem[i]!, gpu: index.reqGpu[i]!, pods: index.reqPods[i]! },
  };
}

/** indexedContext — the context an explained score must use to agree with the index (zones, live counts). */
export function indexedContext(index: ScoringIndex): ScoringContext {
  const counts = new Map<string, ReadonlyMap<string, number>>(index.ctx.workloadZoneCounts ?? []);
  for (const [key, arr] of index.spreadCounts) {
    counts.set(key, new Map(index.zones.map((z, i) => [z, arr[i]!])));
  }
  return { ...index.ctx, workloadZoneCounts: counts };
}

export type RankedNode = { readonly node: string; readonly total: number };

export interface Ranking {
  readonly pod: string;
  readonly workloadClass: WorkloadClass;
  /** Feasible nodes, best first (ties by name). */
  readonly ranked: readonly RankedNode[];
  /** The best few, explained. */
  readonly top: readonly NodeScore[];
  readonly infeasible: { readonly count: number; readonly byReason: Readonly<Partial<Record<FilterReason, number>>> };
  readonly decision: {
    readonly reason: 'placed' | 'no_feasible_node';
    readonly node?: string;
    readonly total?: number;
    readonly rationale: string;
  };
}

/** rankNodes — score `pod` on every node and decide, with a rationale naming the deciding factors. */
export function rankNodes(
  pod: ScoringPod,
  nodes: readonly ScoringNode[],
  ctx: ScoringContext = {},
  options: { explainTop?: number } = {},
): Ranking {
  return rankIndexed(pod, buildScoringIndex(nodes, ctx), options);
}

/** rankIndexed — {@link rankNodes} over a prebuilt index (reuse one index across the pods of a pass). */
export function rankIndexed(pod: ScoringPod, index: ScoringIndex, options: { explainTop?: number } = {}): Ranking {
  const totals = new Float64Array(index.size);
  const reasons = new Uint8Array(index.size);
  scoreIndexed(pod, index, totals, reasons);
  const feasible: number[] = [];
  const byReason: Partial<Record<FilterReason, number>> = {};
  for (let i = 0; i < index.size; i++) {
    if (reasons[i] === 0) feasible.push(i);
    else {
      const r = INDEX_REASONS[reasons[i]!] as FilterReason;
      byReason[r] = (byReason[r] ?? 0) + 1;
    }
  }
  const name = (i: number): string => index.nodes[i]!.name;
  feasible.sort((a, b) => totals[b]! - totals[a]! || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
  const ctx = indexedContext(index);
  const top = feasible.slice(0, Math.max(1, options.explainTop ?? 3)).map((i) => scoreNode(pod, indexedNode(index, i), ctx));
  const infeasibleCount = index.size - feasible.length;
  const podName = `${pod.namespace}/${pod.name}`;
  const ruledOut = describeReasons(byReason);
  let decision: Ranking['decision'];
  const best = top[0];
  if (!best || !best.feasible) {
    decision = {
      reason: 'no_feasible_node',
      rationale:
        index.size === 0 ? `No node to place ${podName} on.` : `No node fits ${podName}: all ${index.size} ruled out (${ruledOut}).`,
    };
  } else {
    let text = `Chose ${best.node} for ${podName} (score ${best.total.toFixed(1)}): ${best.rationale}.`;
    const second = top[1];
    if (second?.feasible) {
      const factors = decidingFactors(best.dimensions, second.dimensions, best.weights).slice(0, 2);
      text +=
        factors.length === 0
          ? ` Tied with ${second.node} (${second.total.toFixed(1)}); chosen by name.`
          : ` Ahead of ${second.node} (${second.total.toFixed(1)}) on ${factors.map((f) => DIMENSION_LABELS[f.dimension]).join(' and ')}.`;
    }
    if (infeasibleCount > 0) text += ` ${infeasibleCount} of ${index.size} nodes ruled out (${ruledOut}).`;
    decision = { reason: 'placed', node: best.node, total: best.total, rationale: text };
  }
  return {
    pod: podName,
    workloadClass: classifyWorkload(pod),
    ranked: feasible.map((i) => ({ node: name(i), total: totals[i]! })),
    top,
    infeasible: { count: infeasibleCount, byReason },
    decision,
  };
}

/** describeReasons — "3 insufficient cpu, 1 untolerated taint", most frequent first. */
export function describeReasons(byReason: Readonly<Partial<Record<FilterReason, number>>>): string {
  return Object.entries(byReason)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([r, c]) => `${c} ${r.replace(/_/g, ' ')}`)
    .join(', ');
}

/** countWorkloadZones — workloadKey → zone → count of the pods bound to the given nodes (for spread). */
export function countWorkloadZones(
  pods: readonly ScoringPod[],
  nodes: readonly ScoringNode[],
): Map<string, Map<string, number>> {
  const zoneOfNode = new Map(nodes.map((n) => [n.name, n.zone]));
  const out = new Map<string, Map<string, number>>();
  for (const pod of pods) {
    const key = workloadKey(pod);
    const zone = pod.nodeName === undefined ? undefined : zoneOfNode.get(pod.nodeName);
    if (key === undefined || zone === undefined) continue;
    let m = out.get(key);
    if (!m) out.set(key, (m = new Map()));
    m.set(zone, (m.get(zone) ?? 0) + 1);
  }
  return out;
}
