import type { InstanceTypeSpec } from '@nodes-manager/contracts';
import { avoidsSpotByDefault } from './classify.js';
import { firstUntoleratedTaint, nodeSelectorMismatch, toleratesUnschedulable } from './filters.js';
import { ColumnLp, maximizeLp } from './lp.js';
import { pricing } from './prices.js';
import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_ZONE,
  priceKey,
  type CapacityType,
  type NodeResources,
  type PriceTable,
  type ResourceRequests,
  type ScoringNode,
  type Toleration,
  type WorkloadClass,
} from './types.js';

/** SimulatePodGroup — `count` identical pods. `zone` pins them to one zone; `class` defaults from the requests. */
export interface SimulatePodGroup {
  readonly name?: string;
  readonly requests: ResourceRequests;
  readonly count: number;
  readonly class?: WorkloadClass;
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Toleration[];
  readonly zone?: string;
}

export interface SimulateConstraints {
  /** Zones new nodes may go to; default: the zones of the existing nodes, else of the price table. */
  readonly zones?: readonly string[];
  /** Instance types new nodes may be; default the whole catalog. */
  readonly instanceTypes?: readonly string[];
  /** Allow Spot for new nodes at all (default true). */
  readonly allowSpot?: boolean;
  /** Classes kept off Spot; default stateful and latency_sensitive. */
  readonly spotAverseClasses?: readonly WorkloadClass[];
}

export interface SimulateInput {
  readonly pods: readonly SimulatePodGroup[];
  readonly nodes: readonly ScoringNode[];
  readonly catalog: readonly InstanceTypeSpec[];
  readonly prices: PriceTable;
  readonly constraints?: SimulateConstraints;
}

export interface NodeAddition {
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly count: number;
  readonly unitUsdPerHour: number;
  /** count × unit price. */
  readonly hourlyUsd: number;
}

/** Why pods could not be placed: no type in the catalog can hold one (given its constraints), or the types
 * that could have no known price here. */
export type UnschedulableReason = 'no_instance_type_fits' | 'no_priced_offering';

export interface SimulateResult {
  readonly placedOnExisting: readonly { readonly node: string; readonly pod: string; readonly count: number }[];
  readonly placedOnExistingCount: number;
  readonly additions: readonly NodeAddition[];
  /** Hourly cost of the additions. */
  readonly hourlyCostUsd: number;
  readonly unschedulable: readonly { readonly pod: string; readonly count: number; readonly reason: UnschedulableReason }[];
  /** Which packer produced the additions (the cheaper of the two, see {@link simulatePlacement}). */
  readonly algorithm: 'configuration-lp' | 'dual-greedy' | 'first-fit-decreasing';
}

/** A place a new node can be bought: type × zone × capacity type, with its price and allocatable. */
export interface Offering {
  readonly spec: InstanceTypeSpec;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly usdPerHour: number;
  /** Allocatable as [cpuMilli, memoryBytes, gpu, pods]. */
  readonly alloc: readonly number[];
  readonly labels: Readonly<Record<string, string>>;
}

const DIMS = 4;
const MiB = 1024 * 1024;

/**
 * allocatableFor — what a new node of this type offers pods, with the EKS AMI's reservations: cpu 6% of the
 * first core, 1% of the second, 0.5% of the next two, 0.25% above; memory 255 MiB + 11 MiB per pod slot plus
 * the 100 MiB hard-eviction threshold; pods = the VPC CNI limit.
 */
export function allocatableFor(spec: InstanceTypeSpec): NodeResources {
  const cores = spec.vcpu;
  const reservedCpu =
    60 * Math.min(cores, 1) + 10 * Math.min(Math.max(cores - 1, 0), 1) + 5 * Math.min(Math.max(cores - 2, 0), 2) + 2.5 * Math.max(cores - 4, 0);
  const reservedMem = (255 + 11 * spec.maxPods + 100) * MiB;
  return {
    cpuMilli: cores * 1000 - reservedCpu,
    memoryBytes: spec.memoryMiB * MiB - reservedMem,
    gpu: spec.gpu,
    pods: spec.maxPods,
  };
}

interface Group {
  readonly name: string;
  readonly req: readonly number[];
  readonly averse: boolean;
  readonly src: SimulatePodGroup;
  remaining: number;
}

const vec = (r: ResourceRequests): number[] => [r.cpuMilli, r.memoryBytes, r.gpu, r.pods ?? 1];

function toGroups(pods: readonly SimulatePodGroup[], constraints: SimulateConstraints | undefined): Group[] {
  return pods.map((p, i) => {
    const cls: WorkloadClass = p.class ?? (p.requests.gpu > 0 ? 'gpu' : 'stateless');
    const averse = constraints?.spotAverseClasses ? constraints.spotAverseClasses.includes(cls) : avoidsSpotByDefault(cls);
    return { name: p.name ?? `group-${i}`, req: vec(p.requests), averse, src: p, remaining: Math.max(0, Math.floor(p.count)) };
  });
}

/** offeringsFor — every priced (type, zone, capacity type) new nodes may be, per the constraints. */
export function offeringsFor(
  catalog: readonly InstanceTypeSpec[],
  prices: PriceTable,
  nodes: readonly ScoringNode[],
  constraints: SimulateConstraints = {},
): Offering[] {
  const zones = zonesFor(prices, nodes, constraints);
  const allowed = constraints.instanceTypes ? new Set(constraints.instanceTypes) : undefined;
  const capacityTypes: CapacityType[] = constraints.allowSpot === false ? ['on-demand'] : ['on-demand', 'spot'];
  const out: Offering[] = [];
  for (const spec of catalog) {
    if (allowed && !allowed.has(spec.name)) continue;
    const a = allocatableFor(spec);
    for (const zone of zones) {
      for (const capacityType of capacityTypes) {
        const usd = pricing(prices, spec.name, zone, capacityType).usdPerHour;
        if (usd === undefined || !(usd > 0)) continue;
        out.push({
          spec,
          zone,
          capacityType,
          usdPerHour: usd,
          alloc: [a.cpuMilli, a.memoryBytes, a.gpu, a.pods],
          labels: {
            [LABEL_INSTANCE_TYPE]: spec.name,
            [LABEL_ZONE]: zone,
            [LABEL_CAPACITY_TYPE]: capacityType,
            [LABEL_ARCH]: spec.arch,
            'karpenter.k8s.aws/instance-family': spec.family,
          },
        });
      }
    }
  }
  return out;
}

