import type { WorkloadClass } from './types.js';

/** The five scoring dimensions, each scored 0–100. */
export type Dimension = 'resourceFit' | 'zoneSpread' | 'costEfficiency' | 'interruptionRisk' | 'dataLocality';
export const DIMENSIONS: readonly Dimension[] = [
  'resourceFit',
  'zoneSpread',
  'costEfficiency',
  'interruptionRisk',
  'dataLocality',
];

export type ScoringWeights = Readonly<Record<Dimension, number>>;

/** DEFAULT_WEIGHTS — docs/scoring.md#ranking-nodes-for-a-pod: fit 0.35, spread 0.25, cost 0.20, risk 0.15, locality 0.05. */
export const DEFAULT_WEIGHTS: ScoringWeights = {
  resourceFit: 0.35,
  zoneSpread: 0.25,
  costEfficiency: 0.2,
  interruptionRisk: 0.15,
  dataLocality: 0.05,
};

/** Multipliers applied per class before renormalising (see {@link classWeights}). */
export type ClassMultipliers = Readonly<Partial<Record<WorkloadClass, Partial<Record<Dimension, number>>>>>;

/** DEFAULT_CLASS_MULTIPLIERS — risk counts double for stateful and latency-sensitive pods, cost double for batch. */
export const DEFAULT_CLASS_MULTIPLIERS: ClassMultipliers = {
  stateful: { interruptionRisk: 2 },
  latency_sensitive: { interruptionRisk: 2 },
  batch: { costEfficiency: 2 },
};

export type WeightsValidation = { ok: true } | { ok: false; field: Dimension | 'sum'; message: string };

const SUM_TOLERANCE = 1e-6;

/**
 * validateWeights — refuses a missing, negative or non-finite weight (naming the field) and weights whose sum
 * is not 1 within ±1e-6 (field `sum`).
 */
export function validateWeights(weights: Partial<Record<Dimension, number>>): WeightsValidation {
  let sum = 0;
  for (const field of DIMENSIONS) {
    const w = weights[field];
    if (typeof w !== 'number' || !Number.isFinite(w)) {
      return { ok: false, field, message: `weight ${field} must be a finite number, got ${String(w)}` };
    }
    if (w < 0) return { ok: false, field, message: `weight ${field} must not be negative, got ${w}` };
    sum += w;
  }
  if (Math.abs(sum - 1) > SUM_TOLERANCE) {
    return { ok: false, field: 'sum', message: `weights must sum to 1 (±${SUM_TOLERANCE}), got ${sum}` };
  }
  return { ok: true };
}

/**
 * classWeights — the weights used for one class:
 *
 *   w'_d = w_d · m_{class,d} / Σ_k (w_k · m_{class,k})
 *
 * where m defaults to 1. With the defaults a stateful pod weighs risk 0.15·2/1.15 ≈ 0.26 (fit ≈ 0.30), a batch
 * pod weighs cost 0.20·2/1.20 ≈ 0.33. Renormalising keeps every total on 0–100.
 */
export function classWeights(
  weights: ScoringWeights,
  cls: WorkloadClass,
  multipliers: ClassMultipliers = DEFAULT_CLASS_MULTIPLIERS,
): ScoringWeights {
  const m = multipliers[cls] ?? {};
  let sum = 0;
  for (const d of DIMENSIONS) sum += weights[d] * (m[d] ?? 1);
  if (sum <= 0) return weights;
  return {
    resourceFit: (weights.resourceFit * (m.resourceFit ?? 1)) / sum,
    zoneSpread: (weights.zoneSpread * (m.zoneSpread ?? 1)) / sum,
    costEfficiency: (weights.costEfficiency * (m.costEfficiency ?? 1)) / sum,
    interruptionRisk: (weights.interruptionRisk * (m.interruptionRisk ?? 1)) / sum,
    dataLocality: (weights.dataLocality * (m.dataLocality ?? 1)) / sum,
  };
}
