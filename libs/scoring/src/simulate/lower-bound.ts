// lowerBoundCost: the best proven lower bound on the hourly cost of new nodes, the yardstick of the packers'
// quality (simulate.quality.spec.ts).
import { toleratesUnschedulable } from '../filters.js';
import { configurationBound, existingBins } from './configuration-lp.js';
import { compatible, offeringsFor } from './offerings.js';
import { demandOf, toGroups } from './pod-groups.js';
import { lpBound } from './resource-lp.js';
import { DIMS, type SimulateInput } from './types.js';

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
