/**
 * Table growth at 5,000 nodes, before and after retention (docs/retention.md, figures in docs/benchmarks.md).
 *
 * A seeded churn model of a 5,000-node cluster (30 pods a node, 60% Spot, SCAN_INTERVAL_SECONDS 60; the rates are
 * `CHURN` below, each with its reason) says how many rows each history table gets a day. Two measurements on real
 * Postgres with every service's real migrations in one database, as in production:
 *
 * 1. **Bytes per row** (table, its indexes and TOAST): `--sample` rows (2,000) of each table, so that a table's
 *    few rows a day do not measure a page (60 of a plan's), with content sized as the services write it — node and pod rows carry the labels,
 *    annotations, taints and conditions of the simulator's generated fleet, and a consolidation plan is the real
 *    plan of scheduler-scoring's consolidation on that fleet at 5,000 nodes (bench/support/fleet-snapshot.ts).
 *    × rows a day = MB a day; without retention the table grows by that, every day, forever.
 * 2. **Retention at work**: `--days` (21) simulated days of the same rows a day on a FakeClock, each day's rows
 *    spread over the day, and each service's real retention controller (its rules, its lengths by default) run at
 *    the end of each day, batch after batch. The rows left at the end are the steady state of every table whose
 *    retention is shorter than the run; for the longer ones it is rows a day × retention (marked projected).
 *
 *   npm run build && node dist/bench/retention.bench.js [--days 21] [--sample 5000] [--seed 7]
 * Prints JSON and the Markdown table of docs/benchmarks.md.
 */
import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import { planConsolidation } from '@nodes-manager/scoring';
import {
  activeRules, Controllers, createDataSource, FakeClock, JsonLogger, LeaderElector, Metrics, retentionController, runMigrations,
  type Controller, type RetentionSpec,
} from '@nodes-manager/platform';
import { createTestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet } from '@nodes-manager/sim';
import { migrations as nodeSyncMigrations } from '../migrations/node-sync/index.js';
import { migrations as uncordonMigrations } from '../migrations/uncordon/index.js';
import { migrations as schedulerMigrations } from '../migrations/scheduler-scoring/index.js';
import { migrations as karpenterMigrations } from '../migrations/karpenter-gateway/index.js';
import { migrations as spotMigrations } from '../migrations/spot-advisor/index.js';
import { nodeSyncRetention } from '../services/node-sync/src/retention.js';
import { uncordonRetention } from '../services/uncordon/src/retention.js';
import { schedulerScoringRetention } from '../services/scheduler-scoring/src/retention.js';
import { karpenterGatewayRetention } from '../services/karpenter-gateway/src/retention.js';
import { spotAdvisorRetention } from '../services/spot-advisor/src/retention.js';
import { msOf } from '../libs/platform/src/runtime/retention.js';
import { fleetSnapshot } from './support/fleet-snapshot.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const DAYS = Number(arg('days', '21'));
const SAMPLE = Number(arg('sample', '2000'));
const SEED = Number(arg('seed', '7'));
const NODES = 5_000;
const PODS_PER_NODE = 30;
const DAY_MS = 86_400_000;

/**
 * CHURN — rows a day per table at 5,000 nodes, and why. Node turnover 15% a day (Karpenter consolidation and expiry,
 * Spot interruptions: 750 nodes); 60% Spot (3,000 nodes), 5% of them get a rebalance recommendation a day.
 */
