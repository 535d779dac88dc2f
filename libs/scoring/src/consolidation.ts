import { filterNode } from './filters.js';
import { pricing } from './prices.js';
import {
  ANNOTATION_DO_NOT_DISRUPT,
  ANNOTATION_SAFE_TO_EVICT,
  type NodeResources,
  type PriceTable,
  type ScoringNode,
  type ScoringPod,
} from './types.js';

/** PdbInfo — a PodDisruptionBudget as the plan needs it: matchLabels selector and what it allows right now. */
export interface PdbInfo {
  readonly name: string;
  readonly namespace: string;
  readonly selector: Readonly<Record<string, string>>;
  readonly disruptionsAllowed: number;
}

/** Why an under-used node stays (machine-readable; the `detail` names the pod or budget). */
export type ConsolidationBlockReason =
  | 'node_do_not_disrupt'
  | 'pod_without_controller'
  | 'pod_with_local_storage'
  | 'pod_do_not_disrupt'
  | 'pod_not_safe_to_evict'
  | 'pdb_exhausted'
  | 'node_receives_pods'
  | 'pods_do_not_fit';

export interface ConsolidationInput {
  readonly nodes: readonly ScoringNode[];
  readonly pods: readonly ScoringPod[];
  readonly pdbs: readonly PdbInfo[];
  readonly prices?: PriceTable;
  /** Nodes below this utilisation (max of cpu and memory requested / allocatable) are candidates. */
  readonly threshold?: number;
}

export interface NodeRemoval {
  readonly node: string;
  readonly reason: 'empty' | 'underutilized';
  readonly utilization: number;
  readonly pods: readonly { readonly pod: string; readonly to: string }[];
  readonly savingsUsdPerHour: number;
  readonly priceKnown: boolean;
}

export interface ConsolidationPlan {
  readonly remove: readonly NodeRemoval[];
  readonly blocked: readonly { readonly node: string; readonly reason: ConsolidationBlockReason; readonly detail: string }[];
  readonly pdbImpact: readonly { readonly pdb: string; readonly disruptionsUsed: number; readonly disruptionsAllowed: number }[];
  readonly hourlySavingsUsd: number;
  /** hourly × 730. */
  readonly monthlySavingsUsd: number;
}

export const HOURS_PER_MONTH = 730;

/** utilization — cluster-autoscaler's: max(cpu requested / allocatable, memory requested / allocatable). */
export function utilization(node: ScoringNode): number {
  const c = node.allocatable.cpuMilli > 0 ? node.requested.cpuMilli / node.allocatable.cpuMilli : 1;
  const m = node.allocatable.memoryBytes > 0 ? node.requested.memoryBytes / node.allocatable.memoryBytes : 1;
  return Math.max(c, m);
}

/** ignoredForDrain — DaemonSet and mirror pods neither move nor block (as `kubectl drain`). */
export function ignoredForDrain(pod: ScoringPod): boolean {
  return pod.ownerKind === 'DaemonSet' || pod.mirror === true || pod.ownerKind === 'Node';
}

/** podBlockReason — why this pod keeps its node, or undefined when it can be evicted and re-placed. */
export function podBlockReason(pod: ScoringPod): ConsolidationBlockReason | undefined {
  if (pod.annotations[ANNOTATION_DO_NOT_DISRUPT] === 'true') return 'pod_do_not_disrupt';
  if (pod.annotations[ANNOTATION_SAFE_TO_EVICT] === 'false') return 'pod_not_safe_to_evict';
  if (pod.ownerKind === undefined) return 'pod_without_controller';
  if (pod.hasLocalStorage === true) return 'pod_with_local_storage';
  return undefined;
}

const active = (p: ScoringPod): boolean => p.phase !== 'Succeeded' && p.phase !== 'Failed';
const podName = (p: ScoringPod): string => `${p.namespace}/${p.name}`;

