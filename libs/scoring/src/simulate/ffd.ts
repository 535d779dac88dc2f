// First-fit decreasing onto new nodes: cluster-autoscaler's estimator, the baseline the other packers must beat.
import { NewNodes } from './new-nodes.js';
import { compatible } from './offerings.js';
import { DIMS, type Group, type Offering } from './types.js';
import { howMany, sizeOf } from './vectors.js';

/**
 * ffdNewNodes — cluster-autoscaler's estimator: pods in pools of identical constraints, each pool on one
 * instance type (the configured one, else the cheapest offering that can hold every pod of the pool), pods
 * sorted by size descending, each into the first open node with room, else a new node. Identical pods are
 * placed a group at a time, which is the same as one by one. Mutates `remaining`.
 */
export function ffdNewNodes(groups: Group[], offerings: readonly Offering[], instanceType?: string): NewNodes {
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