const CHURN: Record<string, { perDay: number; why: string }> = {
  nodes: { perDay: 750, why: '15% of 5,000 nodes replaced a day' },
  node_lifetimes: { perDay: 750, why: 'one per node object that comes and goes' },
  pods: { perDay: 42_500, why: 'the replaced nodes\' 22,500 pods, rollouts of 10% of 150,000 pods, 5,000 job pods' },
  scaling_events: { perDay: 700, why: '2 per rebalance (cordon seen, uncordon or drain), 2 per drain' },
  drain_operations: { perDay: 200, why: 'consolidation and manual drains' },
  fencing_operations: { perDay: 3, why: 'hung nodes fenced' },
  rebalance_ledger: { perDay: 150, why: '5% of 3,000 Spot nodes' },
  spot_interruptions: { perDay: 60, why: '2% of 3,000 Spot nodes interrupted a day' },
  fence_approvals: { perDay: 3, why: 'one per fence, manual approval' },
  drain_approvals: { perDay: 10, why: 'manual drains recorded' },
  disruption_pause: { perDay: 2, why: 'a pause and a resume' },
  scheduling_decisions: { perDay: 3_080, why: 'scale-up and plan decisions each cycle (1,440 cycles), 200 drain decisions' },
  consolidation_plans: { perDay: 1_440, why: 'one plan row per cycle (every 60 s), the whole plan' },
  optimize_approvals: { perDay: 24, why: 'manual approval of execute-mode plans' },
  nodepool_changes: { perDay: 40, why: 'limits, budgets and steering writes' },
  pool_health_transitions: { perDay: 30, why: 'Spot pools changing health' },
  consolidation_approvals: { perDay: 24, why: 'manual approval of consolidations' },
  steer_approvals: { perDay: 10, why: 'manual approval of steering writes' },
  spot_price_samples: { perDay: 4_320, why: '120 instance types × 3 zones × 12 price points a day' },
  provisioning_requests: { perDay: 5, why: 'on-demand launches' },
};

const SPECS: readonly { spec: RetentionSpec; migrations: readonly (new () => unknown)[] }[] = [
  { spec: nodeSyncRetention, migrations: nodeSyncMigrations },
  { spec: uncordonRetention, migrations: uncordonMigrations },
  { spec: schedulerScoringRetention, migrations: schedulerMigrations },
  { spec: karpenterGatewayRetention, migrations: karpenterMigrations },
  { spec: spotAdvisorRetention, migrations: spotMigrations },
];

/** The finished statuses a history row is written with (what the rules may delete), and the payloads it carries. */
function overrides(fleetJson: { node: Record<string, unknown>; pod: Record<string, unknown>; plan: unknown }, big: boolean): Record<string, Record<string, unknown>> {
  const j = (v: unknown) => JSON.stringify(v);
  const evidence = j({ verdict: 'uncordon', graceMs: 900_000, cordonedBy: 'node-termination-handler', managedFields: [{ manager: 'node-termination-handler', operation: 'Update', time: '2026-06-01T00:00:00Z' }], pods: 31, reason: 'rebalance-recommendation-passed' });
  return {
    nodes: { state: `'Deleted'`, labels: j(fleetJson.node['labels']), annotations: j(fleetJson.node['annotations']), taints: j(fleetJson.node['taints']), conditions: j(fleetJson.node['conditions']) },
    pods: { labels: j(fleetJson.pod['labels']), annotations: j(fleetJson.pod['annotations']) },
    scaling_events: { action: `'uncordon'`, evidence },
    drain_operations: { status: `'succeeded'`, options: j({ timeoutSeconds: 600, ignoreDaemonSets: true, deleteEmptyDirData: true }), progress: j({ evicted: 31, blocked: [], pods: Array.from({ length: 31 }, (_, i) => ({ pod: `ns-${i}/app-${i}-7d9f8`, outcome: 'evicted' })) }) },
    fencing_operations: { status: `'stopped'`, steps: j([{ step: 'ec2_requested' }, { step: 'confirmed' }, { step: 'tainted' }, { step: 'pods_deleted', count: 24 }]), evidence },
    rebalance_ledger: { outcome: `'interrupted'`, evidence: j([{ source: 'nth-imds', kind: 'rebalance' }, { source: 'karpenter', kind: 'interruption' }]) },
    fence_approvals: { status: `'executed'`, action: j({ node: 'ip-10-0-12-34.ec2.internal', action: 'stop' }) },
    drain_approvals: { status: `'executed'`, action: j({ node: 'ip-10-0-12-34.ec2.internal' }) },
    disruption_pause: { action: `'resume'`, source: `'api'` },
    scheduling_decisions: { details: j({ planId: '6f1c4e0e-8f5e-4f43-9a70-3f7f3f0f6a11', nodes: 1324, hourlySavingsUsd: 686.2, priceSource: 'ec2' }) },
    consolidation_plans: { status: `'planned'`, plan: big ? j(fleetJson.plan) : j({}) },
    optimize_approvals: { status: `'rejected'`, action: j({ planId: '6f1c4e0e-8f5e-4f43-9a70-3f7f3f0f6a11' }) },
    nodepool_changes: { request: j({ limits: { cpu: '4000' } }), before: j({ limits: { cpu: '3000' } }), after: j({ limits: { cpu: '4000' } }) },
    pool_health_transitions: { to_state: `'watch'`, evidence: j({ samples: 40, followed: 9, share: 0.225, interval: [0.12, 0.37] }) },
    consolidation_approvals: { status: `'expired'`, action: j({ nodePool: 'default', remove: ['ip-10-0-1-2.ec2.internal'] }) },
    steer_approvals: { status: `'executed'`, action: j({ nodePool: 'default', exclude: ['m5.large/us-east-1a'] }) },
    spot_price_samples: {},
    provisioning_requests: { status: `'succeeded'`, dry_run: 'false', request: j({ instanceType: 'm5.large', count: 1, zone: 'us-east-1a' }) },
  };
}

