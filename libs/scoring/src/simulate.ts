import type { InstanceTypeSpec } from '@nodes-manager/contracts';
import { avoidsSpotByDefault } from './classify.js';
import { firstUntoleratedTaint, nodeSelectorMismatch, toleratesUnschedulable } from './filters.js';
import { maximizeLp } from './lp.js';
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
  /** The best bound: the larger of the resource LP and, when existing nodes have no room, the configuration
   * LP's Farley bound. No placement of these pods onto new nodes costs less per hour. */
  readonly usdPerHour: number;
  /** The resource LP relaxation (see `lpBound`). */
  readonly resourceLpUsdPerHour: number;
  /** The simpler bound: max over dimensions of demand × the cheapest price per unit of that dimension. */
  readonly perDimensionUsdPerHour: number;
  /** The configuration LP's restricted master value — NOT a bound (an estimate from above of the LP optimum),
   * reported so the gap between plan and bound can be split into packing and bound looseness. */
  readonly configurationLpEstimateUsdPerHour?: number;
}

/**
 * lowerBoundCost — a lower bound on the hourly cost of the new nodes any placement of `pods` needs. The free
 * capacity of existing Ready, schedulable nodes is subtracted as if it were fluid (On-Demand free capacity from
 * the Spot-averse demand); pods no offering can hold are left out. Each bound is ≥ the per-dimension one.
 */
