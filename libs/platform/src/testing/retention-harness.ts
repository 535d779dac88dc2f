import type { DataSource } from 'typeorm';
import type { ServiceName } from '@nodes-manager/contracts';
import { FakeClock } from '../clock/fake-clock.js';
import { createDataSource, runMigrations, type EntityTarget, type MigrationClass } from '../database/database.js';
import { Metrics } from '../health/metrics.js';
import { LeaderElector } from '../leader/leader-elector.js';
import { JsonLogger } from '../logging/logger.js';
import type { Controller } from '../runtime/controller.js';
import { Controllers } from '../runtime/controllers.js';
import { activeRules, retentionController, type RetentionSpec } from '../runtime/retention.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { waitFor } from './wait-for.js';

export const DAY_MS = 86_400_000;

/** The default of a column a test row leaves out: any value its type takes (text made unique, for unique indexes). */
function filler(type: string, udt: string): string | undefined {
  if (type === 'uuid') return 'gen_random_uuid()';
  if (type === 'text') return `'r-' || gen_random_uuid()`;
  if (type === 'jsonb') return `'{}'::jsonb`;
  if (type === 'boolean') return 'false';
  if (type === 'integer' || type === 'bigint' || type === 'double precision') return '0';
  if (type === 'ARRAY') return `'{}'::${udt.replace(/^_/, '')}[]`;
  return undefined; // timestamptz: the test's now, below
}

export interface RetentionHarness {
  readonly db: TestDatabase;
  readonly ds: DataSource;
  readonly clock: FakeClock;
  readonly controller: Controller;
  readonly t0: number;
  /** row — inserts a row with `values` (SQL literals by column) and a value for every other NOT NULL column; answers it. */
  row(table: string, values?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** daysAgo — `days` before the Clock's now, as a parameter. */
  daysAgo(days: number): Date;
  /** left — the values of `column` in `table`'s rows, sorted. */
  left(table: string, column: string): Promise<string[]>;
  /** stepPast — moves the Clock `ms` on, its last interval stepped, so a listing runs then and its batches play out. */
  stepPast(ms: number): Promise<void>;
  /** deleted — the rows counted deleted in `table` (the metric). */
  deleted(table: string): Promise<number>;
  /** unindexed — the rules whose time column leads no index of their table. */
  unindexed(): Promise<string[]>;
  stop(): Promise<void>;
}

export interface RetentionHarnessOptions {
  service: ServiceName;
  entities: readonly EntityTarget[];
  migrations: readonly MigrationClass[];
  spec: RetentionSpec;
  /** The service's validated config (its RETENTION_* values). */
  config: Record<string, unknown>;
}

/**
 * startRetention — a service's retention controller on its migrated schema in a fresh database (real Postgres), on a
 * FakeClock, leader-gated by a real lock: the integration test of each service's rules (services/*\/test/retention.int.ts).
 */
export async function startRetention(o: RetentionHarnessOptions): Promise<RetentionHarness> {
  const db = await createTestDatabase(`nm_retention_${o.service.replace(/-/g, '_')}`);
  const spec = { service: o.service, url: db.url, entities: o.entities, migrations: o.migrations, poolSize: 3 };
  const ds = createDataSource(spec);
  await ds.initialize();
  await runMigrations(ds, spec);
  const clock = new FakeClock(new Date('2026-06-01T00:00:00Z'));
  const t0 = clock.now().getTime();
  const metrics = new Metrics();
  const controllers = new Controllers(o.service, clock, metrics, new JsonLogger(o.service, 'error', () => undefined));
  const leader = new LeaderElector(db.url, `${o.service}-retention`, undefined, 200);
  const intervalMs = (o.config['RETENTION_INTERVAL_MINUTES'] as number) * 60_000;
  const controller = retentionController(controllers, {
    leader,
    db: ds,
    rules: activeRules(o.spec, o.config),
    intervalMs,
    batchSize: o.config['RETENTION_BATCH_SIZE'] as number,
  });
  controller.start();
  leader.start();
  await waitFor(() => controller.isActive, `the ${o.service}-retention lock`);
  await controller.settled();
  const columns = new Map<string, { column_name: string; data_type: string; udt_name: string; is_nullable: string; column_default: string | null }[]>();
  const columnsOf = async (table: string) => {
    if (!columns.has(table)) {
      columns.set(table, await ds.query(`SELECT column_name, data_type, udt_name, is_nullable, column_default FROM information_schema.columns WHERE table_schema = 'nodes' AND table_name = $1`, [table]));
    }
    return columns.get(table)!;
  };
  return {
    db,
    ds,
    clock,
    controller,
    t0,
    async row(table, values = {}) {
      const names: string[] = [];
      const exprs: string[] = [];
      const params: unknown[] = [];
      for (const c of await columnsOf(table)) {
        if (c.column_name in values) {
          params.push(values[c.column_name]);
          names.push(c.column_name);
          exprs.push(`$${params.length}${c.data_type === 'jsonb' ? '::jsonb' : ''}`);
        } else if (c.is_nullable === 'NO' && c.column_default === null) {
          names.push(c.column_name);
          const f = filler(c.data_type, c.udt_name);
          if (f !== undefined) exprs.push(f);
          else {
            params.push(clock.now());
            exprs.push(`$${params.length}`);
          }
        }
      }
      const [r] = await ds.query(`INSERT INTO nodes.${table} (${names.join(', ')}) VALUES (${exprs.join(', ')}) RETURNING *`, params);
      return r;
    },
    daysAgo: (days) => new Date(clock.now().getTime() - days * DAY_MS),
    async left(table, column) {
      const rows: { v: string }[] = await ds.query(`SELECT ${column}::text AS v FROM nodes.${table} ORDER BY 1`);
      return rows.map((r) => r.v);
    },
    async stepPast(ms) {
      // Jumps to one interval short of `ms`, then steps that interval: the listing due on the way runs at the end.
      clock.set(new Date(clock.now().getTime() + Math.max(0, ms - intervalMs)));
      await clock.step(Math.min(ms, intervalMs));
      await controller.settled();
    },
    async deleted(table) {
      const m = metrics.registry.getSingleMetric('nodes_manager_retention_deleted_rows_total');
      const v = (await m!.get()).values.find((x) => x.labels['table'] === table && x.labels['service'] === o.service);
      return v?.value ?? 0;
    },
    async unindexed() {
      const out: string[] = [];
      for (const r of o.spec.rules) {
        const [hit] = await ds.query(
          `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
           JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
           WHERE n.nspname = 'nodes' AND c.relname = $1 AND a.attname = $2`,
          [r.table, r.column],
        );
        if (!hit) out.push(`${r.table}.${r.column}`);
      }
      return out;
    },
    async stop() {
      await controller.stop();
      await leader.stop();
      await ds.destroy();
      await db.drop();
    },
  };
}