/** A value for a NOT NULL column the row does not set: unique text (for unique indexes), empty JSON, zero. */
function filler(type: string): string {
  if (type === 'uuid') return 'gen_random_uuid()';
  if (type === 'text') return `'r-' || gen_random_uuid()`;
  if (type === 'jsonb') return `'{}'::jsonb`;
  if (type === 'boolean') return 'false';
  if (type === 'ARRAY') return `'{}'`;
  return '0';
}

type Columns = { column_name: string; data_type: string; is_nullable: string; column_default: string | null }[];

/** insertDay — `n` rows of `table` made server-side, their time column spread evenly over [from, from + 1 day). */
async function insertDay(ds: DataSource, table: string, timeColumn: string, n: number, from: Date, set: Record<string, unknown>): Promise<void> {
  const cols: Columns = await ds.query(`SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'nodes' AND table_name = $1`, [table]);
  const names: string[] = [];
  const exprs: string[] = [];
  const params: unknown[] = [from, n];
  for (const c of cols) {
    const time = c.data_type === 'timestamp with time zone';
    let e: string | undefined;
    if (c.column_name in set) {
      const v = set[c.column_name];
      if (c.data_type === 'jsonb') e = `$${params.push(v)}::jsonb`;
      else e = String(v);
    } else if (time && (c.column_name === timeColumn || c.is_nullable === 'NO' || c.column_name === 'finished_at' || c.column_name === 'resolved_at' || c.column_name === 'executed_at')) {
      e = `$1::timestamptz + (i * interval '86400 seconds') / $2::int`;
    } else if (c.is_nullable === 'NO' && c.column_default === null) e = filler(c.data_type);
    if (e !== undefined) {
      names.push(c.column_name);
      exprs.push(e);
    }
  }
  await ds.query(`INSERT INTO nodes.${table} (${names.join(', ')}) SELECT ${exprs.join(', ')} FROM generate_series(0, $2::int - 1) i`, params);
}

const sizeOf = async (ds: DataSource, table: string): Promise<number> => Number((await ds.query(`SELECT pg_total_relation_size('nodes.${table}') AS b`))[0].b);
const countOf = async (ds: DataSource, table: string): Promise<number> => Number((await ds.query(`SELECT count(*)::int AS n FROM nodes.${table}`))[0].n);

