import type { InterruptionRate, PoolInterruptionRate, PoolNodeHours } from '@nodes-manager/contracts';

/** poissonCdf — P(X ≤ k) for X ~ Poisson(λ), summed term by term (k is a count of interruptions: small). */
function poissonCdf(k: number, lambda: number): number {
  if (lambda <= 0) return 1;
  // In log space, so that a large λ does not underflow exp(−λ) before the terms grow.
  let logTerm = -lambda;
  let sum = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log(lambda / i);
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}

/**
 * poissonInterval95 — the exact (Garwood) 95% interval of a Poisson mean given `k` events: the lower bound λ with
 * P(X ≥ k | λ) = 2.5% (0 for k = 0), the upper with P(X ≤ k | λ) = 2.5% — the χ² bounds χ²(0.025; 2k)/2 and
 * χ²(0.975; 2k+2)/2, found by bisection on the CDF. Honest for the few interruptions a pool has: for k = 0 it is
 * [0, 3.69], for k = 1 [0.025, 5.57], for k = 10 [4.80, 18.39].
 */
export function poissonInterval95(k: number): [number, number] {
  const alpha = 0.025;
  const solve = (f: (l: number) => number): number => {
    let lo = 0;
    let hi = Math.max(10, 2 * k + 20);
    for (let i = 0; i < 100; i++) {
      const mid = (lo + hi) / 2;
      if (f(mid) > 0) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  const lower = k === 0 ? 0 : solve((l) => alpha - (1 - poissonCdf(k - 1, l)));
  const upper = solve((l) => poissonCdf(k, l) - alpha);
  return [lower, upper];
}

/** CountedInterruption — what the rate needs of one interruption. */
export interface CountedInterruption {
  readonly instanceType: string | null;
  readonly zone: string | null;
  readonly capacityType: string | null;
  readonly rebalanceId: string | null;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * rateOf — interruptions per 1,000 node-hours = k / H × 1,000, and the Garwood interval of k scaled the same way.
 * Null rate and interval with no node-hours.
 */
export function rateOf(k: number, withoutRecommendation: number, nodeHours: number, nodes: number): InterruptionRate {
  if (nodeHours <= 0) return { interruptions: k, withoutRecommendation, nodeHours: 0, nodes, per1000NodeHours: null, interval95: null };
  const [lo, hi] = poissonInterval95(k);
  const per = 1000 / nodeHours;
  return {
    interruptions: k,
    withoutRecommendation,
    nodeHours: round(nodeHours, 1),
    nodes,
    per1000NodeHours: round(k * per, 3),
    interval95: [round(lo * per, 3), round(hi * per, 3)],
  };
}

const poolKey = (t: string | null, z: string | null) => `${t ?? ''}|${z ?? ''}`;

/**
 * interruptionRates — per Spot pool (instance type × zone) and for the cluster's Spot nodes: interruptions (all of
 * them, and those with no recommendation) over node-hours (node-sync's, Spot only). A pool with interruptions but no
 * node-hours (node-sync did not answer, or its lifetimes were purged) has a count and no rate. Pools sorted by rate,
 * highest first, then by node-hours.
 */
export function interruptionRates(interruptions: readonly CountedInterruption[], hours: readonly PoolNodeHours[] | null): { cluster: InterruptionRate; byPool: PoolInterruptionRate[] } {
  const pools = new Map<string, { instanceType: string | null; zone: string | null; k: number; without: number; nodeHours: number; nodes: number }>();
  const pool = (t: string | null, z: string | null) => {
    const key = poolKey(t, z);
    let p = pools.get(key);
    if (!p) pools.set(key, (p = { instanceType: t, zone: z, k: 0, without: 0, nodeHours: 0, nodes: 0 }));
    return p;
  };
  for (const h of hours ?? []) {
    if (h.capacityType !== 'spot') continue;
    const p = pool(h.instanceType, h.zone);
    p.nodeHours += h.nodeHours;
    p.nodes += h.nodes;
  }
  for (const i of interruptions) {
    if (i.capacityType !== null && i.capacityType !== 'spot') continue;
    const p = pool(i.instanceType, i.zone);
    p.k += 1;
    if (!i.rebalanceId) p.without += 1;
  }
  const byPool = [...pools.values()].map((p) => ({ instanceType: p.instanceType, zone: p.zone, ...rateOf(p.k, p.without, hours ? p.nodeHours : 0, p.nodes) }));
  byPool.sort((a, b) => (b.per1000NodeHours ?? -1) - (a.per1000NodeHours ?? -1) || b.nodeHours - a.nodeHours);
  const sum = (f: (p: { k: number; without: number; nodeHours: number; nodes: number }) => number) => [...pools.values()].reduce((s, p) => s + f(p), 0);
  return { cluster: rateOf(sum((p) => p.k), sum((p) => p.without), hours ? sum((p) => p.nodeHours) : 0, sum((p) => p.nodes)), byPool };
}
