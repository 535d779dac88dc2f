// The dual greedy packer: one kind of node at a time, pods valued at the resource LP's shadow prices.
import { NewNodes } from './new-nodes.js';
import { compatible } from './offerings.js';
import { demandOf } from './pod-groups.js';
import { lpBound } from './resource-lp.js';
import { DIMS, type Group, type Offering } from './types.js';
import { dominantShare, howMany, sizeOf } from './vectors.js';

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
export function dualGreedy(groups: Group[], offerings: readonly Offering[], values?: readonly number[]): NewNodes {
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