/** A database with every service's migrations, as in production (one schema, each service's migrations table). */
async function migratedDatabase(label: string) {
  const db = await createTestDatabase(`nm_bench_retention_${label}`);
  let ds: DataSource | undefined;
  for (const { spec, migrations } of SPECS) {
    const one = createDataSource({ service: spec.service, url: db.url, entities: [], migrations: migrations as never, poolSize: 2 });
    await one.initialize();
    await runMigrations(one, { service: spec.service, url: db.url, entities: [], migrations: migrations as never });
    if (ds) await one.destroy();
    else ds = one;
  }
  return { db, ds: ds! };
}

const MB = 1024 * 1024;
const round = (x: number, d = 1): number => Number(x.toFixed(d));

async function main(): Promise<void> {
  const t0 = performance.now();
  // Content as the services write it: the generated fleet's first node and pod, and the real plan at 5,000 nodes.
  const sample = generateFleet({ seed: SEED, nodes: 1, podsPerNode: 30 });
  const node = sample.nodes[0]!;
  const pod = sample.pods[0]!;
  const snap = fleetSnapshot(NODES, PODS_PER_NODE);
  const plan = planConsolidation(snap);
  const planJson = { ...plan, threshold: 0.5, priceSource: 'ec2' };
  process.stderr.write(`plan at ${NODES} nodes: ${plan.remove.length} removable, ${plan.blocked.length} blocked, ${round(JSON.stringify(planJson).length / 1024)} KiB of JSON (${Math.round(performance.now() - t0)} ms)\n`);
  const fleetJson = {
    node: { labels: node.metadata?.labels ?? {}, annotations: node.metadata?.annotations ?? {}, taints: node.spec?.taints ?? [], conditions: node.status?.conditions ?? [] },
    pod: { labels: pod.metadata?.labels ?? {}, annotations: pod.metadata?.annotations ?? {} },
    plan: planJson,
  };
  const rules = SPECS.flatMap(({ spec }) => activeRules(spec, defaults(spec)).map((r) => ({ ...r, service: spec.service })));
  const unmodelled = rules.filter((r) => !CHURN[r.table]).map((r) => r.table);
  if (unmodelled.length) throw new Error(`no churn rate for ${unmodelled.join(', ')}: add each to CHURN`);

  // 1. Bytes per row, from one day's sample of each table.
  const a = await migratedDatabase('size');
  const perRow = new Map<string, number>();
  const big = overrides(fleetJson, true);
  for (const r of rules) {
    // Rows of a large payload (a plan: hundreds of KiB) need no thousands to be measured: an hour of cycles.
    const n = JSON.stringify(big[r.table] ?? {}).length > 65_536 ? 60 : SAMPLE;
    const before = await sizeOf(a.ds, r.table);
    await insertDay(a.ds, r.table, r.column, n, new Date(Date.UTC(2026, 5, 1)), big[r.table] ?? {});
    await a.ds.query(`VACUUM ANALYZE nodes.${r.table}`);
    perRow.set(r.table, ((await sizeOf(a.ds, r.table)) - before) / n);
  }
  await a.ds.destroy();
  await a.db.drop();
  process.stderr.write(`bytes per row measured (${Math.round(performance.now() - t0)} ms)\n`);

  // 2. DAYS simulated days with each service's retention controller at the end of each day.
  const b = await migratedDatabase('run');
  const clock = new FakeClock(new Date(Date.UTC(2026, 5, 1)));
  const start = clock.now().getTime();
  const metrics = new Metrics();
  const controllers: { c: Controller; leader: LeaderElector; tables: string[] }[] = [];
  for (const { spec } of SPECS) {
    const leader = new LeaderElector(b.db.url, `${spec.service}-retention`, undefined, 200);
    const c = retentionController(new Controllers(spec.service, clock, metrics, new JsonLogger(spec.service, 'error', () => undefined)), {
      leader,
      db: b.ds,
      rules: activeRules(spec, defaults(spec)),
      intervalMs: 3_600_000,
      batchSize: 1_000,
    });
    c.start();
    leader.start();
    controllers.push({ c, leader, tables: spec.rules.map((r) => r.table) });
  }
  for (const x of controllers) while (!x.c.isActive) await new Promise((r) => setTimeout(r, 20));
  const small = overrides(fleetJson, false);
  let batches = 0;
  let pruneMs = 0;
  for (let day = 0; day < DAYS; day++) {
    for (const r of rules) await insertDay(b.ds, r.table, r.column, CHURN[r.table]!.perDay, new Date(start + day * DAY_MS), small[r.table] ?? {});
    clock.set(new Date(start + (day + 1) * DAY_MS));
    const p0 = performance.now();
    for (const x of controllers) {
      for (const table of x.tables) {
        for (;;) {
          batches++;
          const res = await x.c.request(table);
          if (!res?.requeueAfterMs) break;
        }
      }
    }
    pruneMs += performance.now() - p0;
  }
  const deleted = await metrics.registry.getSingleMetric('nodes_manager_retention_deleted_rows_total')!.get();
  const rows = [];
  for (const r of rules) {
    const perDay = CHURN[r.table]!.perDay;
    const bytes = perRow.get(r.table)!;
    const keptDays = r.keepMs / DAY_MS;
    const left = await countOf(b.ds, r.table);
    const measured = keptDays < DAYS;
    const steadyRows = measured ? left : Math.round(perDay * keptDays);
    rows.push({
      table: r.table,
      service: r.service,
      rowsPerDay: perDay,
      why: CHURN[r.table]!.why,
      bytesPerRow: Math.round(bytes),
      mbPerDay: round((perDay * bytes) / MB, 2),
      beforeMbAfterOneYear: round((365 * perDay * bytes) / MB, 0),
      retention: `\`${r.variable}\` = ${r.variable.endsWith('_HOURS') ? `${round(r.keepMs / 3_600_000)} h` : `${round(keptDays, 2)} days`}`,
      rowsAfterRun: left,
      deletedInRun: deleted.values.find((v) => v.labels['table'] === r.table)?.value ?? 0,
      steadyRows,
      steadyMb: round((steadyRows * bytes) / MB, 1),
      steady: measured ? 'measured' : 'projected',
    });
  }
  for (const x of controllers) {
    await x.c.stop();
    await x.leader.stop();
  }
  await b.ds.destroy();
  await b.db.drop();
  const total = {
    mbPerDay: round(rows.reduce((s, r) => s + r.mbPerDay, 0), 1),
    beforeMbAfterOneYear: round(rows.reduce((s, r) => s + r.beforeMbAfterOneYear, 0), 0),
    steadyMb: round(rows.reduce((s, r) => s + r.steadyMb, 0), 0),
  };
  process.stdout.write(`${JSON.stringify({ retention: { nodes: NODES, podsPerNode: PODS_PER_NODE, days: DAYS, seed: SEED, planKiB: round(JSON.stringify(planJson).length / 1024), batches, pruneSeconds: round(pruneMs / 1000, 1), seconds: round((performance.now() - t0) / 1000, 0), rows, total } }, null, 2)}\n`);
  process.stdout.write(
    [
      '| table | rows/day (why) | bytes/row | MB/day | without retention, after a year | retention | kept at steady state |',
      '|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| \`${r.table}\` | ${r.rowsPerDay.toLocaleString('en')} (${r.why}) | ${r.bytesPerRow.toLocaleString('en')} | ${r.mbPerDay} | ${r.beforeMbAfterOneYear.toLocaleString('en')} MB | ${r.retention} | ${r.steadyRows.toLocaleString('en')} rows, ${r.steadyMb} MB (${r.steady}) |`),
      `| **all** | | | **${total.mbPerDay}** | **${total.beforeMbAfterOneYear.toLocaleString('en')} MB**, and growing | | **${total.steadyMb.toLocaleString('en')} MB**, flat |`,
      '',
    ].join('\n'),
  );
}

/** defaults — each retention variable's default (and the batch settings), as the config would give them. */
function defaults(spec: RetentionSpec): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  for (const r of spec.rules) {
    c[r.variable] = r.dflt;
    msOf(r.variable, r.dflt);
  }
  return c;
}

await main();