function zonesFor(prices: PriceTable, nodes: readonly ScoringNode[], constraints: SimulateConstraints): string[] {
  if (constraints.zones) return [...constraints.zones];
  const fromNodes = [...new Set(nodes.map((n) => n.zone))];
  if (fromNodes.length > 0) return fromNodes.sort();
  const fromPrices = new Set<string>();
  for (const key of prices.keys()) fromPrices.add(key.slice(key.indexOf('/') + 1));
  return [...fromPrices].sort();
}

function compatible(g: Group, o: Offering): boolean {
  if (g.averse && o.capacityType === 'spot') return false;
  if (g.src.zone !== undefined && g.src.zone !== o.zone) return false;
  if (nodeSelectorMismatch(g.src.nodeSelector, o.labels) !== undefined) return false;
  for (let d = 0; d < DIMS; d++) if (g.req[d]! > o.alloc[d]!) return false;
  return true;
}

/** howMany — how many pods of size `req` fit into `free` (Infinity when the pod asks for nothing). */
function howMany(req: readonly number[], free: ArrayLike<number>): number {
  let k = Infinity;
  for (let d = 0; d < DIMS; d++) {
    if (req[d]! > 0) k = Math.min(k, Math.floor(free[d]! / req[d]! + 1e-9));
  }
  return Math.max(0, k);
}

/** Size used to order pods "decreasing": cpu cores + memory in 4 GiB units + 8 per GPU (a vCPU:4 GiB node). */
const sizeOf = (req: readonly number[]): number => req[0]! / 1000 + req[1]! / (4 * 1024 * MiB) + 8 * req[2]!;

type ExistingPlacement = { node: string; pod: string; count: number };

/**
 * placeOnExisting — first free capacity of existing nodes: groups largest first, each first-fit over the
 * Ready, schedulable nodes (fullest first), honouring taints, nodeSelector and zone. Mutates `remaining`.
 */
function placeOnExisting(groups: Group[], nodes: readonly ScoringNode[]): ExistingPlacement[] {
  const usable = nodes.filter((n) => n.ready);
  const util = (n: ScoringNode): number =>
    Math.max(n.requested.cpuMilli / Math.max(1, n.allocatable.cpuMilli), n.requested.memoryBytes / Math.max(1, n.allocatable.memoryBytes));
  usable.sort((a, b) => util(b) - util(a));
  const free = usable.map((n) => [
    n.allocatable.cpuMilli - n.requested.cpuMilli,
    n.allocatable.memoryBytes - n.requested.memoryBytes,
    n.allocatable.gpu - n.requested.gpu,
    n.allocatable.pods - n.requested.pods,
  ]);
  const placed: ExistingPlacement[] = [];
  const order = [...groups].sort((a, b) => sizeOf(b.req) - sizeOf(a.req));
  for (const g of order) {
    const tolerations = g.src.tolerations ?? [];
    const cordonOk = toleratesUnschedulable(tolerations);
    for (let i = 0; i < usable.length && g.remaining > 0; i++) {
      const node = usable[i]!;
      if (node.unschedulable && !cordonOk) continue;
      if (g.src.zone !== undefined && node.zone !== g.src.zone) continue;
      if (nodeSelectorMismatch(g.src.nodeSelector, node.labels) !== undefined) continue;
      if (g.averse && node.capacityType === 'spot') continue;
      if (firstUntoleratedTaint(node.taints, tolerations)) continue;
      const k = Math.min(g.remaining, howMany(g.req, free[i]!));
      if (k <= 0) continue;
      for (let d = 0; d < DIMS; d++) free[i]![d]! -= k * g.req[d]!;
      g.remaining -= k;
      placed.push({ node: node.name, pod: g.name, count: k });
    }
  }
  return placed;
}

/** Pods no offering can take, taken out of `remaining`. */
function takeUnplaceable(
  groups: Group[],
  offerings: readonly Offering[],
  catalog: readonly InstanceTypeSpec[],
  nodes: readonly ScoringNode[],
  constraints: SimulateConstraints | undefined,
): SimulateResult['unschedulable'] {
  const out: { pod: string; count: number; reason: UnschedulableReason }[] = [];
  let unpriced: Offering[] | undefined;
  for (const g of groups) {
    if (g.remaining <= 0 || offerings.some((o) => compatible(g, o))) continue;
    // Would it fit with every price known? Then the reason is the missing price, not the catalog.
    unpriced ??= offeringsFor(catalog, allPricesKnown(catalog, nodes, constraints), nodes, constraints);
    const reason: UnschedulableReason = unpriced.some((o) => compatible(g, o)) ? 'no_priced_offering' : 'no_instance_type_fits';
    out.push({ pod: g.name, count: g.remaining, reason });
    g.remaining = 0;
  }
  return out;
}

function allPricesKnown(catalog: readonly InstanceTypeSpec[], nodes: readonly ScoringNode[], c: SimulateConstraints | undefined): PriceTable {
  const zones = zonesFor(new Map(), nodes, c ?? {});
  const m = new Map<string, { spotUsdPerHour: number; onDemandUsdPerHour: number }>();
  for (const s of catalog) for (const z of zones) m.set(priceKey(s.name, z), { spotUsdPerHour: 1, onDemandUsdPerHour: 1 });
  return m;
}

/** NewNodes — additions keyed by offering, accumulated by a packer. */
class NewNodes {
  private readonly counts = new Map<Offering, number>();
  add(o: Offering, count: number): void {
    this.counts.set(o, (this.counts.get(o) ?? 0) + count);
  }
  merge(other: NewNodes): void {
    for (const [o, c] of other.counts) this.add(o, c);
  }
  get cost(): number {
    let s = 0;
    for (const [o, c] of this.counts) s += o.usdPerHour * c;
    return s;
  }
  additions(): NodeAddition[] {
    return [...this.counts]
      .map(([o, count]) => ({
        instanceType: o.spec.name,
        zone: o.zone,
        capacityType: o.capacityType,
        count,
        unitUsdPerHour: o.usdPerHour,
        hourlyUsd: roundUsd(o.usdPerHour * count),
      }))
      .sort((a, b) => b.hourlyUsd - a.hourlyUsd || a.instanceType.localeCompare(b.instanceType) || a.zone.localeCompare(b.zone));
  }
}

const roundUsd = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * Demand as the lower bound sees it: [averse cpu, mem, gpu, pods, all cpu, mem, gpu, pods] — pods that must
 * avoid Spot, and every pod.
 */
