import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Fleet } from '@nodes-manager/sim';
import { Rng } from '@nodes-manager/sim';

/** ReplayRow — one past rebalance of the seeded replay, as the ledger keeps it (resolved: survived or interrupted). */
export interface ReplayRow {
  node: string;
  instanceType: string;
  zone: string;
  nodePool: string | null;
  seenAt: Date;
  interruptedAt: Date | null;
}

/** ReplayPool — what the replay plays in one pool: its rebalances and how many of them were followed by an interruption. */
export interface ReplayPool {
  instanceType: string;
  zone: string;
  nodePool: string | null;
  nodes: number;
  samples: number;
  interrupted: number;
  story: 'avoid' | 'watch' | 'healthy';
}

const HOUR = 3_600_000;
/** The replay's span: inside steering's 7-day window (STEERING_WINDOW_HOURS), ending an hour before the demo starts. */
const SPAN_HOURS = 5 * 24;
/** Per story: rebalances and interruptions. 12 of 14 puts the interrupted share's 95% lower bound above 50% (avoid); 7 of 14 above 25% (watch); 1 of 12 is calm. */
const STORY = { avoid: { samples: 14, interrupted: 12 }, watch: { samples: 14, interrupted: 7 }, healthy: { samples: 12, interrupted: 1 } } as const;

/**
 * replayPools — the Spot pools the fleet runs in, most nodes first: the busiest is made bad (its rebalances mostly
 * followed by an interruption), the next watched, the next three calm. Pure.
 */
export function replayPools(fleet: Fleet): ReplayPool[] {
  const byPool = new Map<string, { instanceType: string; zone: string; nodePool: string | null; nodes: number }>();
  for (const n of fleet.nodes) {
    const l = n.metadata?.labels ?? {};
    if (l['karpenter.sh/capacity-type'] !== 'spot') continue;
    const instanceType = l['node.kubernetes.io/instance-type'];
    const zone = l['topology.kubernetes.io/zone'];
    if (!instanceType || !zone) continue;
    const key = `${instanceType}/${zone}`;
    const p = byPool.get(key) ?? { instanceType, zone, nodePool: l['karpenter.sh/nodepool'] ?? null, nodes: 0 };
    p.nodes += 1;
    byPool.set(key, p);
  }
  const pools = [...byPool.values()].sort((a, b) => b.nodes - a.nodes || `${a.instanceType}/${a.zone}`.localeCompare(`${b.instanceType}/${b.zone}`));
  const stories = ['avoid', 'watch', 'healthy', 'healthy', 'healthy'] as const;
  return pools.slice(0, stories.length).map((p, i) => ({ ...p, story: stories[i]!, ...STORY[stories[i]!] }));
}

/**
 * replayRows — the seeded replay: each pool's rebalances spread over the last five days (an hour apart at least),
 * which of them were followed by an interruption and after how long (10–90 min), from `seed`. Pure: `now` is the caller's.
 */
export function replayRows(pools: readonly ReplayPool[], seed: number, now: Date): ReplayRow[] {
  const rng = new Rng(seed);
  const end = now.getTime() - HOUR;
  const rows: ReplayRow[] = [];
  for (const p of pools) {
    const hours = new Set<number>();
    while (hours.size < p.samples) hours.add(rng.int(0, SPAN_HOURS - 1));
    const seen = [...hours].sort((a, b) => a - b).map((h) => end - (SPAN_HOURS - h) * HOUR + rng.int(0, 59) * 60_000);
    const interrupted = new Set<number>();
    while (interrupted.size < p.interrupted) interrupted.add(rng.int(0, p.samples - 1));
    seen.forEach((at, i) =>
      rows.push({
        node: `replay-${p.instanceType}-${p.zone}-${i + 1}`.replace(/\./g, '-'),
        instanceType: p.instanceType,
        zone: p.zone,
        nodePool: p.nodePool,
        seenAt: new Date(at),
        interruptedAt: interrupted.has(i) ? new Date(at + rng.int(10, 90) * 60_000) : null,
      }),
    );
  }
  return rows;
}

/**
 * seedLedgerHistory — writes the replay into uncordon's rebalance ledger (nodes.rebalance_ledger, after the
 * migrations ran): resolved rows of Node objects long gone, named `replay-…`, each piece of evidence saying `seeded
 * replay`. Only the demo does this.
 */
export async function seedLedgerHistory(databaseUrl: string, rows: readonly ReplayRow[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const r of rows) {
      const resolvedAt = r.interruptedAt ?? new Date(r.seenAt.getTime() + 24 * HOUR);
      await client.query(
        `INSERT INTO nodes.rebalance_ledger (id, node_name, node_uid, instance_type, zone, capacity_type, node_pool, seen_at, seen_signal, seen_time_source, outcome, resolved_at, interrupted_at, interruption_source, lead_time_ms, gone_at, evidence, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'spot', $6, $7, 'rebalance-taint', 'taint-time-added', $8, $9, $10, $11, $12, $13, $14, now())`,
        [
          randomUUID(), r.node, `replay-${randomUUID()}`, r.instanceType, r.zone, r.nodePool, r.seenAt,
          r.interruptedAt ? 'interrupted' : 'survived', resolvedAt, r.interruptedAt, r.interruptedAt ? 'spot-itn-taint' : null,
          r.interruptedAt ? r.interruptedAt.getTime() - r.seenAt.getTime() : null, r.interruptedAt, JSON.stringify(evidenceOf(r, resolvedAt)),
        ],
      );
    }
  } finally {
    await client.end();
  }
}

const REPLAY = 'seeded replay of the demo';

/** evidenceOf — a replayed row's evidence, as the ledger would have kept it: NTH's taint, then the interruption or the horizon. */
function evidenceOf(r: ReplayRow, resolvedAt: Date) {
  return [
    { kind: 'rebalance-taint', at: r.seenAt.toISOString(), detail: REPLAY, source: 'nth' },
    r.interruptedAt ? { kind: 'spot-itn-taint', at: r.interruptedAt.toISOString(), detail: REPLAY, source: 'nth' } : { kind: 'horizon-passed', at: resolvedAt.toISOString(), detail: REPLAY },
  ];
}
