// The new nodes a packer buys, counted per offering.
import type { NodeAddition, Offering } from './types.js';
import { roundUsd } from './vectors.js';

/** NewNodes — additions keyed by offering, accumulated by a packer. */
export class NewNodes {
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
