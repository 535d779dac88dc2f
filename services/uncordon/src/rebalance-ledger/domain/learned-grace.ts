import type { RebalanceFigures } from '@nodes-manager/contracts';

export type GraceMode = 'fixed' | 'learned';

/** GraceChoice — the grace period a pool gets, and why. */
export interface GraceChoice {
  readonly minutes: number;
  /**
   * `fixed`: the mode is fixed. `learned`: the pool's p90 lead time. `configured-is-longer`: learned, but the p90 is
   * shorter than the configured grace, which is never shortened. `too-few-samples`: fewer interruption lead times
   * than the minimum.
   */
  readonly basis: 'fixed' | 'learned' | 'configured-is-longer' | 'too-few-samples';
  readonly samples: number;
  readonly p90LeadMinutes?: number;
}

/**
 * graceFor — AUTO_UNCORDON_GRACE_MODE: `fixed` keeps `configuredMinutes`. `learned` sets a pool's grace period to
 * its p90 lead time (rebalance → interruption) once it has at least `minSamples` lead times, so that nine in ten of
 * the interruptions that follow a rebalance in that pool have come before its nodes are given back — but never
 * below `configuredMinutes`.
 */
export function graceFor(mode: GraceMode, configuredMinutes: number, pool: RebalanceFigures | undefined, minSamples: number): GraceChoice {
  if (mode === 'fixed') return { minutes: configuredMinutes, basis: 'fixed', samples: pool?.leadTimeMinutes?.samples ?? 0 };
  const lead = pool?.leadTimeMinutes;
  if (!lead || lead.samples < minSamples) return { minutes: configuredMinutes, basis: 'too-few-samples', samples: lead?.samples ?? 0 };
  if (lead.p90 <= configuredMinutes) return { minutes: configuredMinutes, basis: 'configured-is-longer', samples: lead.samples, p90LeadMinutes: lead.p90 };
  return { minutes: lead.p90, basis: 'learned', samples: lead.samples, p90LeadMinutes: lead.p90 };
}
