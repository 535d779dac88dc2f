import type { CapacityType, InterruptionBucket } from './types.js';

/**
 * The five scorers, each on 0–100, as plain numeric functions so that the explained path (`scoreNode`) and the
 * fast indexed path (`scoreIndexed`) compute bit-identical numbers.
 */

/** NEUTRAL — the score of a dimension we cannot judge (a missing price, no peers to be near). */
export const NEUTRAL = 50;

/** GPU_WASTE_FACTOR — a pod without GPUs on a GPU node keeps only this share of its fit score. */
export const GPU_WASTE_FACTOR = 0.5;

/**
 * resourceFitScore — balanced headroom after placement. With u_c, u_m the cpu and memory fractions requested
 * once the pod is placed:
 *
 *   fit = 100 · (½ · (1 − (u_c + u_m)/2) + ½ · (1 − |u_c − u_m|))
 *
 * the first half is kube-scheduler's LeastAllocated (room to grow), the second its BalancedAllocation (no
 * stranded cpu or memory). A pod that needs no GPU on a GPU node is scored × {@link GPU_WASTE_FACTOR}.
 * Preconditions: the pod fits (u ≤ 1); an allocatable of 0 counts as full.
 */
export function resourceFitScore(
  podCpu: number,
  podMem: number,
  podGpu: number,
  allocCpu: number,
  allocMem: number,
  allocGpu: number,
  reqCpu: number,
  reqMem: number,
): number {
  const uc = allocCpu > 0 ? (reqCpu + podCpu) / allocCpu : 1;
  const um = allocMem > 0 ? (reqMem + podMem) / allocMem : 1;
  const free = 1 - (uc + um) / 2;
  const balance = 1 - Math.abs(uc - um);
  let fit = 100 * (0.5 * free + 0.5 * balance);
  if (podGpu <= 0 && allocGpu > 0) fit *= GPU_WASTE_FACTOR;
  return fit < 0 ? 0 : fit > 100 ? 100 : fit;
}

/** headroomAfter — 1 − max(u_c, u_m): the share of the scarcer resource left once the pod is placed. */
export function headroomAfter(
  podCpu: number,
  podMem: number,
  allocCpu: number,
  allocMem: number,
  reqCpu: number,
  reqMem: number,
): number {
  const uc = allocCpu > 0 ? (reqCpu + podCpu) / allocCpu : 1;
  const um = allocMem > 0 ? (reqMem + podMem) / allocMem : 1;
  return Math.max(0, 1 - Math.max(uc, um));
}

/**
 * zoneSpreadScore — for a workload with c_z pods already in the node's zone and at least `min` in every zone:
 *
 *   spread = 100 · (1 − (c_z − min) / (c_z + 1))
 *
 * 100 in (one of) the emptiest zones, falling as the zone gets ahead of the others; the ratio keeps a
 * one-pod lead on a large workload cheap (11 vs 10 → 92) and a lead on a small one expensive (5 vs 0 → 17).
 * A pod with no peers scores 100 everywhere.
 */
export function zoneSpreadScore(countInZone: number, minCount: number): number {
  return 100 * (1 - (countInZone - minCount) / (countInZone + 1));
}

/**
 * costEfficiencyScore — the Spot saving against the On-Demand price of the same type and zone:
 *
 *   cost = clamp(50 + 50 · (1 − price / onDemand), 0, 100)
 *
 * so On-Demand scores 50, a 62% Spot saving 81, and a Spot price above On-Demand less than 50. Either price
 * missing → {@link NEUTRAL} (and the rationale says so).
 */
export function costEfficiencyScore(price: number | undefined, onDemand: number | undefined): number {
  if (price === undefined || onDemand === undefined || onDemand <= 0) return NEUTRAL;
  const s = 50 + 50 * (1 - price / onDemand);
  return s < 0 ? 0 : s > 100 ? 100 : s;
}

/** BUCKET_SCORES — Spot interruption frequency bucket (as the Spot Instance Advisor publishes it) → score. */
export const BUCKET_SCORES: Readonly<Record<InterruptionBucket, number>> = {
  '<5%': 90,
  '5-10%': 70,
  '10-15%': 50,
  '15-20%': 30,
  '>20%': 10,
};

/** SPOT_AVERSE_FACTOR — a Spot node's risk score is multiplied by this for classes that avoid Spot. */
export const SPOT_AVERSE_FACTOR = 0.5;

/**
 * interruptionRiskScore — On-Demand 100; Spot from its bucket ({@link BUCKET_SCORES}), {@link NEUTRAL} when the
 * bucket is unknown; × {@link SPOT_AVERSE_FACTOR} for classes that avoid Spot (stateful, latency_sensitive):
 * an interruption costs them a failover, not a retry. (Their risk weight is also doubled, see `classWeights`.)
 */
export function interruptionRiskScore(
  capacityType: CapacityType,
  bucket: InterruptionBucket | undefined,
  avoidsSpot: boolean,
): number {
  if (capacityType === 'on-demand') return 100;
  const base = bucket === undefined ? NEUTRAL : BUCKET_SCORES[bucket];
  return avoidsSpot ? base * SPOT_AVERSE_FACTOR : base;
}

/**
 * dataLocalityScore — with bound volumes: 100 in their zone, 0 elsewhere (the filter already refuses
 * elsewhere). Without: 50 + 50 · (peers in the node's zone / all peers), so being near the rest of the
 * workload helps a little; no peers → {@link NEUTRAL}.
 */
export function dataLocalityScore(hasVolumeZones: boolean, volumeInZone: boolean, peersInZone: number, peers: number): number {
  if (hasVolumeZones) return volumeInZone ? 100 : 0;
  if (peers <= 0) return NEUTRAL;
  return 50 + (50 * peersInZone) / peers;
}