function pdbsOf(pod: ScoringPod, pdbs: readonly PdbInfo[]): number[] {
  const out: number[] = [];
  pdbs.forEach((b, i) => {
    if (b.namespace !== pod.namespace) return;
    for (const k in b.selector) if (pod.labels[k] !== b.selector[k]) return;
    out.push(i);
  });
  return out;
}

type Order = 'savings' | 'utilization' | 'pods';

/** Above this many nodes only the largest-saving-first order is tried. */
export const LARGE_FLEET = 500;

/**
 * planConsolidation — which under-used nodes can go. Candidates (utilisation < threshold, Ready) are tried
 * one by one; a node is removed only when none of its pods blocks it, the PodDisruptionBudgets still allow
 * every eviction (budgets are shared by the whole plan), and all its pods re-pack onto nodes that stay —
 * honouring the hard filters and capacity, counting pods already moved there. A node that receives pods is
 * not removed afterwards. DaemonSet and mirror pods are ignored. The plan is built for three candidate orders
 * (largest saving, lowest utilisation, fewest pods first) and the one saving most is returned; above
 * {@link LARGE_FLEET} nodes only the first.
 */
export function planConsolidation(input: ConsolidationInput): ConsolidationPlan {
  // Three orders cost three passes; on large fleets (the pass is O(candidates × pods × nodes)) one is enough.
  const orders: readonly Order[] = input.nodes.length <= LARGE_FLEET ? ['savings', 'utilization', 'pods'] : ['savings'];
  const plans = orders.map((o) => planInOrder(input, o));
  plans.sort((a, b) => b.hourlySavingsUsd - a.hourlySavingsUsd);
  return plans[0]!;
}

function planInOrder(input: ConsolidationInput, order: Order): ConsolidationPlan {
  const threshold = input.threshold ?? 0.5;
  const podsByNode = new Map<string, ScoringPod[]>();
  for (const p of input.pods) {
    if (p.nodeName === undefined || !active(p) || ignoredForDrain(p)) continue;
    let list = podsByNode.get(p.nodeName);
    if (!list) podsByNode.set(p.nodeName, (list = []));
    list.push(p);
  }
  const price = (n: ScoringNode) => pricing(input.prices, n.instanceType, n.zone, n.capacityType, n.priceUsdPerHour).usdPerHour;
  const candidates = input.nodes
    .filter((n) => n.ready && utilization(n) < threshold)
    .map((n) => ({ n, u: utilization(n), usd: price(n), pods: podsByNode.get(n.name) ?? [] }));
  candidates.sort((a, b) => {
    if (order === 'savings') return (b.usd ?? 0) - (a.usd ?? 0) || a.u - b.u;
    if (order === 'utilization') return a.u - b.u || (b.usd ?? 0) - (a.usd ?? 0);
    return a.pods.length - b.pods.length || (b.usd ?? 0) - (a.usd ?? 0);
  });
  // Destinations: fullest first, so re-packing fills nodes that are already busy.
  const destinations = input.nodes.filter((n) => n.ready && !n.unschedulable).sort((a, b) => utilization(b) - utilization(a));
  const removed = new Set<string>();
  const extra = new Map<string, { cpuMilli: number; memoryBytes: number; gpu: number; pods: number }>();
  const budgetUsed = input.pdbs.map(() => 0);
  const remove: NodeRemoval[] = [];
  const blocked: { node: string; reason: ConsolidationBlockReason; detail: string }[] = [];

  for (const c of candidates) {
    const node = c.n;
    const block = (reason: ConsolidationBlockReason, detail: string) => blocked.push({ node: node.name, reason, detail });
    if (node.annotations?.[ANNOTATION_DO_NOT_DISRUPT] === 'true') {
      block('node_do_not_disrupt', `${node.name} is annotated ${ANNOTATION_DO_NOT_DISRUPT}`);
      continue;
    }
    if (extra.has(node.name)) {
      block('node_receives_pods', `${node.name} takes pods from another removed node`);
      continue;
    }
    const blocker = c.pods.map((p) => ({ p, r: podBlockReason(p) })).find((x) => x.r !== undefined);
    if (blocker) {
      block(blocker.r!, `pod ${podName(blocker.p)}`);
      continue;
    }
    const need = input.pdbs.map(() => 0);
    for (const p of c.pods) for (const i of pdbsOf(p, input.pdbs)) need[i]! += 1;
    const exhausted = need.findIndex((k, i) => k > 0 && budgetUsed[i]! + k > input.pdbs[i]!.disruptionsAllowed);
    if (exhausted >= 0) {
      const b = input.pdbs[exhausted]!;
      block('pdb_exhausted', `PodDisruptionBudget ${b.namespace}/${b.name} allows ${b.disruptionsAllowed - budgetUsed[exhausted]!} more, needs ${need[exhausted]}`);
      continue;
    }
    const moves = repack(c.pods, node, destinations, removed, extra);
    if (!moves.ok) {
      block('pods_do_not_fit', `pod ${podName(moves.pod)} fits on no remaining node`);
      continue;
    }
    for (const [dest, add] of moves.tentative) extra.set(dest, add);
    need.forEach((k, i) => (budgetUsed[i]! += k));
    removed.add(node.name);
    remove.push({
      node: node.name,
      reason: c.pods.length === 0 ? 'empty' : 'underutilized',
      utilization: c.u,
      pods: moves.moves,
      savingsUsdPerHour: c.usd ?? 0,
      priceKnown: c.usd !== undefined,
    });
  }
  const hourly = remove.reduce((s, r) => s + r.savingsUsdPerHour, 0);
  return {
    remove,
    blocked,
    pdbImpact: input.pdbs.map((b, i) => ({ pdb: `${b.namespace}/${b.name}`, disruptionsUsed: budgetUsed[i]!, disruptionsAllowed: b.disruptionsAllowed })),
    hourlySavingsUsd: Math.round(hourly * 1e6) / 1e6,
    monthlySavingsUsd: Math.round(hourly * HOURS_PER_MONTH * 100) / 100,
  };
}

