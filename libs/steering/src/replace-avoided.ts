import type { PoolHealth } from './pool-health.js';
import type { NodeCount } from './nodepool-edit.types.js';
import { poolKey } from '@nodes-manager/contracts';
import { duration } from './stats.js';

/** AvoidedReplacement — nodes of an avoided pool worth moving now: the interruptions expected there outnumber the move. */
export interface AvoidedReplacement {
  pool: { instanceType: string; zone: string };
  /** Running Spot nodes of the pool, and how many to replace now (at most the pass's share of the cap). */
  nodes: number;
  replace: number;
  /** Interruptions expected per node before the pool may return: its rate × the hours until then. */
  expectedPerNode: number;
  sentence: string;
}

/**
 * planAvoidedReplacements — which nodes of avoided pools steering moves itself (docs/steering.md#drift-what-a-write-moves).
 * Steering holds Karpenter's drift of its own exclusions (a `reasons: [Drifted]` budget of 0 by default), so that an
 * exclusion moves no healthy node; instead, a node of an avoided pool is replaced when the interruptions it can expect
 * there before the pool may return — its pool's rate per node-hour × the hours to its `restoreAt` — reach
 * `minExpected` (1: one disruption now spares at least one later). Pools with the most expected go first, at most
 * `maxPerPass` nodes in all. Pure.
 */
export function planAvoidedReplacements(input: { health: readonly PoolHealth[]; nodes: readonly NodeCount[]; now: Date; maxPerPass: number; minExpected?: number }): AvoidedReplacement[] {
  const minExpected = input.minExpected ?? 1;
  const byPool = new Map<string, number>();
  for (const n of input.nodes) if (n.capacityType === 'spot') byPool.set(poolKey(n), (byPool.get(poolKey(n)) ?? 0) + n.count);
  const out: AvoidedReplacement[] = [];
  for (const h of input.health) {
    if (h.state !== 'avoid' || !h.restoreAt) continue;
    const running = byPool.get(poolKey(h.pool)) ?? 0;
    const rate = h.evidence.rate?.window.per1000 ?? h.evidence.rate?.recent.per1000 ?? null;
    if (running === 0 || rate === null) continue;
    const hours = Math.max(0, (h.restoreAt.getTime() - input.now.getTime()) / 3_600_000);
    const expected = (rate / 1000) * hours;
    if (expected < minExpected) continue;
    out.push({
      pool: h.pool,
      nodes: running,
      replace: 0,
      expectedPerNode: Math.round(expected * 100) / 100,
      sentence: `${h.pool.instanceType} in ${h.pool.zone}: ${running} node${running === 1 ? '' : 's'} replaced — each can expect ${expected.toFixed(1)} interruptions in the ${duration(hours * 3_600_000)} before the pool may return (${rate.toFixed(1)} per 1,000 node-hours), more than the one disruption a move costs.`,
    });
  }
  out.sort((a, b) => b.expectedPerNode - a.expectedPerNode);
  let left = Math.max(0, input.maxPerPass);
  for (const r of out) {
    r.replace = Math.min(r.nodes, left);
    left -= r.replace;
  }
  return out;
}
