import { avoidsSpotByDefault, classifyWorkload, workloadKey } from './classify.js';
import { filterNode, type FilterFailure } from './filters.js';
import { costBasisPrice, measuredWords, type ExpectedCost, type MeasuredInterruptions } from './expected-cost.js';
import { pricing } from './prices.js';
import {
  costEfficiencyScore,
  dataLocalityScore,
  headroomAfter,
  interruptionRiskScore,
  resourceFitScore,
  zoneSpreadScore,
} from './scorers.js';
import type { CapacityType, InterruptionBucket, PriceTable, ScoringNode, ScoringPod, WorkloadClass } from './types.js';
import {
  classWeights,
  DEFAULT_CLASS_MULTIPLIERS,
  DEFAULT_WEIGHTS,
  DIMENSIONS,
  type ClassMultipliers,
  type Dimension,
  type ScoringWeights,
} from './weights.js';

/** ScoringContext — everything besides the pod and the node that a score depends on. */
export interface ScoringContext {
  readonly prices?: PriceTable;
  /** Validate with `validateWeights` where they are configured; defaults to {@link DEFAULT_WEIGHTS}. */
  readonly weights?: ScoringWeights;
  readonly classMultipliers?: ClassMultipliers;
  /** Zones that count for spread. `rankNodes` defaults them to the zones of the nodes it is given. */
  readonly zones?: readonly string[];
  /** workloadKey → zone → pods of that workload already placed there (excluding the pod being scored);
   * build it with `countWorkloadZones`. */
  readonly workloadZoneCounts?: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Classes that avoid Spot; default stateful and latency_sensitive. */
  readonly spotAverseClasses?: readonly WorkloadClass[];
}

export type DimensionScores = Record<Dimension, number>;

/** ScoreFacts — the numbers behind a score, kept so the rationale can be written (and tested) from data. */
export interface ScoreFacts {
  readonly node: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly capacityType: CapacityType;
  readonly workloadClass: WorkloadClass;
  readonly workload?: string;
  /** 0–1, of the scarcer resource, after placement. */
  readonly headroom: number;
  readonly gpuWasted: boolean;
  /** Peers of the workload in this zone before placement, the fewest in any zone, and zones used after. */
  readonly peersInZone: number;
  readonly peersMinZone: number;
  readonly peersTotal: number;
  readonly zonesAfter: number;
  readonly usdPerHour?: number;
  readonly onDemandUsdPerHour?: number;
  readonly interruptionBucket?: InterruptionBucket;
  readonly measured?: MeasuredInterruptions;
  readonly expected?: ExpectedCost;
  readonly avoidsSpot: boolean;
  readonly volumeZones?: readonly string[];
}

export type NodeScore =
  | { readonly feasible: false; readonly node: string; readonly reasons: readonly FilterFailure[] }
  | {
      readonly feasible: true;
      readonly node: string;
      readonly total: number;
      readonly dimensions: DimensionScores;
      readonly weights: ScoringWeights;
      readonly facts: ScoreFacts;
      readonly rationale: string;
    };

/** effectiveWeights — the weights for this pod's class (see `classWeights` for the formula). */
export function effectiveWeights(cls: WorkloadClass, ctx: ScoringContext): ScoringWeights {
  return classWeights(ctx.weights ?? DEFAULT_WEIGHTS, cls, ctx.classMultipliers ?? DEFAULT_CLASS_MULTIPLIERS);
}

/** avoidsSpot — whether this class stays off Spot under this context. */
export function classAvoidsSpot(cls: WorkloadClass, ctx: ScoringContext): boolean {
  return ctx.spotAverseClasses ? ctx.spotAverseClasses.includes(cls) : avoidsSpotByDefault(cls);
}

/**
 * scoreNode — hard filters first (every failure is returned); then the five scores, their class-weighted
 * total (Σ w'_d · score_d, 0–100) and a plain-language rationale. Pure; the explained twin of `scoreIndexed`.
 */