type Extra = { cpuMilli: number; memoryBytes: number; gpu: number; pods: number };

/** repack — first fit, largest pod first, onto staying nodes; on failure nothing is committed. */
function repack(
  pods: readonly ScoringPod[],
  from: ScoringNode,
  destinations: readonly ScoringNode[],
  removed: ReadonlySet<string>,
  extra: ReadonlyMap<string, Extra>,
): { ok: true; moves: { pod: string; to: string }[]; tentative: Map<string, Extra> } | { ok: false; pod: ScoringPod } {
  const tentative = new Map<string, Extra>();
  const moves: { pod: string; to: string }[] = [];
  const sorted = [...pods].sort((a, b) => b.requests.cpuMilli - a.requests.cpuMilli || b.requests.memoryBytes - a.requests.memoryBytes);
  for (const pod of sorted) {
    const r = pod.requests;
    let placed = false;
    for (const d of destinations) {
      if (d.name === from.name || removed.has(d.name)) continue;
      const e: Extra = tentative.get(d.name) ?? extra.get(d.name) ?? { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 };
      // Cheap capacity check before the full filters.
      const a = d.allocatable;
      const q = d.requested;
      if (q.cpuMilli + e.cpuMilli + r.cpuMilli > a.cpuMilli || q.memoryBytes + e.memoryBytes + r.memoryBytes > a.memoryBytes) continue;
      if (filterNode(pod, d, e as NodeResources).length > 0) continue;
      tentative.set(d.name, {
        cpuMilli: e.cpuMilli + r.cpuMilli,
        memoryBytes: e.memoryBytes + r.memoryBytes,
        gpu: e.gpu + r.gpu,
        pods: e.pods + (r.pods ?? 1),
      });
      moves.push({ pod: podName(pod), to: d.name });
      placed = true;
      break;
    }
    if (!placed) return { ok: false, pod };
  }
  return { ok: true, moves, tentative };
}