function demandOf(groups: readonly Group[]): number[] {
  const d = new Array<number>(2 * DIMS).fill(0);
  for (const g of groups) {
    for (let k = 0; k < DIMS; k++) {
      const amount = g.remaining * g.req[k]!;
      if (g.averse) d[k]! += amount;
      d[DIMS + k]! += amount;
    }
  }
  return d;
}

// Units for the LP (keeps its numbers near 1): cores, GiB, GPUs, pods.
const UNIT = [1000, 1024 * MiB, 1, 1];

/**
 * lpBound — min Σ_o price_o·x_o over fractional node counts x ≥ 0 such that On-Demand capacity covers the
 * Spot-averse demand and all capacity covers all demand, per dimension (cpu, memory, GPU, pod slots). Zones
 * and selectors are relaxed away, so this is a valid lower bound for any packing. Solved through its dual
 * (`maximizeLp`), whose solution y prices each unit of each resource; returned for the greedy packer.
 */
function lpBound(demand: readonly number[], offerings: readonly Offering[]): { value: number; y: number[] } {
  if (demand.every((x) => x <= 0)) return { value: 0, y: new Array<number>(2 * DIMS).fill(0) };
  // One dual constraint per (type, capacity type): its cheapest zone dominates the others.
  const cheapest = new Map<string, Offering>();
  for (const o of offerings) {
    const key = `${o.spec.name}/${o.capacityType}`;
    const prev = cheapest.get(key);
    if (!prev || o.usdPerHour < prev.usdPerHour) cheapest.set(key, o);
  }
  const c = demand.map((x, i) => x / UNIT[i % DIMS]!);
  const A: number[][] = [];
  const b: number[] = [];
  for (const o of cheapest.values()) {
    const cap = o.alloc.map((x, d) => x / UNIT[d]!);
    A.push(o.capacityType === 'on-demand' ? [...cap, ...cap] : [0, 0, 0, 0, ...cap]);
    b.push(o.usdPerHour);
  }
  const r = maximizeLp(c, A, b);
  if (r.status === 'unbounded') return { value: Infinity, y: new Array<number>(2 * DIMS).fill(0) };
  return { value: r.value, y: r.y.map((v, i) => v / UNIT[i % DIMS]!) };
}

export interface LowerBoundResult {
  /** The best bound: the larger of the resource LP and the configuration LP's bound (existing free capacity
   * as zero-cost bins, see `configurationBound`). No placement of these pods costs less per hour. */
  readonly usdPerHour: number;
  /** The resource LP relaxation (see `lpBound`). */
  readonly resourceLpUsdPerHour: number;
  /** The simpler bound: max over dimensions of demand × the cheapest price per unit of that dimension. */
  readonly perDimensionUsdPerHour: number;
  /** The configuration LP's restricted master value — NOT a bound (an estimate from above of the LP optimum;
   * equal to it, within 0.01%, when pricing certified it), reported so the gap between plan and bound can be
   * split into packing and bound looseness. */
  readonly configurationLpEstimateUsdPerHour?: number;
}

/**
 * lowerBoundCost — a lower bound on the hourly cost of the new nodes any placement of `pods` needs: the larger
 * of the resource LP (existing free capacity subtracted as if it were fluid, On-Demand free capacity from the
 * Spot-averse demand) and the configuration LP's bound with existing nodes as zero-cost bins
 * (`configurationBound`, docs/scoring.md). Pods no offering can hold are left out. Each bound is ≥ the
 * per-dimension one.
 */
export function lowerBoundCost(input: SimulateInput): LowerBoundResult {
  const groups = toGroups(input.pods, input.constraints);
  const offerings = offeringsFor(input.catalog, input.prices, input.nodes, input.constraints);
  for (const g of groups) if (!offerings.some((o) => compatible(g, o))) g.remaining = 0;
  const demand = demandOf(groups);
  const cordonTolerated = groups.some((g) => g.remaining > 0 && toleratesUnschedulable(g.src.tolerations ?? []));
  for (const n of input.nodes) {
    if (!n.ready || (n.unschedulable && !cordonTolerated)) continue;
    const free = [
      n.allocatable.cpuMilli - n.requested.cpuMilli,
      n.allocatable.memoryBytes - n.requested.memoryBytes,
      n.allocatable.gpu - n.requested.gpu,
      n.allocatable.pods - n.requested.pods,
    ];
    for (let d = 0; d < DIMS; d++) {
      const f = Math.max(0, free[d]!);
      if (n.capacityType === 'on-demand') demand[d] = Math.max(0, demand[d]! - f);
      demand[DIMS + d] = Math.max(0, demand[DIMS + d]! - f);
    }
  }
  let perDimension = 0;
  for (let d = 0; d < DIMS; d++) {
    let unitAll = Infinity;
    let unitOd = Infinity;
    for (const o of offerings) {
      if (o.alloc[d]! <= 0) continue;
      const unit = o.usdPerHour / o.alloc[d]!;
      unitAll = Math.min(unitAll, unit);
      if (o.capacityType === 'on-demand') unitOd = Math.min(unitOd, unit);
    }
    const averse = demand[d]! > 0 ? demand[d]! * unitOd : 0;
    const all = demand[DIMS + d]! > 0 ? demand[DIMS + d]! * unitAll : 0;
    perDimension = Math.max(perDimension, averse, all);
  }
  const resourceLp = lpBound(demand, offerings).value;
  const configuration = configurationBound(groups, offerings, existingBins(groups, input.nodes));
  return {
    usdPerHour: Math.max(resourceLp, configuration?.bound ?? 0),
    resourceLpUsdPerHour: resourceLp,
    perDimensionUsdPerHour: perDimension,
    ...(configuration ? { configurationLpEstimateUsdPerHour: configuration.value } : {}),
  };
}

/** A pattern: how many pods of each group one new node of `o` (or one existing node of bin class `bin`) holds. */
interface Column {
  readonly o?: Offering;
  readonly bin?: number;
  readonly k: Int32Array;
}

/**
 * ExistingBin — free capacity of `count` existing nodes that look alike to every group (same free vector, same
 * groups allowed): a bin of cost 0 in the configuration LP, at most `count` of them.
 */
interface ExistingBin {
  readonly free: readonly number[];
  readonly allows: readonly boolean[];
  readonly count: number;
}