export function lowerBoundCost(input: SimulateInput): LowerBoundResult {
  const groups = toGroups(input.pods, input.constraints);
  const offerings = offeringsFor(input.catalog, input.prices, input.nodes, input.constraints);
  for (const g of groups) if (!offerings.some((o) => compatible(g, o))) g.remaining = 0;
  const demand = demandOf(groups);
  let existingFree = false;
  for (const n of input.nodes) {
    if (!n.ready || n.unschedulable) continue;
    const free = [
      n.allocatable.cpuMilli - n.requested.cpuMilli,
      n.allocatable.memoryBytes - n.requested.memoryBytes,
      n.allocatable.gpu - n.requested.gpu,
      n.allocatable.pods - n.requested.pods,
    ];
    if (free[0]! > 0 && free[1]! > 0 && free[3]! > 0) existingFree = true;
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
  // The configuration bound knows nothing of existing nodes; used only when they have no room to offer.
  const configuration = existingFree ? undefined : configurationBound(groups, offerings);
  return {
    usdPerHour: Math.max(resourceLp, configuration?.bound ?? 0),
    resourceLpUsdPerHour: resourceLp,
    perDimensionUsdPerHour: perDimension,
    ...(configuration ? { configurationLpEstimateUsdPerHour: configuration.value } : {}),
  };
}

/** A pattern: how many pods of each group one node of `o` holds. */
interface Column {
  readonly o: Offering;
  readonly k: Int32Array;
}

interface ConfigurationBound {
  /** Farley's bound from the column-generation duals: no packing onto new nodes costs less. */
  readonly bound: number;
  /** The restricted master LP's value (an upper estimate of the configuration LP). */
  readonly value: number;
  /** Per-pod prices (LP duals), by group. */
  readonly y: readonly number[];
  readonly columns: readonly Column[];
  /** Fractional node count per column. */
  readonly x: readonly number[];
}

/**
 * dominantOfferings — offerings that differ only by zone collapse to the cheapest when no pod cares about
 * zones (pins a zone or selects on labels): the others can never be in a cheaper pattern.
 */
function dominantOfferings(groups: readonly Group[], offerings: readonly Offering[]): Offering[] {
  if (groups.some((g) => g.remaining > 0 && (g.src.zone !== undefined || Object.keys(g.src.nodeSelector ?? {}).length > 0))) {
    return [...offerings];
  }
  const cheapest = new Map<string, Offering>();
  for (const o of offerings) {
    const key = `${o.spec.name}/${o.capacityType}`;
    const prev = cheapest.get(key);
    if (!prev || o.usdPerHour < prev.usdPerHour) cheapest.set(key, o);
  }
  return [...cheapest.values()];
}

/**
 * configurationBound — the configuration LP (Gilmore–Gomory): min Σ_j p_j·x_j over patterns j (one node of an
 * offering and how many pods of each group it holds) such that every group's pods are covered. Unlike the
 * resource LP it knows that two 1-core pods do not fit in 1.9 free cores. Patterns are generated: start from
 * the best single-group patterns, then repeatedly fill each offering greedily at the current pod prices y
 * and add the patterns worth more than they cost. Since that pricing is heuristic, the bound returned is
 * Farley's: value / max(1, max_o UB_o / p_o), with UB_o the fractional-knapsack optimum of offering o at
 * prices y (solved exactly as a small LP) — valid whatever patterns were found.
 */
function configurationBound(groups: readonly Group[], offeringsIn: readonly Offering[], rounds = 40): ConfigurationBound | undefined {
  const G = groups.length;
  const active = groups.map((g) => g.remaining > 0);
  if (!active.some(Boolean)) return { bound: 0, value: 0, y: new Array<number>(G).fill(0), columns: [], x: [] };
  const offerings = dominantOfferings(groups, offeringsIn);
  const cap = (g: Group, o: Offering): number => (compatible(g, o) ? Math.min(g.remaining, howMany(g.req, o.alloc)) : 0);
  const columns: Column[] = [];
  const seen = new Set<string>();
  const addColumn = (o: Offering, k: Int32Array): boolean => {
    const key = `${o.spec.name}/${o.zone}/${o.capacityType}/${k.join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    columns.push({ o, k: Int32Array.from(k) });
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
      addColumn(c.o, k);
    }
  }
  const n = groups.map((g) => g.remaining);
  const solve = () => maximizeLp(n, columns.map((c) => Array.from(c.k)), columns.map((c) => c.o.usdPerHour));
  let r = solve();
  const take = new Int32Array(G);
  for (let round = 0; round < rounds && r.status === 'optimal'; round++) {
    const y = r.y;
    const found: { o: Offering; k: Int32Array; gain: number }[] = [];
    for (const o of offerings) {
      for (const byDensity of [true, false]) {
        const order = groups
          .map((_, i) => i)
          .sort((a, b) =>
            byDensity
              ? y[b]! / Math.max(1e-12, dominantShare(groups[b]!.req, o.alloc)) - y[a]! / Math.max(1e-12, dominantShare(groups[a]!.req, o.alloc))
              : dominantShare(groups[b]!.req, o.alloc) - dominantShare(groups[a]!.req, o.alloc),
          );
        const worth = fillOne(o, groups, order, y, take);
        if (worth > o.usdPerHour * (1 + 1e-9)) found.push({ o, k: Int32Array.from(take), gain: worth / o.usdPerHour });
      }
    }
    found.sort((a, b) => b.gain - a.gain);
    let added = 0;
    for (const f of found) {
      if (added >= 20) break;
      if (addColumn(f.o, f.k)) added += 1;
    }
    if (added === 0) break;
    r = solve();
  }
  if (r.status !== 'optimal') return undefined;
  // Farley: scale y down until no offering's best fractional pattern is worth more than its price.
  let ratio = 1;
  for (const o of offerings) {
    const idx: number[] = [];
    for (let g = 0; g < G; g++) if (active[g] && r.y[g]! > 0 && cap(groups[g]!, o) > 0) idx.push(g);
    if (idx.length === 0) continue;
    const A: number[][] = [];
    const b: number[] = [];
    for (let d = 0; d < DIMS; d++) {
      A.push(idx.map((g) => groups[g]!.req[d]! / UNIT[d]!));
      b.push(o.alloc[d]! / UNIT[d]!);
    }
    idx.forEach((g, j) => {
      const row = new Array<number>(idx.length).fill(0);
      row[j] = 1;
      A.push(row);
      b.push(cap(groups[g]!, o));
    });
    // The exact integer pattern value when the small branch and bound finishes, else the LP relaxation's:
    // both bound every real pattern's value, the first much tighter (it knows 17 pod slots hold 17 pods).
    const exact = knapsackMax(
      idx.map((g) => r.y[g]!),
      idx.map((g) => groups[g]!.req),
      idx.map((g) => cap(groups[g]!, o)),
      o.alloc,
      KNAPSACK_NODE_LIMIT,
    );
    if (exact !== undefined) {
      ratio = Math.max(ratio, exact / o.usdPerHour);
      continue;
    }
    const ub = maximizeLp(idx.map((g) => r.y[g]!), A, b);
    if (ub.status === 'optimal') ratio = Math.max(ratio, ub.value / o.usdPerHour);
    else ratio = Infinity;
  }
  return { bound: r.value / ratio, value: r.value, y: r.y, columns, x: r.dual };
}

/** Search nodes per offering before {@link knapsackMax} gives up (and the LP relaxation is used instead). */
const KNAPSACK_NODE_LIMIT = 20_000;

/**
 * knapsackMax — max Σ v_i·k_i over integers 0 ≤ k_i ≤ cap_i with Σ k_i·req_i ≤ alloc in every dimension: the
 * exact pricing problem of one offering. Depth-first branch and bound, items by value density; the bound at a
 * node is the smallest over dimensions of the fractional knapsack on that dimension alone (each relaxes the
 * real problem, so the minimum is a valid upper bound). Returns undefined when `limit` nodes were not enough —
 * the caller then falls back to the LP relaxation, so an unfinished search never yields an invalid bound.
 */
export function knapsackMax(
  values: readonly number[],
  reqs: readonly (readonly number[])[],
  caps: readonly number[],
  alloc: readonly number[],
  limit: number,
): number | undefined {
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
  const free = [...alloc];
  let best = 0;
  let nodes = 0;
  const bound = (from: number): number => {
    let ub = Infinity;
    for (let d = 0; d < DIMS; d++) {
      let room = free[d]!;
      let val = 0;
      for (const i of byDim[d]!) {
        if (i < from) continue;
        const w = q[i]![d]!;
        if (w === 0) {
          val += c[i]! * v[i]!;
          continue;
        }
        if (room <= 0) break;
        const k = Math.min(c[i]!, room / w);
        val += k * v[i]!;
        room -= k * w;
      }
      if (val < ub) ub = val;
    }
    return ub;
  };
  const dfs = (i: number, val: number): boolean => {
    if (++nodes > limit) return false;
    if (val > best) best = val;
    if (i === n || val + bound(i) <= best * (1 + 1e-12)) return true;
    let kMax = c[i]!;
    for (let d = 0; d < DIMS; d++) if (q[i]![d]! > 0) kMax = Math.min(kMax, Math.floor(free[d]! / q[i]![d]! + 1e-9));
    for (let k = kMax; k >= 0; k--) {
      for (let d = 0; d < DIMS; d++) free[d]! -= k * q[i]![d]!;
      const ok = dfs(i + 1, val + k * v[i]!);
      for (let d = 0; d < DIMS; d++) free[d]! += k * q[i]![d]!;
      if (!ok) return false;
    }
    return true;
  };
  return dfs(0, 0) ? best : undefined;
}

/**
 * patternPack — buy ⌊x_j⌋ nodes of each pattern of the configuration LP (as far as pods remain), then the
 * rest with the greedy at the LP's pod prices. Mutates `remaining`.
 */
function patternPack(groups: Group[], offerings: readonly Offering[], cb: ConfigurationBound): NewNodes {
  const out = new NewNodes();
  cb.columns.forEach((c, j) => {
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
    const cb = configurationBound(groups, offerings);
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
