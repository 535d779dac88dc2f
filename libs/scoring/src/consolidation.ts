import { filterNode, staticFiltersPass } from './filters.js';
import { pricing } from './prices.js';
import {
  ANNOTATION_DO_NOT_DISRUPT,
  ANNOTATION_SAFE_TO_EVICT,
  type NodeResources,
  type PriceTable,
  type ResourceRequests,
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

/** CONSOLIDATION_BLOCK_WORDS — each reason a node is kept, as a person reads it in a rationale ("3 …"). */
export const CONSOLIDATION_BLOCK_WORDS: Readonly<Record<ConsolidationBlockReason, { one: string; many: string }>> = {
  node_do_not_disrupt: { one: 'node marked do-not-disrupt', many: 'nodes marked do-not-disrupt' },
  pod_without_controller: { one: 'node with a pod no controller would recreate', many: 'nodes with a pod no controller would recreate' },
  pod_with_local_storage: { one: 'node with a pod on local storage', many: 'nodes with a pod on local storage' },
  pod_do_not_disrupt: { one: 'node with a pod marked do-not-disrupt', many: 'nodes with a pod marked do-not-disrupt' },
  pod_not_safe_to_evict: { one: 'node with a pod not safe to evict', many: 'nodes with a pod not safe to evict' },
  pdb_exhausted: { one: 'node whose PodDisruptionBudget allows no more disruptions', many: 'nodes whose PodDisruptionBudget allows no more disruptions' },
  node_receives_pods: { one: 'node that takes the moved pods', many: 'nodes that take the moved pods' },
  pods_do_not_fit: { one: 'node whose pods fit nowhere else', many: 'nodes whose pods fit nowhere else' },
};

/** blockedWords — `3 nodes whose pods fit nowhere else` for a reason counted n times (a code it does not know stays readable). */
export function blockedWords(reason: string, n: number): string {
  const w = (CONSOLIDATION_BLOCK_WORDS as Record<string, { one: string; many: string } | undefined>)[reason];
  return `${n} ${w ? (n === 1 ? w.one : w.many) : reason.replace(/_/g, ' ')}`;
}

/**
 * pdbExhaustedDetail — why budget `b` holds a node, as the plan's `blocked[].detail` says it:
 * `PodDisruptionBudget default/web allows 0 more, needs 1`, with the disruptions this plan already gave other nodes
 * when there are some (the node may be planned in a later plan, once those are done).
 */
export function pdbExhaustedDetail(b: Pick<PdbInfo, 'namespace' | 'name' | 'disruptionsAllowed'>, usedByPlan: number, needs: number): string {
  return `PodDisruptionBudget ${b.namespace}/${b.name} allows ${b.disruptionsAllowed - usedByPlan} more${usedByPlan > 0 ? ` (${usedByPlan} used by other nodes of this plan)` : ''}, needs ${needs}`;
}

/** REMOVAL_WORDS — why a node is removed, in words. */
export const REMOVAL_WORDS: Readonly<Record<NodeRemoval['reason'], string>> = { empty: 'empty', underutilized: 'under-used' };

export interface ConsolidationInput {
  readonly nodes: readonly ScoringNode[];
  readonly pods: readonly ScoringPod[];
  readonly pdbs: readonly PdbInfo[];
  readonly prices?: PriceTable;
  /** Nodes below this utilisation (max of cpu and memory requested / allocatable) are candidates. */
  readonly threshold?: number;
  /** Only these nodes may be removed (e.g. one NodePool's); every Ready, schedulable node may still take pods. */
  readonly candidates?: (node: ScoringNode) => boolean;
}

export interface NodeRemoval {
  readonly node: string;
  readonly reason: 'empty' | 'underutilized';
  readonly utilization: number;
  readonly pods: readonly { readonly pod: string; readonly to: string }[];
  readonly savingsUsdPerHour: number;
  readonly priceKnown: boolean;
}

/** ConsolidationBlock — a node the plan keeps: why (a code and in words), and for `pdb_exhausted` the budgets that hold it. */
export interface ConsolidationBlock {
  readonly node: string;
  readonly reason: ConsolidationBlockReason;
  readonly detail: string;
  /** `pdb_exhausted` only: every budget (`namespace/name`) that holds the node, sorted. */
  readonly pdbs?: readonly string[];
}

export interface ConsolidationPlan {
  readonly remove: readonly NodeRemoval[];
  readonly blocked: readonly ConsolidationBlock[];
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

type Order = 'savings' | 'utilization' | 'pods';

/** Above this many nodes only the largest-saving-first order is tried. */
export const LARGE_FLEET = 2000;

/**
 * planConsolidation — which under-used nodes can go. Candidates (utilisation < threshold, Ready, not cordoned, and passing
 * `candidates` when given) are tried one by one; a node is removed only when none of its pods blocks it, the
 * PodDisruptionBudgets still allow every eviction (budgets are shared by the whole plan), and all its pods
 * re-pack onto nodes that stay — honouring the hard filters and capacity, counting pods already moved there.
 * A node that receives pods is not removed afterwards. DaemonSet and mirror pods are ignored. The plan is built
 * for three candidate orders (largest saving, lowest utilisation, fewest pods first) and the one saving most is
 * returned; above {@link LARGE_FLEET} nodes only the first.
 *
 * Cost: re-packing is first fit over the staying nodes, fullest first, found through a max segment tree over
 * their free cpu, memory, pod slots and GPUs (see `FreeTree`, which also remembers where the last search for each
 * request shape ended), so a pod costs about O(log n) to place instead of a scan of every node; only the nodes the
 * tree offers are run through the full filters. A pod's budgets come from {@link PdbIndex}. The plan is the one a
 * scan of every node and budget gives (consolidation.reference.spec.ts).
 */
export function planConsolidation(input: ConsolidationInput): ConsolidationPlan {
  const orders: readonly Order[] = input.nodes.length <= LARGE_FLEET ? ['savings', 'utilization', 'pods'] : ['savings'];
  const shared = prepare(input);
  const plans = orders.map((o) => planInOrder(input, shared, o));
  plans.sort((a, b) => b.hourlySavingsUsd - a.hourlySavingsUsd);
  return plans[0]!;
}

interface Prepared {
  readonly podsByNode: ReadonlyMap<string, ScoringPod[]>;
  readonly candidates: readonly { n: ScoringNode; u: number; usd: number | undefined; pods: ScoringPod[] }[];
  /** Staying-node candidates for pods: Ready and schedulable, fullest first. */
  readonly destinations: readonly ScoringNode[];
  readonly destIndex: ReadonlyMap<string, number>;
  readonly pdbIndex: PdbIndex;
}

function prepare(input: ConsolidationInput): Prepared {
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
    // A cordoned node is on its way out (drained by us or someone else): planning it again would re-drain it.
    .filter((n) => n.ready && !n.unschedulable && utilization(n) < threshold && (input.candidates?.(n) ?? true))
    .map((n) => ({ n, u: utilization(n), usd: price(n), pods: podsByNode.get(n.name) ?? [] }));
  const destinations = input.nodes
    .filter((n) => n.ready && !n.unschedulable)
    .map((n) => ({ n, u: utilization(n) }))
    .sort((a, b) => b.u - a.u)
    .map((x) => x.n);
  return { podsByNode, candidates, destinations, destIndex: new Map(destinations.map((d, i) => [d.name, i])), pdbIndex: new PdbIndex(input.pdbs) };
}

/**
 * PdbIndex — the budgets by namespace and by one `key=value` of their selector (its first), so that a pod is
 * matched against the budgets one of its own labels names (and those with an empty selector, which select the whole
 * namespace), not against every budget of its namespace — a fleet has about one budget per three workloads.
 */
export class PdbIndex {
  /** namespace → budgets with an empty selector (or a first value that is not a string: checked against every pod). */
  private readonly wholeNamespace = new Map<string, number[]>();
  /** namespace → key → value → budgets whose first selector entry that is. */
  private readonly byLabel = new Map<string, Map<string, Map<string, number[]>>>();

  constructor(private readonly pdbs: readonly PdbInfo[]) {
    pdbs.forEach((b, i) => {
      let first: [string, string] | undefined;
      for (const k in b.selector) {
        const v = b.selector[k];
        if (typeof v === 'string') first = [k, v];
        break;
      }
      if (!first) return push(this.wholeNamespace, b.namespace, i);
      let keys = this.byLabel.get(b.namespace);
      if (!keys) this.byLabel.set(b.namespace, (keys = new Map()));
      let values = keys.get(first[0]);
      if (!values) keys.set(first[0], (values = new Map()));
      push(values, first[1], i);
    });
  }

  /** of — the indexes (ascending) of the budgets whose selector matches the pod's labels in its namespace. */
  of(pod: ScoringPod): number[] {
    const out: number[] = [];
    this.add(out, this.wholeNamespace.get(pod.namespace), pod);
    const keys = this.byLabel.get(pod.namespace);
    if (keys) for (const k in pod.labels) this.add(out, keys.get(k)?.get(pod.labels[k]!), pod);
    return out.length > 1 ? out.sort((a, b) => a - b) : out;
  }

  private add(out: number[], list: readonly number[] | undefined, pod: ScoringPod): void {
    if (list) for (const i of list) if (matches(this.pdbs[i]!, pod)) out.push(i);
  }
}

function matches(b: PdbInfo, pod: ScoringPod): boolean {
  for (const k in b.selector) if (pod.labels[k] !== b.selector[k]) return false;
  return true;
}

function push<K>(map: Map<K, number[]>, key: K, i: number): void {
  const list = map.get(key);
  if (list) list.push(i);
  else map.set(key, [i]);
}

function planInOrder(input: ConsolidationInput, prep: Prepared, order: Order): ConsolidationPlan {
  const candidates = [...prep.candidates];
  candidates.sort((a, b) => {
    if (order === 'savings') return (b.usd ?? 0) - (a.usd ?? 0) || a.u - b.u;
    if (order === 'utilization') return a.u - b.u || (b.usd ?? 0) - (a.usd ?? 0);
    return a.pods.length - b.pods.length || (b.usd ?? 0) - (a.usd ?? 0);
  });
  const dest = new Destinations(prep.destinations);
  const budgetUsed = input.pdbs.map(() => 0);
  const remove: NodeRemoval[] = [];
  const blocked: ConsolidationBlock[] = [];

  for (const c of candidates) {
    const node = c.n;
    const block = (reason: ConsolidationBlockReason, detail: string, pdbs?: readonly string[]) => blocked.push({ node: node.name, reason, detail, ...(pdbs ? { pdbs } : {}) });
    if (node.annotations?.[ANNOTATION_DO_NOT_DISRUPT] === 'true') {
      block('node_do_not_disrupt', `${node.name} is annotated ${ANNOTATION_DO_NOT_DISRUPT}`);
      continue;
    }
    const self = prep.destIndex.get(node.name);
    if (self !== undefined && dest.received(self)) {
      block('node_receives_pods', `${node.name} takes pods from another removed node`);
      continue;
    }
    const blocker = c.pods.map((p) => ({ p, r: podBlockReason(p) })).find((x) => x.r !== undefined);
    if (blocker) {
      block(blocker.r!, `pod ${podName(blocker.p)}`);
      continue;
    }
    const need = new Map<number, number>();
    for (const p of c.pods) for (const i of prep.pdbIndex.of(p)) need.set(i, (need.get(i) ?? 0) + 1);
    // Every budget that holds the node is named: relaxing one of two would not free it.
    const exhausted = [...need].filter(([i, k]) => budgetUsed[i]! + k > input.pdbs[i]!.disruptionsAllowed);
    if (exhausted.length > 0) {
      const pdbs = [...new Set(exhausted.map(([i]) => `${input.pdbs[i]!.namespace}/${input.pdbs[i]!.name}`))].sort();
      block('pdb_exhausted', exhausted.map(([i, k]) => pdbExhaustedDetail(input.pdbs[i]!, budgetUsed[i]!, k)).join('; '), pdbs);
      continue;
    }
    const moves = repack(c.pods, self, dest);
    if (!moves.ok) {
      block('pods_do_not_fit', `pod ${podName(moves.pod)} fits on no remaining node`);
      continue;
    }
    for (const [i, k] of need) budgetUsed[i]! += k;
    if (self !== undefined) dest.remove(self);
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

/** placementKey — what the non-resource filters read of a pod: pods with equal keys pass the same nodes. */
const placementKey = (p: ScoringPod): string =>
  JSON.stringify([p.nodeSelector ?? null, p.requiredNodeAffinity ?? null, p.tolerations, p.pvcZones ?? null]);

/** A max segment tree over free cpu, memory, pod slots and GPUs of the nodes one placement key may use (others are −∞). */
interface FreeTree {
  readonly ok: Uint8Array;
  readonly maxCpu: Float64Array;
  readonly maxMem: Float64Array;
  readonly maxPods: Float64Array;
  readonly maxGpu: Float64Array;
  /**
   * Per request shape (`cpu/memory/pods/gpu`): no allowed node before this index has room for it. Free room only
   * shrinks as the plan goes on, except when a failed re-pack is undone — then every entry is brought back to the
   * node that regained room — so a search for a shape seen before starts where the last one ended.
   */
  readonly fit: Map<string, number>;
}

/**
 * Destinations — the staying nodes (fullest first) with what the plan has moved onto each, in typed arrays, and
 * per placement key (selector, affinity, tolerations, volume zones) a max segment tree over the free cpu,
 * memory, pod slots and GPUs of the nodes that key's static filters allow: `next(pod, key, from)` is the first such
 * node at or after `from` whose free cpu, memory, pod slots and GPUs all cover the request — O(log n) when the
 * maxima agree, since a subtree whose max of any of them is too small is skipped whole. The maxima of one subtree
 * may come from different nodes, so a search can also descend into subtrees with no node that fits; each tree
 * remembers per request shape where the last search for it ended (`FreeTree.fit`), so that ground is not searched
 * again for the next pod of that shape. Trees are built on first use (one static-filter check per node per key; a
 * fleet has a handful of keys) and kept in step on every move. Removed nodes are −∞.
 */
class Destinations {
  readonly extraCpu: Float64Array;
  readonly extraMem: Float64Array;
  readonly extraGpu: Float64Array;
  readonly extraPods: Float64Array;
  private readonly freeCpu: Float64Array;
  private readonly freeMem: Float64Array;
  private readonly freePods: Float64Array;
  private readonly freeGpu: Float64Array;
  private readonly size: number;
  private readonly trees = new Map<string, FreeTree>();

  constructor(readonly nodes: readonly ScoringNode[]) {
    const n = nodes.length;
    this.extraCpu = new Float64Array(n);
    this.extraMem = new Float64Array(n);
    this.extraGpu = new Float64Array(n);
    this.extraPods = new Float64Array(n);
    this.freeCpu = new Float64Array(n);
    this.freeMem = new Float64Array(n);
    this.freePods = new Float64Array(n);
    this.freeGpu = new Float64Array(n);
    nodes.forEach((d, i) => {
      this.freeCpu[i] = d.allocatable.cpuMilli - d.requested.cpuMilli;
      this.freeMem[i] = d.allocatable.memoryBytes - d.requested.memoryBytes;
      this.freePods[i] = d.allocatable.pods - d.requested.pods;
      this.freeGpu[i] = d.allocatable.gpu - d.requested.gpu;
    });
    let size = 1;
    while (size < n) size *= 2;
    this.size = size;
  }

  received(i: number): boolean {
    return this.extraPods[i]! > 0 || this.extraCpu[i]! > 0 || this.extraMem[i]! > 0;
  }

  private tree(key: string, pod: ScoringPod): FreeTree {
    let t = this.trees.get(key);
    if (t) return t;
    const size = this.size;
    const ok = new Uint8Array(this.nodes.length);
    const maxCpu = new Float64Array(2 * size).fill(-Infinity);
    const maxMem = new Float64Array(2 * size).fill(-Infinity);
    const maxPods = new Float64Array(2 * size).fill(-Infinity);
    const maxGpu = new Float64Array(2 * size).fill(-Infinity);
    this.nodes.forEach((d, i) => {
      if (!staticFiltersPass(pod, d)) return;
      ok[i] = 1;
      maxCpu[size + i] = this.freeCpu[i]!;
      maxMem[size + i] = this.freeMem[i]!;
      maxPods[size + i] = this.freePods[i]!;
      maxGpu[size + i] = this.freeGpu[i]!;
    });
    for (let k = size - 1; k >= 1; k--) {
      maxCpu[k] = Math.max(maxCpu[2 * k]!, maxCpu[2 * k + 1]!);
      maxMem[k] = Math.max(maxMem[2 * k]!, maxMem[2 * k + 1]!);
      maxPods[k] = Math.max(maxPods[2 * k]!, maxPods[2 * k + 1]!);
      maxGpu[k] = Math.max(maxGpu[2 * k]!, maxGpu[2 * k + 1]!);
    }
    this.trees.set(key, (t = { ok, maxCpu, maxMem, maxPods, maxGpu, fit: new Map() }));
    return t;
  }

  set(i: number, cpu: number, mem: number, pods: number, gpu: number): void {
    const grows = !(cpu <= this.freeCpu[i]! && mem <= this.freeMem[i]! && pods <= this.freePods[i]! && gpu <= this.freeGpu[i]!);
    this.freeCpu[i] = cpu;
    this.freeMem[i] = mem;
    this.freePods[i] = pods;
    this.freeGpu[i] = gpu;
    for (const t of this.trees.values()) {
      if (!t.ok[i]) continue;
      if (grows) for (const [shape, at] of t.fit) if (at > i) t.fit.set(shape, i);
      let k = this.size + i;
      t.maxCpu[k] = cpu;
      t.maxMem[k] = mem;
      t.maxPods[k] = pods;
      t.maxGpu[k] = gpu;
      for (k >>= 1; k >= 1; k >>= 1) {
        const c = Math.max(t.maxCpu[2 * k]!, t.maxCpu[2 * k + 1]!);
        const m = Math.max(t.maxMem[2 * k]!, t.maxMem[2 * k + 1]!);
        const p = Math.max(t.maxPods[2 * k]!, t.maxPods[2 * k + 1]!);
        const g = Math.max(t.maxGpu[2 * k]!, t.maxGpu[2 * k + 1]!);
        if (c === t.maxCpu[k] && m === t.maxMem[k] && p === t.maxPods[k] && g === t.maxGpu[k]) break;
        t.maxCpu[k] = c;
        t.maxMem[k] = m;
        t.maxPods[k] = p;
        t.maxGpu[k] = g;
      }
    }
  }

  remove(i: number): void {
    this.set(i, -Infinity, -Infinity, -Infinity, -Infinity);
  }

  /** add — commit (or, with sign −1, undo) a pod's requests on node i. */
  add(i: number, r: ResourceRequests, sign: 1 | -1): void {
    this.extraCpu[i]! += sign * r.cpuMilli;
    this.extraMem[i]! += sign * r.memoryBytes;
    this.extraGpu[i]! += sign * r.gpu;
    this.extraPods[i]! += sign * (r.pods ?? 1);
    this.set(i, this.freeCpu[i]! - sign * r.cpuMilli, this.freeMem[i]! - sign * r.memoryBytes, this.freePods[i]! - sign * (r.pods ?? 1), this.freeGpu[i]! - sign * r.gpu);
  }

  /** next — the first node at or after `from` that `pod`'s static filters allow and whose free cpu, memory, pod slots and GPUs cover it. */
  next(pod: ScoringPod, key: string, from: number): number {
    const t = this.tree(key, pod);
    const r = pod.requests;
    const shape = `${r.cpuMilli}/${r.memoryBytes}/${r.pods ?? 1}/${r.gpu}`;
    const known = t.fit.get(shape) ?? 0;
    const i = first(t, 1, 0, this.size, Math.max(from, known), r.cpuMilli, r.memoryBytes, r.pods ?? 1, r.gpu, this.nodes.length);
    // Searched from where no node before fits: nothing before `i` does either.
    if (from <= known) t.fit.set(shape, i < 0 ? this.nodes.length : i);
    return i;
  }
}

function first(t: FreeTree, k: number, lo: number, hi: number, from: number, cpu: number, mem: number, pods: number, gpu: number, n: number): number {
  if (hi <= from || t.maxCpu[k]! < cpu || t.maxMem[k]! < mem || t.maxPods[k]! < pods || t.maxGpu[k]! < gpu) return -1;
  if (hi - lo === 1) return lo < n ? lo : -1;
  const mid = (lo + hi) >> 1;
  const l = first(t, 2 * k, lo, mid, from, cpu, mem, pods, gpu, n);
  return l >= 0 ? l : first(t, 2 * k + 1, mid, hi, from, cpu, mem, pods, gpu, n);
}

/**
 * repack — first fit, largest pod first, onto the staying nodes (fullest first), each offered node checked with
 * every hard filter counting what the plan already moved there; the candidate itself is passed over. On failure
 * nothing is committed.
 */
function repack(
  pods: readonly ScoringPod[],
  self: number | undefined,
  dest: Destinations,
): { ok: true; moves: { pod: string; to: string }[] } | { ok: false; pod: ScoringPod } {
  const moves: { pod: string; to: string }[] = [];
  const done: { i: number; r: ResourceRequests }[] = [];
  const sorted = [...pods].sort((a, b) => b.requests.cpuMilli - a.requests.cpuMilli || b.requests.memoryBytes - a.requests.memoryBytes);
  for (const pod of sorted) {
    const r = pod.requests;
    const key = placementKey(pod);
    let placed = false;
    for (let i = dest.next(pod, key, 0); i >= 0; i = dest.next(pod, key, i + 1)) {
      // Passed over rather than hidden in the trees: hiding and showing it again would undo what they remember.
      if (i === self) continue;
      const extra: NodeResources = { cpuMilli: dest.extraCpu[i]!, memoryBytes: dest.extraMem[i]!, gpu: dest.extraGpu[i]!, pods: dest.extraPods[i]! };
      if (filterNode(pod, dest.nodes[i]!, extra).length > 0) continue;
      dest.add(i, r, 1);
      done.push({ i, r });
      moves.push({ pod: podName(pod), to: dest.nodes[i]!.name });
      placed = true;
      break;
    }
    if (!placed) {
      for (const d of done.reverse()) dest.add(d.i, d.r, -1);
      return { ok: false, pod };
    }
  }
  return { ok: true, moves };
}
