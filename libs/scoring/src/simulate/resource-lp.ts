// The resource LP relaxation: a lower bound per resource dimension, and its shadow prices for the greedy packer.
import { maximizeLp } from '../lp.js';
import { DIMS, UNIT, type Offering } from './types.js';

/**
 * lpBound — min Σ_o price_o·x_o over fractional node counts x ≥ 0 such that On-Demand capacity covers the
 * Spot-averse demand and all capacity covers all demand, per dimension (cpu, memory, GPU, pod slots). Zones
 * and selectors are relaxed away, so this is a valid lower bound for any packing. Solved through its dual
 * (`maximizeLp`), whose solution y prices each unit of each resource; returned for the greedy packer.
 */
export function lpBound(demand: readonly number[], offerings: readonly Offering[]): { value: number; y: number[] } {
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
