import { REBALANCE_OUTCOMES, type PoolFigures, type RebalanceFigures, type RebalanceOutcome, type RebalancesSummary } from '@nodes-manager/contracts';
import { quantile, wilsonInterval } from '@nodes-manager/steering';
import { givenBackMs, isFinal, type LedgerEntry } from './advance-ledger.js';

// The Wilson interval and quantile are the steering library's (libs/steering stats.ts): one formula for the ledger's
// figures and the pools' health. Re-exported for the ledger's callers.
export { quantile, wilsonInterval };

const round = (x: number, digits = 4): number => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * figuresOf — what one group of rows came to. The share counts only rows whose follow-up is known: interrupted over
 * interrupted + survived. A `removed` row (the node went for another reason before the horizon) is censored — it
 * might have been interrupted later — so it is counted in `outcomes` but not in `samples`. Lead times are those of
 * the interrupted rows; node-hours given back add up every row's ({@link givenBackMs}, open rows up to `now`).
 */
export function figuresOf(rows: readonly LedgerEntry[], now: Date, horizonMs: number): RebalanceFigures {
  const outcomes = Object.fromEntries(REBALANCE_OUTCOMES.map((o) => [o, 0])) as Record<RebalanceOutcome, number>;
  const leads: number[] = [];
  let givenBack = 0;
  for (const r of rows) {
    outcomes[r.outcome] += 1;
    if (r.outcome === 'interrupted' && r.leadTimeMs !== null) leads.push(r.leadTimeMs / 60_000);
    givenBack += isFinal(r.outcome) ? r.givenBackMs : givenBackMs(r, now, horizonMs);
  }
  leads.sort((a, b) => a - b);
  const samples = outcomes.interrupted + outcomes.survived;
  const interval = wilsonInterval(outcomes.interrupted, samples);
  return {
    rebalances: rows.length,
    open: rows.filter((r) => !isFinal(r.outcome)).length,
    outcomes,
    samples,
    interrupted: outcomes.interrupted,
    interruptedShare: samples > 0 ? round(outcomes.interrupted / samples) : null,
    interval95: interval ? [round(interval[0]), round(interval[1])] : null,
    leadTimeMinutes: leads.length > 0 ? { samples: leads.length, median: round(quantile(leads, 0.5), 2), p90: round(quantile(leads, 0.9), 2) } : null,
    nodeHoursGivenBack: round(givenBack / 3_600_000, 3),
  };
}

function groupBy<K extends string>(rows: readonly LedgerEntry[], key: (r: LedgerEntry) => Record<K, string | null>): Array<{ key: Record<K, string | null>; rows: LedgerEntry[] }> {
  const groups = new Map<string, { key: Record<K, string | null>; rows: LedgerEntry[] }>();
  for (const r of rows) {
    const k = key(r);
    const id = JSON.stringify(k);
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { key: k, rows: [] }));
    g.rows.push(r);
  }
  return [...groups.values()].sort((a, b) => JSON.stringify(a.key).localeCompare(JSON.stringify(b.key)));
}

/** summarise — the figures per pool (instance type × zone), rolled up by type, zone, node pool and the cluster. */
export function summarise(rows: readonly LedgerEntry[], now: Date, horizonMs: number, from?: Date): RebalancesSummary {
  const fig = (g: { rows: LedgerEntry[] }) => figuresOf(g.rows, now, horizonMs);
  return {
    horizonHours: horizonMs / 3_600_000,
    from: from?.toISOString() ?? null,
    to: now.toISOString(),
    cluster: figuresOf(rows, now, horizonMs),
    byPool: groupBy(rows, (r) => ({ instanceType: r.instanceType, zone: r.zone })).map((g): PoolFigures => ({ ...g.key, ...fig(g) })),
    byInstanceType: groupBy(rows, (r) => ({ instanceType: r.instanceType })).map((g) => ({ ...g.key, ...fig(g) })),
    byZone: groupBy(rows, (r) => ({ zone: r.zone })).map((g) => ({ ...g.key, ...fig(g) })),
    byNodePool: groupBy(rows, (r) => ({ nodePool: r.nodePool })).map((g) => ({ ...g.key, ...fig(g) })),
  };
}
