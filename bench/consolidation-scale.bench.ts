/**
 * Consolidation plan at fleet scale, without the Kubernetes simulator: the simulator's fleet generator (seed 42, as
 * bench/kube-scale.bench.ts) is projected batch by batch through scheduler-scoring's own projections (nodes, pods,
 * claims, volumes, budgets with the disruption controller's arithmetic), summed and given volume zones as the
 * service's snapshot is, then `planConsolidation` is timed on it — the `planMs` of the scaling table's
 * scheduler-scoring rows, minus the informers. Pods per node: 30 up to 20,000 nodes, 10 above (`--pods-per-node`).
 * Each size reports the plan's time and its time per object, and the ratio of that to the smallest size's (≈ 1 when
 * the plan grows no faster than the fleet; up to 2,000 nodes the plan tries three candidate orders, above only one,
 * and at 10 pods per node most nodes are candidates, so compare sizes on the same side of both). Prints JSON.
 *   npm run build && node --max-old-space-size=8192 dist/bench/consolidation-scale.bench.js [--sizes 1000,5000,20000]
 * `--keep DIR` keeps each size's snapshot there (v8-serialised) and reads it back on the next run: projecting the
 * fleet takes longer than the plan (≈ 70 s at 20,000 nodes), which matters when profiling the plan alone.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { deserialize, serialize } from 'node:v8';
import { planConsolidation, type ConsolidationInput } from '@nodes-manager/scoring';
import { fleetPrices, fleetSnapshot } from './support/fleet-snapshot.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const sizes = arg('sizes', '1000,5000,20000').split(',').map(Number);
const podsPerNodeFor = (nodes: number): number => Number(arg('pods-per-node', nodes > 20_000 ? '10' : '30'));
const prices = fleetPrices;

const snapshotOf = (nodes: number): ConsolidationInput => fleetSnapshot(nodes, podsPerNodeFor(nodes));

const rows: Record<string, unknown>[] = [];
let basePerObject: number | undefined;
for (const nodes of sizes) {
  const t0 = performance.now();
  const keep = process.argv.includes('--keep') ? `${arg('keep', '.')}/consolidation-${nodes}-${podsPerNodeFor(nodes)}.v8` : undefined;
  const input: ConsolidationInput = keep && existsSync(keep) ? { ...deserialize(readFileSync(keep)), prices } : snapshotOf(nodes);
  if (keep && !existsSync(keep)) writeFileSync(keep, serialize({ ...input, prices: undefined }));
  const snapshotMs = performance.now() - t0;
  const t1 = performance.now();
  const plan = planConsolidation(input);
  const planMs = performance.now() - t1;
  const objects = input.nodes.length + input.pods.length;
  const perObject = planMs / objects;
  basePerObject ??= perObject;
  rows.push({
    nodes: input.nodes.length,
    pods: input.pods.length,
    pdbs: input.pdbs.length,
    snapshotMs: Math.round(snapshotMs),
    planMs: Math.round(planMs),
    microsecondsPerObject: Math.round(perObject * 1000 * 100) / 100,
    perObjectVsSmallest: Math.round((perObject / basePerObject) * 100) / 100,
    remove: plan.remove.length,
    blocked: plan.blocked.length,
    hourlySavingsUsd: Math.round(plan.hourlySavingsUsd * 100) / 100,
  });
  process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
}
process.stdout.write(`${JSON.stringify({ consolidationAtScale: rows }, null, 2)}\n`);