export function scoreNode(pod: ScoringPod, node: ScoringNode, ctx: ScoringContext = {}): NodeScore {
  const reasons = filterNode(pod, node);
  if (reasons.length > 0) return { feasible: false, node: node.name, reasons };

  const cls = classifyWorkload(pod);
  const avoidsSpot = classAvoidsSpot(cls, ctx);
  const weights = effectiveWeights(cls, ctx);
  const r = pod.requests;
  const a = node.allocatable;
  const q = node.requested;
  const price = pricing(ctx.prices, node.instanceType, node.zone, node.capacityType, node.priceUsdPerHour);

  const key = workloadKey(pod);
  const counts = key === undefined ? undefined : ctx.workloadZoneCounts?.get(key);
  const zones = ctx.zones ?? [...new Set([...(counts?.keys() ?? []), node.zone])];
  let min = Infinity;
  let total = 0;
  let used = 0;
  for (const z of zones) {
    const c = counts?.get(z) ?? 0;
    if (c < min) min = c;
    total += c;
    if (c > 0 || z === node.zone) used += 1;
  }
  if (min === Infinity) min = 0;
  const inZone = counts?.get(node.zone) ?? 0;
  const volumeZones = pod.pvcZones && pod.pvcZones.length > 0 ? pod.pvcZones : undefined;

  const dimensions: DimensionScores = {
    resourceFit: resourceFitScore(r.cpuMilli, r.memoryBytes, r.gpu, a.cpuMilli, a.memoryBytes, a.gpu, q.cpuMilli, q.memoryBytes),
    zoneSpread: zoneSpreadScore(inZone, min),
    costEfficiency: costEfficiencyScore(costBasisPrice(price.usdPerHour, price.expected), price.onDemandUsdPerHour),
    interruptionRisk: interruptionRiskScore(node.capacityType, price.interruptionBucket, avoidsSpot),
    dataLocality: dataLocalityScore(volumeZones !== undefined, volumeZones?.includes(node.zone) ?? false, inZone, total),
  };
  const facts: ScoreFacts = {
    node: node.name,
    instanceType: node.instanceType,
    zone: node.zone,
    capacityType: node.capacityType,
    workloadClass: cls,
    ...(key !== undefined ? { workload: pod.workload ?? pod.ownerName! } : {}),
    headroom: headroomAfter(r.cpuMilli, r.memoryBytes, a.cpuMilli, a.memoryBytes, q.cpuMilli, q.memoryBytes),
    gpuWasted: r.gpu <= 0 && a.gpu > 0,
    peersInZone: inZone,
    peersMinZone: min,
    peersTotal: total,
    zonesAfter: used,
    ...price,
    avoidsSpot,
    ...(volumeZones ? { volumeZones } : {}),
  };
  return {
    feasible: true,
    node: node.name,
    total: weightedTotal(weights, dimensions),
    dimensions,
    weights,
    facts,
    rationale: explainScore(facts),
  };
}

/** weightedTotal — Σ w_d · score_d in the fixed dimension order (the indexed path sums in the same order). */
export function weightedTotal(w: ScoringWeights, s: DimensionScores): number {
  return (
    w.resourceFit * s.resourceFit +
    w.zoneSpread * s.zoneSpread +
    w.costEfficiency * s.costEfficiency +
    w.interruptionRisk * s.interruptionRisk +
    w.dataLocality * s.dataLocality
  );
}

const pct = (x: number): number => Math.round(x * 100);
const usd = (x: number): string => `$${x.toFixed(x < 1 ? 4 : 2)}/h`;

/**
 * explainScore — the rationale of one feasible score, from its facts:
 * "<type> in <zone>: <fit>, <spread>; <cost>[ <risk>][; <locality>]",
 * e.g. "m5.large in us-east-1b: fits with 40% headroom, spreads web across 3 zones; spot saves 62% but this
 * stateful pod avoids spot".
 */
export function explainScore(f: ScoreFacts): string {
  const first: string[] = [`fits with ${pct(f.headroom)}% headroom`];
  if (f.gpuWasted) first.push('but would take room on a GPU node');
  if (f.workload !== undefined) {
    if (f.peersTotal === 0) first.push(`first ${f.workload} replica`);
    else if (f.peersInZone <= f.peersMinZone) first.push(`spreads ${f.workload} across ${f.zonesAfter} zones`);
    else first.push(`${f.workload} already has ${f.peersInZone} of ${f.peersTotal} replicas in ${f.zone}`);
  }
  let cost: string;
  if (f.capacityType === 'spot') {
    if (f.usdPerHour === undefined || f.onDemandUsdPerHour === undefined) {
      cost = 'spot price unknown, cost scored neutral';
    } else {
      const saving = 1 - f.usdPerHour / f.onDemandUsdPerHour;
      cost = saving >= 0 ? `spot saves ${pct(saving)}%` : `spot costs ${pct(-saving)}% more than on-demand`;
    }
    const measured = f.expected?.basis === 'measured-in-this-cluster' && f.measured && f.usdPerHour !== undefined;
    if (measured) cost += ` (${usd(f.expected!.usdPerHour)} expected with interruptions, ${measuredWords(f.measured!)})`;
    if (f.avoidsSpot) cost += ` but this ${f.workloadClass.replace('_', '-')} pod avoids spot`;
    else if (f.interruptionBucket !== undefined) cost += `, interruption ${f.interruptionBucket}${measured ? ' (measured)' : ''}`;
    else cost += ', interruption rate unknown';
  } else {
    cost = f.usdPerHour === undefined ? 'on-demand, price unknown, cost scored neutral' : `on-demand at ${usd(f.usdPerHour)}`;
  }
  const parts = [`${f.instanceType} in ${f.zone}: ${first.join(', ')}`, cost];
  if (f.volumeZones) parts.push(`volume in ${f.zone}`);
  return parts.join('; ');
}

/** DIMENSION_LABELS — how each dimension is named in a rationale. */
export const DIMENSION_LABELS: Readonly<Record<Dimension, string>> = {
  resourceFit: 'resource fit',
  zoneSpread: 'zone spread',
  costEfficiency: 'cost',
  interruptionRisk: 'interruption risk',
  dataLocality: 'data locality',
};

/** decidingFactors — the dimensions by how much (weighted) they put `a` ahead of `b`, largest first, positive only. */
export function decidingFactors(
  a: DimensionScores,
  b: DimensionScores,
  w: ScoringWeights,
): { dimension: Dimension; margin: number }[] {
  return DIMENSIONS.map((d) => ({ dimension: d, margin: w[d] * (a[d] - b[d]) }))
    .filter((x) => x.margin > 1e-9)
    .sort((x, y) => y.margin - x.margin);
}