interface ConfigurationBound {
  /** A proven lower bound on the cost of any placement (see {@link configurationBound}). */
  readonly bound: number;
  /** The restricted master LP's value (an upper estimate of the configuration LP). */
  readonly value: number;
  /** True when exact pricing found no improving pattern: `value` is the configuration LP's optimum. */
  readonly certified: boolean;
  /** Per-pod prices (LP duals), by group. */
  readonly y: readonly number[];
  readonly columns: readonly Column[];
  /** Node count per column in the LP's optimum. */
  readonly x: readonly number[];
}

/** Effort limits of {@link configurationBound}: deterministic counts, never time. */
export interface ConfigurationEffort {
  /** Column-generation rounds. */
  readonly rounds: number;
  /** Search nodes of one pricing knapsack before it falls back to its LP relaxation. */
  readonly knapsackNodes: number;
  /** The same limit for the certifying round(s), once no pattern prices out within `knapsackNodes`. */
  readonly certifyKnapsackNodes: number;
  /** Search nodes of all pricing knapsacks together. */
  readonly totalKnapsackNodes: number;
}

/** For the bound: generate with cheap searches, then try to certify with deep ones. */
export const BOUND_EFFORT: ConfigurationEffort = { rounds: 60, knapsackNodes: 3000, certifyKnapsackNodes: 100_000, totalKnapsackNodes: 2_000_000 };
/** For packing: only the LP solution matters, not a certificate. */
export const PACKING_EFFORT: ConfigurationEffort = { rounds: 60, knapsackNodes: 3000, certifyKnapsackNodes: 3000, totalKnapsackNodes: 500_000 };

/**
 * Relative optimality tolerance of the pricing knapsacks: a search prunes branches that cannot beat the
 * incumbent by more than this, so a finished search proves optimum ≤ best·(1 + tolerance) — which is the
 * upper bound the Farley step then uses (the bound loses at most this fraction; it stays valid).
 */
const PRICING_TOLERANCE = 1e-4;

/** Existing bin classes beyond which bins are merged into super-bins (a relaxation, see {@link existingBins}). */
const MAX_BIN_CLASSES = 24;

/**
 * existingBins — the free capacity of existing nodes as bins for the bound. A group may use a node when
 * `placeOnExisting` would let it (Ready; schedulable or a toleration of the cordon; zone, selector, taints,
 * Spot aversion) and one pod fits. Identical bins are counted once with a multiplicity. Beyond
 * {@link MAX_BIN_CLASSES} classes, runs of classes (ordered by who they allow, then size) are merged into one
 * super-bin holding their summed free capacity and allowing any group one of them allowed: whatever fits the
 * original bins fits the super-bins, so the bound stays valid (only looser).
 */
function existingBins(groups: readonly Group[], nodes: readonly ScoringNode[]): ExistingBin[] {
  const classes = new Map<string, { free: number[]; allows: boolean[]; count: number }>();
  for (const n of nodes) {
    if (!n.ready) continue;
    const free = [
      n.allocatable.cpuMilli - n.requested.cpuMilli,
      n.allocatable.memoryBytes - n.requested.memoryBytes,
      n.allocatable.gpu - n.requested.gpu,
      n.allocatable.pods - n.requested.pods,
    ];
    const allows = groups.map((g) => {
      if (g.remaining <= 0) return false;
      const tolerations = g.src.tolerations ?? [];
      if (n.unschedulable && !toleratesUnschedulable(tolerations)) return false;
      if (g.src.zone !== undefined && n.zone !== g.src.zone) return false;
      if (nodeSelectorMismatch(g.src.nodeSelector, n.labels) !== undefined) return false;
      if (g.averse && n.capacityType === 'spot') return false;
      if (firstUntoleratedTaint(n.taints, tolerations)) return false;
      return howMany(g.req, free) >= 1;
    });
    if (!allows.some(Boolean)) continue;
    const key = `${free.join(',')}|${allows.map(Number).join('')}`;
    const c = classes.get(key);
    if (c) c.count += 1;
    else classes.set(key, { free, allows, count: 1 });
  }
  const all = [...classes.values()];
  if (all.length <= MAX_BIN_CLASSES) return all;
  const sig = (b: { allows: boolean[] }): string => b.allows.map(Number).join('');
  all.sort((a, b) => sig(a).localeCompare(sig(b)) || sizeOf(a.free) - sizeOf(b.free));
  const total = all.reduce((s, b) => s + b.count, 0);
  const out: ExistingBin[] = [];
  let acc: { free: number[]; allows: boolean[]; count: number } | undefined;
  let seen = 0;
  for (const b of all) {
    acc ??= { free: new Array<number>(DIMS).fill(0), allows: groups.map(() => false), count: 1 };
    for (let d = 0; d < DIMS; d++) acc.free[d]! += b.count * b.free[d]!;
    b.allows.forEach((x, g) => (acc!.allows[g] ||= x));
    seen += b.count;
    if (seen >= ((out.length + 1) * total) / MAX_BIN_CLASSES) {
      out.push(acc);
      acc = undefined;
    }
  }
  if (acc) out.push(acc);
  return out;
}

/**
 * dominantOfferings — drop every offering another one dominates: no dearer, at least as large in every
 * dimension, and allowing every remaining group the dominated one allows. Any pattern of the dominated
 * offering is a pattern of the dominating one at no higher price, so neither the LP optimum nor a pricing
 * bound changes (ties keep the first).
 */
function dominantOfferings(groups: readonly Group[], offerings: readonly Offering[]): Offering[] {
  const allows = offerings.map((o) => groups.map((g) => g.remaining > 0 && compatible(g, o)));
  const useful = offerings.map((_, i) => allows[i]!.some(Boolean));
  const dominates = (a: number, b: number): boolean => {
    const oa = offerings[a]!;
    const ob = offerings[b]!;
    if (oa.usdPerHour > ob.usdPerHour) return false;
    for (let d = 0; d < DIMS; d++) if (oa.alloc[d]! < ob.alloc[d]!) return false;
    for (let g = 0; g < groups.length; g++) if (allows[b]![g] && !allows[a]![g]) return false;
    return true;
  };
  const keep: Offering[] = [];
  for (let b = 0; b < offerings.length; b++) {
    if (!useful[b]) continue;
    let dominated = false;
    for (let a = 0; a < offerings.length && !dominated; a++) {
      if (a === b || !useful[a] || !dominates(a, b)) continue;
      // Mutual domination (identical offerings): the earlier one stays.
      dominated = !dominates(b, a) || a < b;
    }
    if (!dominated) keep.push(offerings[b]!);
  }
  return keep;
}

/**
 * configurationBound — the configuration LP (Gilmore–Gomory) and a proven lower bound from it.
 *
 *   min Σ_j p_j·x_j  s.t.  Σ_j k_jg·x_j ≥ n_g (every group g),  Σ_{j ∈ bin e} x_j ≤ m_e (every existing bin class e),  x ≥ 0
 *
 * over patterns j: one new node of an offering (price p_j) or one existing node of bin class e (price 0), and
 * how many pods k_jg of each group it holds. Unlike a resource LP it knows that two 1-core pods do not fit in
 * 1.9 free cores, or 18 pods in 17 slots. Patterns are generated: single-group patterns first, then rounds of
 * exact pricing — for every offering and bin, the integer knapsack max Σ_g y_g·k_g over its capacity at the
 * current duals y (`knapsackSolve`) — adding the patterns that price out, re-solving the master warm.
 *
 * Bound (valid after any round, finished or not): with U_o ≥ the best pattern value of offering o at y (the
 * exact knapsack, or its LP relaxation when the search hit its node limit) and U_e likewise for bin e, put
 * ρ = max(1, max_o U_o / p_o). Then (y/ρ, z_e = U_e/ρ) is feasible for the LP's dual
 * (max Σ n_g·y_g − Σ m_e·z_e s.t. k·y ≤ p_j on new-node patterns, k·y ≤ z_e on bin patterns, y, z ≥ 0), so
 *
 *   bound = (Σ_g n_g·y_g − Σ_e m_e·U_e) / ρ
 *
 * is at most the LP optimum, which is at most the cost of any integer placement. This is Farley's bound
 * extended to zero-cost bins; when exact pricing finds nothing improving, ρ = 1 and it equals the LP optimum.
 * The best bound over all rounds is returned. Groups that no offering can hold are ignored (`remaining` 0).
 */
function configurationBound(
  groups: readonly Group[],
  offeringsIn: readonly Offering[],
  bins: readonly ExistingBin[] = [],
  effort: ConfigurationEffort = BOUND_EFFORT,
): ConfigurationBound | undefined {
  const G = groups.length;
  const E = bins.length;
  const active = groups.map((g) => g.remaining > 0);
  if (!active.some(Boolean)) return { bound: 0, value: 0, certified: true, y: new Array<number>(G).fill(0), columns: [], x: [] };
  const offerings = dominantOfferings(groups, offeringsIn);
  const cap = (g: Group, o: Offering): number => (compatible(g, o) ? Math.min(g.remaining, howMany(g.req, o.alloc)) : 0);
  const binCap = (g: number, e: number): number => (bins[e]!.allows[g] ? Math.min(groups[g]!.remaining, howMany(groups[g]!.req, bins[e]!.free)) : 0);
  // Rows: one per group (inactive ones ask for 0), then one per bin class.
  const lp = new ColumnLp([...groups.map(() => '>=' as const), ...bins.map(() => '<=' as const)], [...groups.map((g) => g.remaining), ...bins.map((b) => b.count)]);
  const columns: Column[] = [];
  const seen = new Set<string>();
  const addColumn = (c: Column): boolean => {
    const key = `${c.o ? `${c.o.spec.name}/${c.o.zone}/${c.o.capacityType}` : `bin${c.bin}`}/${c.k.join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    columns.push({ ...c, k: Int32Array.from(c.k) });
    const a = new Float64Array(G + E);
    for (let g = 0; g < G; g++) a[g] = c.k[g]!;
    if (c.bin !== undefined) a[G + c.bin] = 1;
    lp.addColumn(c.o ? c.o.usdPerHour : 0, a);
    return true;
  };
  for (let g = 0; g < G; g++) {
    if (!active[g]) continue;
    const ranked = offerings
      .map((o) => ({ o, k: cap(groups[g]!, o) }))
      .filter((c) => c.k > 0)
      .sort((a, b) => a.o.usdPerHour / a.k - b.o.usdPerHour / b.k)
      .slice(0, 3);
    if (ranked.length === 0) return undefined;
    for (const c of ranked) {
      const k = new Int32Array(G);
      k[g] = c.k;
      addColumn({ o: c.o, k });
    }
  }
  let budget = effort.totalKnapsackNodes;
  // price — the best pattern at values y over capacity `alloc` (groups allowed by `ok`): exact when the search
  // finishes within the budget, else the incumbent pattern and the LP relaxation's value as the upper bound.
  const price = (y: ArrayLike<number>, alloc: readonly number[], capOf: (g: number) => number, threshold: number): { upper: number; best: number; k: Int32Array } => {
    const idx: number[] = [];
    for (let g = 0; g < G; g++) if (active[g] && y[g]! > 1e-12 && capOf(g) > 0) idx.push(g);
    const k = new Int32Array(G);
    if (idx.length === 0) return { upper: 0, best: 0, k };
    const values = idx.map((g) => y[g]!);
    const reqs = idx.map((g) => groups[g]!.req);
    const caps = idx.map((g) => capOf(g));
    const limit = Math.max(0, Math.min(searchNodes, budget));
    const r = knapsackSolve(values, reqs, caps, alloc, limit, PRICING_TOLERANCE, threshold);
    budget -= r.nodes;
    idx.forEach((g, i) => (k[g] = r.k[i]!));
    if (r.complete) return { upper: Math.max(r.best, threshold) * (1 + PRICING_TOLERANCE), best: r.best, k };
    return { upper: Math.max(r.best, r.relaxation), best: r.best, k };
  };
  let searchNodes = effort.knapsackNodes;
  let bestBound = 0;
  let sol = lp.solve();
  let certified = false;
  for (let round = 0; round < effort.rounds && sol.status === 'optimal'; round++) {
    const y = Array.from({ length: G }, (_, g) => Math.max(0, sol.duals[g]!));
    const z = Array.from({ length: E }, (_, e) => Math.max(0, -sol.duals[G + e]!));
    let rho = 1;
    let exact = true;
    let added = 0;
    for (const o of offerings) {
      const p = price(y, o.alloc, (g) => cap(groups[g]!, o), o.usdPerHour);
      if (p.upper > Math.max(p.best, o.usdPerHour) * (1 + PRICING_TOLERANCE)) exact = false;
      rho = Math.max(rho, p.upper / o.usdPerHour);
      if (p.best > o.usdPerHour * (1 + 1e-9) && addColumn({ o, k: p.k })) added += 1;
    }
    let binTerm = 0;
    for (let e = 0; e < E; e++) {
      const p = price(y, bins[e]!.free, (g) => binCap(g, e), z[e]!);
      if (p.upper > Math.max(p.best, z[e]!) * (1 + PRICING_TOLERANCE)) exact = false;
      binTerm += bins[e]!.count * p.upper;
      if (p.best > z[e]! + 1e-9 * Math.max(1, p.best) && addColumn({ bin: e, k: p.k })) added += 1;
    }
    let ny = 0;
    for (let g = 0; g < G; g++) if (active[g]) ny += groups[g]!.remaining * y[g]!;
    // A hair below the exact value, for the floating-point sums above.
    bestBound = Math.max(bestBound, ((ny - binTerm) / rho) * (1 - 1e-9));
    if (added === 0) {
      certified = exact;
      if (exact || searchNodes >= effort.certifyKnapsackNodes || budget <= 0) break;
      // Nothing prices out, but some searches stopped early: price the same duals again, deeper.
      searchNodes = effort.certifyKnapsackNodes;
      continue;
    }
    sol = lp.solve();
  }
  if (sol.status !== 'optimal') return undefined;
  return { bound: bestBound, value: sol.value, certified, y: Array.from({ length: G }, (_, g) => Math.max(0, sol.duals[g]!)), columns, x: Array.from(sol.x) };
}

/** gcd — of two non-negative integers; 0 as soon as either is not an integer (no rounding then). */
function gcd(a: number, b: number): number {
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0) return 0;
  while (b > 0) [a, b] = [b, a % b];
  return a;
}

/**
 * knapsackLp — the LP relaxation of {@link knapsackSolve} (fractional counts, all dimensions and caps), solved once:
 * its value is an upper bound on the integer optimum (used when the search does not finish), and the duals of its
 * dimension rows, per raw unit, are surrogate weights λ ≥ 0 (any λ ≥ 0 gives a valid surrogate relaxation; these
 * make it as tight as the LP).
 */
function knapsackLp(values: readonly number[], reqs: readonly (readonly number[])[], caps: readonly number[], alloc: readonly number[]): { value: number; lambda: number[] } {
  const n = values.length;
  if (n === 0) return { value: 0, lambda: new Array<number>(DIMS).fill(0) };
  const A: number[][] = [];
  const b: number[] = [];
  for (let d = 0; d < DIMS; d++) {
    A.push(reqs.map((q) => q[d]! / UNIT[d]!));
    b.push(Math.max(0, alloc[d]!) / UNIT[d]!);
  }
  for (let i = 0; i < n; i++) {
    const row = new Array<number>(n).fill(0);
    row[i] = 1;
    A.push(row);
    b.push(caps[i]!);
  }
  const r = maximizeLp([...values], A, b);
  // Unbounded cannot happen (every count is capped); Infinity keeps the bound valid if it ever did.
  if (r.status !== 'optimal') return { value: Infinity, lambda: new Array<number>(DIMS).fill(0) };
  return { value: r.value * (1 + 1e-9), lambda: Array.from({ length: DIMS }, (_, d) => Math.max(0, r.dual[d]!) / UNIT[d]!) };
}

/**
 * knapsackMax — max Σ v_i·k_i over integers 0 ≤ k_i ≤ cap_i with Σ k_i·req_i ≤ alloc in every dimension (see
 * {@link knapsackSolve}); undefined when `limit` search nodes were not enough.
 */
export function knapsackMax(
  values: readonly number[],
  reqs: readonly (readonly number[])[],
  caps: readonly number[],
  alloc: readonly number[],
  limit: number,
): number | undefined {
  const r = knapsackSolve(values, reqs, caps, alloc, limit);
  return r.complete ? r.best : undefined;
}

/**
 * knapsackSolve — the exact pricing problem of one offering or bin: max Σ v_i·k_i over integers
 * 0 ≤ k_i ≤ cap_i with Σ k_i·req_i ≤ alloc in every dimension (cpu, memory, GPU, pod slots). Depth-first
 * branch and bound, items by value density, largest count first; the bound at a node is the smallest over
 * dimensions of the fractional knapsack on that dimension alone (each relaxes the real problem, so the
 * minimum is a valid upper bound). `complete` is false when `limit` nodes were not enough: `best`/`k` are
 * then only the best pattern found (still a real pattern), not a proven optimum.
 */
export function knapsackSolve(
  values: readonly number[],
  reqs: readonly (readonly number[])[],
  caps: readonly number[],
  alloc: readonly number[],
  limit: number,
  tolerance = 1e-12,
  threshold = 0,
): { best: number; k: Int32Array; complete: boolean; nodes: number; relaxation: number } {
  const n = values.length;
  const dens = (i: number): number => values[i]! / Math.max(1e-12, dominantShare(reqs[i]!, alloc));
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => dens(b) - dens(a));
  const v = order.map((i) => values[i]!);
  const q = order.map((i) => reqs[i]!);
  const c = order.map((i) => caps[i]!);
  // Per dimension, items by value per unit of that dimension (items that need none of it come first).
  const byDim = Array.from({ length: DIMS }, (_, d) =>
    Array.from({ length: n }, (_, i) => i).sort((a, b) => (q[b]![d]! === 0 ? Infinity : v[b]! / q[b]![d]!) - (q[a]![d]! === 0 ? Infinity : v[a]! / q[a]![d]!)),
  );
  // The surrogate constraint Σ_d λ_d·(k·req)_d ≤ Σ_d λ_d·alloc_d with λ the root LP relaxation's duals: its
  // fractional knapsack equals the LP relaxation at the root and keeps the bound tight below it.
  const { value: relaxation, lambda } = knapsackLp(v, q, c, alloc);
  const sw = q.map((r) => lambda.reduce((acc, l, d) => acc + l * r[d]!, 0));
  const byRatio = Array.from({ length: n }, (_, i) => i).sort((a, b) => (sw[b]! <= 0 ? Infinity : v[b]! / sw[b]!) - (sw[a]! <= 0 ? Infinity : v[a]! / sw[a]!));
  // Any completion uses a multiple of the requests' gcd in each dimension, so the room a bound may fill
  // is the free amount rounded down to that multiple (what proves that 3,920m holds at most 3,900m of
  // 50m-multiple pods).
  const grain = Array.from({ length: DIMS }, (_, d) => q.reduce((g, r) => gcd(g, r[d]!), 0));
  const usable = (d: number, x: number): number => (grain[d]! > 0 ? Math.floor(x / grain[d]! + 1e-9) * grain[d]! : x);
  const free = [...alloc];
  let best = 0;
  const cur = new Int32Array(n);
  const bestK = new Int32Array(n);
  let nodes = 0;
  // fill — the fractional knapsack over items from `from` on, taken in `order` (best value per weight first), with
  // weights `w` and capacity `room`; items that weigh nothing are taken whole.
  const fill = (order: readonly number[], w: readonly number[], from: number, room: number): number => {
    let val = 0;
    for (const i of order) {
      if (i < from) continue;
      const wi = w[i]!;
      if (wi <= 0) {
        val += c[i]! * v[i]!;
        continue;
      }
      if (room <= 0) break;
      const k = Math.min(c[i]!, room / wi);
      val += k * v[i]!;
      room -= k * wi;
    }
    return val;
  };
  const weightsOf = Array.from({ length: DIMS }, (_, d) => q.map((r) => r[d]!));
  const surrogate = lambda.some((l) => l > 0);
  const bound = (from: number): number => {
    let ub = Infinity;
    let surrogateUsable = 0;
    for (let d = 0; d < DIMS; d++) {
      const room = usable(d, free[d]!);
      surrogateUsable += lambda[d]! * room;
      ub = Math.min(ub, fill(byDim[d]!, weightsOf[d]!, from, room));
    }
    if (surrogate) ub = Math.min(ub, fill(byRatio, sw, from, surrogateUsable));
    return ub;
  };
  const dfs = (i: number, val: number): boolean => {
    if (++nodes > limit) return false;
    if (val > best) {
      best = val;
      bestK.set(cur);
    }
    if (i === n || val + bound(i) <= Math.max(best, threshold) * (1 + tolerance)) return true;
    let kMax = c[i]!;
    for (let d = 0; d < DIMS; d++) if (q[i]![d]! > 0) kMax = Math.min(kMax, Math.floor(free[d]! / q[i]![d]! + 1e-9));
    for (let k = kMax; k >= 0; k--) {
      for (let d = 0; d < DIMS; d++) free[d]! -= k * q[i]![d]!;
      cur[i] = k;
      const ok = dfs(i + 1, val + k * v[i]!);
      cur[i] = 0;
      for (let d = 0; d < DIMS; d++) free[d]! += k * q[i]![d]!;
      if (!ok) return false;
    }
    return true;
  };
  const complete = n === 0 || dfs(0, 0);
  const k = new Int32Array(n);
  order.forEach((orig, pos) => (k[orig] = bestK[pos]!));
  return { best, k, complete, nodes: Math.min(nodes, limit), relaxation };
}

/**
 * patternPack — buy ⌊x_j⌋ nodes of each pattern of the configuration LP (as far as pods remain), then the
 * rest with the greedy at the LP's pod prices. Mutates `remaining`.
 */
function patternPack(groups: Group[], offerings: readonly Offering[], cb: ConfigurationBound): NewNodes {
  const out = new NewNodes();
  cb.columns.forEach((c, j) => {
    if (!c.o) return;
    let reps = Math.floor(cb.x[j]! + 1e-9);
    for (let g = 0; g < groups.length && reps > 0; g++) if (c.k[g]! > 0) reps = Math.min(reps, Math.floor(groups[g]!.remaining / c.k[g]!));
    if (reps <= 0) return;
    for (let g = 0; g < groups.length; g++) groups[g]!.remaining -= reps * c.k[g]!;
    out.add(c.o, reps);
  });
  const rest = dualGreedy(groups, offerings, cb.y.map((v, g) => v + 1e-6 * sizeOf(groups[g]!.req)));
  out.merge(rest);
  return out;
}

/**
 * fillOne — pack one empty node of offering `o` from the remaining pods, largest (by dominant share of this
 * node) first, as many of each as fit. Writes the count per group into `take`; returns the packed value.
 */
function fillOne(o: Offering, groups: readonly Group[], order: readonly number[], value: readonly number[], take: Int32Array): number {
  const free = [...o.alloc];
  let packed = 0;
  take.fill(0);
  for (const gi of order) {
    const g = groups[gi]!;
    if (g.remaining <= 0 || !compatible(g, o)) continue;
    const k = Math.min(g.remaining, howMany(g.req, free));
    if (k <= 0) continue;
    for (let d = 0; d < DIMS; d++) free[d]! -= k * g.req[d]!;
    take[gi] = k;
    packed += k * value[gi]!;
  }
  return packed;
}

/**
 * dualGreedy — new nodes one kind at a time: price every pod at the LP's shadow prices (so a pod is worth
 * what its resources cost at the bound), fill one node of every offering, keep the offering with the most
 * value per dollar, and buy as many identical nodes as the remaining pods allow. Mutates `remaining`.
 */
function dualGreedy(groups: Group[], offerings: readonly Offering[], values?: readonly number[]): NewNodes {
  const out = new NewNodes();
  const { y } = values ? { y: [] as number[] } : lpBound(demandOf(groups), offerings);
  const value = values ?? groups.map((g) => {
    let v = 0;
    for (let d = 0; d < DIMS; d++) v += g.req[d]! * (y[DIMS + d]! + (g.averse ? y[d]! : 0));
    // A tiny size term so pods on resources the bound prices at 0 still count.
    return v + 1e-6 * sizeOf(g.req);
  });
  const take = new Int32Array(groups.length);
  const bestTake = new Int32Array(groups.length);
  for (let guard = 0; guard < 100_000; guard++) {
    let best: Offering | undefined;
    let bestEff = -1;
    for (const o of offerings) {
      const order = groups
        .map((_, i) => i)
        .sort((a, b) => dominantShare(groups[b]!.req, o.alloc) - dominantShare(groups[a]!.req, o.alloc));
      const packed = fillOne(o, groups, order, value, take);
      if (packed <= 0) continue;
      const eff = packed / o.usdPerHour;
      if (eff > bestEff * (1 + 1e-12) || (Math.abs(eff - bestEff) <= bestEff * 1e-12 && o.usdPerHour < best!.usdPerHour)) {
        bestEff = eff;
        best = o;
        bestTake.set(take);
      }
    }
    if (!best) break;
    let reps = Infinity;
    for (let i = 0; i < groups.length; i++) if (bestTake[i]! > 0) reps = Math.min(reps, Math.floor(groups[i]!.remaining / bestTake[i]!));
    reps = Math.max(1, reps);
    for (let i = 0; i < groups.length; i++) groups[i]!.remaining -= reps * bestTake[i]!;
    out.add(best, reps);
  }
  return out;
}

const dominantShare = (req: readonly number[], alloc: readonly number[]): number => {
  let s = 0;
  for (let d = 0; d < DIMS; d++) if (alloc[d]! > 0) s = Math.max(s, req[d]! / alloc[d]!);
  return s;
};

/**
 * ffdNewNodes — cluster-autoscaler's estimator: pods in pools of identical constraints, each pool on one
 * instance type (the configured one, else the cheapest offering that can hold every pod of the pool), pods
 * sorted by size descending, each into the first open node with room, else a new node. Identical pods are
 * placed a group at a time, which is the same as one by one. Mutates `remaining`.
 */
function ffdNewNodes(groups: Group[], offerings: readonly Offering[], instanceType?: string): NewNodes {
  const out = new NewNodes();
  const pools = new Map<string, Group[]>();
  for (const g of groups) {
    if (g.remaining <= 0) continue;
    const key = JSON.stringify([g.averse, g.src.zone ?? null, g.src.nodeSelector ?? null, g.req[2]! > 0]);
    pools.set(key, [...(pools.get(key) ?? []), g]);
  }
  const allowed = (o: Offering): boolean => instanceType === undefined || o.spec.name === instanceType;
  for (const pool of pools.values()) {
    const forAll = offerings.filter((o) => allowed(o) && pool.every((g) => compatible(g, o)));
    if (forAll.length > 0) ffdPool(pool, forAll, out);
    // No one type holds the whole pool: each group on its own cheapest type.
    else for (const g of pool) ffdPool([g], offerings.filter((o) => allowed(o) && compatible(g, o)), out);
  }
  return out;
}

/** ffdPool — first-fit decreasing of one pool onto nodes of its cheapest offering. */
function ffdPool(pool: Group[], offerings: readonly Offering[], out: NewNodes): void {
  let o: Offering | undefined;
  for (const x of offerings) if (!o || x.usdPerHour < o.usdPerHour) o = x;
  if (!o) return;
  const open: number[][] = [];
  const order = [...pool].sort((a, b) => sizeOf(b.req) - sizeOf(a.req));
  for (const g of order) {
    for (const free of open) {
      if (g.remaining <= 0) break;
      const k = Math.min(g.remaining, howMany(g.req, free));
      for (let d = 0; d < DIMS; d++) free[d]! -= k * g.req[d]!;
      g.remaining -= k;
    }
    const perNode = howMany(g.req, o.alloc);
    while (g.remaining > 0 && perNode > 0) {
      const free = [...o.alloc];
      const k = Math.min(g.remaining, perNode);
      for (let d = 0; d < DIMS; d++) free[d]! -= k * g.req[d]!;
      g.remaining -= k;
      open.push(free);
      out.add(o, 1);
    }
  }
}

/**
 * firstFitDecreasing — the baseline packer (cluster-autoscaler's estimator; see `ffdNewNodes`) after the
 * same first pass over existing nodes as {@link simulatePlacement}.
 */
export function firstFitDecreasing(input: SimulateInput & { readonly instanceType?: string }): SimulateResult {
  return run(input, (groups, offerings) => ({ nodes: ffdNewNodes(groups, offerings, input.instanceType), algorithm: 'first-fit-decreasing' }));
}

/**
 * simulatePlacement — where N more pods would go: first the free capacity of existing nodes, then new nodes
 * from the catalog at the least cost. Three packers run on what is left and the cheapest plan that places
 * the most pods wins: the configuration LP's patterns rounded down plus a greedy for the rest
 * (`patternPack`), the greedy alone at resource shadow prices (`dualGreedy`), and first-fit decreasing —
 * so the result is never worse than the cluster-autoscaler baseline. Spot-averse classes (stateful,
 * latency_sensitive by default) get On-Demand nodes. Quality against `lowerBoundCost` is measured in
 * simulate.quality.spec.ts.
 */
export function simulatePlacement(input: SimulateInput): SimulateResult {
  return run(input, (groups, offerings) => {
    const snapshot = groups.map((g) => g.remaining);
    const candidates: { nodes: NewNodes; left: number[]; algorithm: SimulateResult['algorithm'] }[] = [];
    const attempt = (algorithm: SimulateResult['algorithm'], pack: () => NewNodes): void => {
      groups.forEach((g, i) => (g.remaining = snapshot[i]!));
      const nodes = pack();
      candidates.push({ nodes, left: groups.map((g) => g.remaining), algorithm });
    };
    const cb = configurationBound(groups, offerings, [], PACKING_EFFORT);
    if (cb) attempt('configuration-lp', () => patternPack(groups, offerings, cb));
    attempt('dual-greedy', () => dualGreedy(groups, offerings));
    attempt('first-fit-decreasing', () => ffdNewNodes(groups, offerings));
    const unplaced = (c: (typeof candidates)[number]): number => c.left.reduce((a, b) => a + b, 0);
    candidates.sort((a, b) => unplaced(a) - unplaced(b) || a.nodes.cost - b.nodes.cost);
    const best = candidates[0]!;
    groups.forEach((g, i) => (g.remaining = best.left[i]!));
    return { nodes: best.nodes, algorithm: best.algorithm };
  });
}

function run(
  input: SimulateInput,
  pack: (groups: Group[], offerings: readonly Offering[]) => { nodes: NewNodes; algorithm: SimulateResult['algorithm'] },
): SimulateResult {
  const groups = toGroups(input.pods, input.constraints);
  const placedOnExisting = placeOnExisting(groups, input.nodes);
  const offerings = offeringsFor(input.catalog, input.prices, input.nodes, input.constraints);
  const unschedulable = [...takeUnplaceable(groups, offerings, input.catalog, input.nodes, input.constraints)];
  const { nodes, algorithm } = pack(groups, offerings);
  for (const g of groups) {
    if (g.remaining > 0) unschedulable.push({ pod: g.name, count: g.remaining, reason: 'no_instance_type_fits' });
  }
  return {
    placedOnExisting,
    placedOnExistingCount: placedOnExisting.reduce((s, p) => s + p.count, 0),
    additions: nodes.additions(),
    hourlyCostUsd: roundUsd(nodes.cost),
    unschedulable,
    algorithm,
  };
}
