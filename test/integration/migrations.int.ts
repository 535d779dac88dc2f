import { afterEach, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { assertHistory, checkHistory, checkSchema, createDataSource, runMigrations, SchemaCheckError, type ServiceDatabaseSpec } from '@nodes-manager/platform';
import { createTestDatabase, type TestDatabase } from '@nodes-manager/platform/testing';
import { entities as nodeSyncEntities } from '../../services/node-sync/src/adapters/outbound/node-sync.entities.js';
import { entities as uncordonEntities } from '../../services/uncordon/src/adapters/outbound/uncordon.entities.js';
import { entities as schedulerEntities } from '../../services/scheduler-scoring/src/adapters/outbound/scheduler-scoring.entities.js';
import { entities as karpenterEntities } from '../../services/karpenter-gateway/src/adapters/outbound/karpenter-gateway.entities.js';
import { entities as spotEntities } from '../../services/spot-advisor/src/adapters/outbound/spot-advisor.entities.js';
import { migrations as nodeSyncMigrations } from '../../migrations/node-sync/index.js';
import { migrations as uncordonMigrations } from '../../migrations/uncordon/index.js';
import { migrations as schedulerMigrations } from '../../migrations/scheduler-scoring/index.js';
import { migrations as karpenterMigrations } from '../../migrations/karpenter-gateway/index.js';
import { migrations as spotMigrations } from '../../migrations/spot-advisor/index.js';

const SERVICES = [
  { service: 'node-sync', entities: nodeSyncEntities, migrations: nodeSyncMigrations },
  { service: 'uncordon', entities: uncordonEntities, migrations: uncordonMigrations },
  { service: 'scheduler-scoring', entities: schedulerEntities, migrations: schedulerMigrations },
  { service: 'karpenter-gateway', entities: karpenterEntities, migrations: karpenterMigrations },
  { service: 'spot-advisor', entities: spotEntities, migrations: spotMigrations },
] as const;

/** Tables each service owns (docs/design.md#data); the schema check must find each of them. */
const OWNED_TABLES: Record<string, string[]> = {
  'node-sync': ['nodes', 'pods'],
  uncordon: ['scaling_events', 'cordon_observations', 'drain_operations', 'rebalance_ledger', 'fence_approvals', 'drain_approvals'],
  'scheduler-scoring': ['scheduling_decisions', 'consolidation_plans'],
  'karpenter-gateway': ['nodepool_changes'],
  'spot-advisor': ['spot_price_samples', 'provisioning_requests'],
};

let db: TestDatabase;
const open: DataSource[] = [];
const specFor = (s: (typeof SERVICES)[number], overrides: Partial<ServiceDatabaseSpec> = {}): ServiceDatabaseSpec => ({
  service: s.service,
  url: db.url,
  entities: s.entities,
  migrations: s.migrations,
  poolSize: 2,
  ...overrides,
});
async function dataSource(spec: ServiceDatabaseSpec): Promise<DataSource> {
  const ds = createDataSource(spec);
  await ds.initialize();
  open.push(ds);
  return ds;
}

afterEach(async () => {
  for (const ds of open.splice(0)) await ds.destroy();
  await db?.drop();
});

describe('migrations and the start-up schema check', () => {
  it.each(SERVICES.map((s) => [s.service, s] as const))('%s: on an empty database its tables exist with the declared types', async (_, s) => {
    db = await createTestDatabase();
    const ds = await dataSource(specFor(s));
    const applied = await runMigrations(ds, specFor(s));
    expect(applied).toEqual(s.migrations.map((m) => new m().name));
    expect(await checkSchema(ds, specFor(s))).toEqual([]);

    const tables = (await db.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'nodes'`)).map((r) => r.table_name);
    expect(tables).toEqual(expect.arrayContaining(OWNED_TABLES[s.service]!));
    // The inbox of the event subscriber the services once had is dropped again by a later migration.
    expect(tables.filter((t) => t.startsWith('inbox_'))).toEqual([]);
    // Every column the code declares as JSON is jsonb in the database, and none is plain json.
    const jsonCols = ds.entityMetadatas.flatMap((m) => m.columns.filter((c) => c.type === 'jsonb').map((c) => [m.tableName, c.databaseName]));
    for (const [table, column] of jsonCols) {
      const [row] = await db.query<{ udt_name: string }>(
        `SELECT udt_name FROM information_schema.columns WHERE table_schema = 'nodes' AND table_name = $1 AND column_name = $2`,
        [table, column],
      );
      expect(`${table}.${column}:${row?.udt_name}`).toBe(`${table}.${column}:jsonb`);
    }
    const plainJson = await db.query(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'nodes' AND udt_name = 'json'`);
    expect(plainJson).toEqual([]);
  });

  it('names a JSON column that is json instead of jsonb', async () => {
    db = await createTestDatabase();
    const s = SERVICES[1];
    const ds = await dataSource(specFor(s));
    await runMigrations(ds, specFor(s));
    await db.query(`ALTER TABLE nodes.scaling_events ALTER COLUMN evidence TYPE json USING evidence::json`);
    const problems = await checkSchema(ds, specFor(s));
    expect(problems).toEqual([{ kind: 'COLUMN_TYPE_MISMATCH', message: 'column scaling_events.evidence is json but the code expects jsonb' }]);
  });

  it('names a column a migration added that the code does not declare', async () => {
    db = await createTestDatabase();
    const s = SERVICES[1];
    const ds = await dataSource(specFor(s));
    await runMigrations(ds, specFor(s));
    await db.query(`ALTER TABLE nodes.drain_operations ADD COLUMN requested_by text`);
    expect(await checkSchema(ds, specFor(s))).toEqual([
      {
        kind: 'COLUMN_NOT_DECLARED',
        message: 'column drain_operations.requested_by exists but the code does not declare it (add it to the entity, or drop it in a migration)',
      },
    ]);
  });

  it('names an outbox payload column that is json instead of jsonb', async () => {
    db = await createTestDatabase();
    const s = SERVICES[2];
    const ds = await dataSource(specFor(s));
    await runMigrations(ds, specFor(s));
    await db.query(`ALTER TABLE nodes.outbox_scheduler_scoring ALTER COLUMN payload TYPE json USING payload::json`);
    expect(await checkSchema(ds, specFor(s))).toEqual([
      { kind: 'COLUMN_TYPE_MISMATCH', message: 'column outbox_scheduler_scoring.payload is json but the code expects jsonb' },
    ]);
  });

  it('refuses a build that carries no migrations, and says why', async () => {
    db = await createTestDatabase();
    const s = SERVICES[0];
    const spec = specFor(s, { migrations: [] });
    const ds = await dataSource(spec);
    await runMigrations(ds, spec);
    const problems = await checkSchema(ds, spec);
    expect(problems.map((p) => p.kind)).toEqual(['NO_MIGRATIONS_IN_BUILD', 'TABLE_MISSING', 'TABLE_MISSING', 'TABLE_MISSING', 'TABLE_MISSING']);
    expect(problems[0]!.message).toContain('migrations/node-sync/');
    expect(problems.map((p) => p.message).join('\n')).toContain('nodes.outbox_node_sync does not exist');
    expect(problems.map((p) => p.message).join('\n')).toContain('nodes.nodes does not exist');
  });

  it('karpenter-gateway: stored hyphenated codes take their snake_case spelling, the other codes and results untouched', async () => {
    db = await createTestDatabase();
    const s = SERVICES.find((x) => x.service === 'karpenter-gateway')!;
    const upTo = s.migrations.findIndex((m) => new m().name === 'KarpenterGatewaySnakeCaseCodes1766200000000');
    expect(upTo).toBeGreaterThan(0);
    const before = specFor(s, { migrations: s.migrations.slice(0, upTo) });
    const ds = await dataSource(before);
    await runMigrations(ds, before);
    const now = '2026-12-01T00:00:00Z';
    for (const [pool, status] of [['a', 'outside-window'], ['b', 'nothing-to-do'], ['c', 'written']]) {
      await ds.query(`INSERT INTO nodes.steering_plans (node_pool, mode, plan, status, detail, planned_at) VALUES ($1, 'execute', '{}', $2, 'x', $3)`, [pool, status, now]);
    }
    for (const [i, result] of ['dry-run', 'awaiting-approval', 'applied', 'refused:CONFLICT'].entries()) {
      await ds.query(`INSERT INTO nodes.nodepool_changes (id, node_pool, action, actor, result, created_at) VALUES ($1, 'a', 'consolidate', 'alice', $2, $3)`, [`00000000-0000-4000-8000-00000000000${i}`, result, now]);
    }
    const results = [
      { node: 'a', outcome: 'skipped', reason: 'outside-window', detail: 'd' },
      { node: 'b', outcome: 'skipped', reason: 'plan_changed', detail: 'd' },
      { node: 'c', outcome: 'skipped', reason: 'awaiting-approval', detail: 'd' },
    ];
    await ds.query(
      `INSERT INTO nodes.steer_approvals (id, kind, status, subject, reason, action, requested_by, requested_at, expires_at, results) VALUES ('steer-1', 'steer', 'executed', 'a', 'r', '{}', 'alice', $1, $1, $2::jsonb)`,
      [now, JSON.stringify(results)],
    );
    const after = await dataSource(specFor(s));
    expect(await runMigrations(after, specFor(s))).toContain('KarpenterGatewaySnakeCaseCodes1766200000000');
    expect((await ds.query(`SELECT status FROM nodes.steering_plans ORDER BY node_pool`)).map((r: { status: string }) => r.status)).toEqual(['outside_window', 'nothing_to_do', 'written']);
    expect((await ds.query(`SELECT result FROM nodes.nodepool_changes ORDER BY id`)).map((r: { result: string }) => r.result)).toEqual(['dry_run', 'awaiting_approval', 'applied', 'refused:CONFLICT']);
    const [row] = (await ds.query(`SELECT results FROM nodes.steer_approvals`)) as { results: { reason: string }[] }[];
    expect(row!.results.map((r) => r.reason)).toEqual(['outside_window', 'plan_changed', 'awaiting_approval']);
  });

  it('reports a migration of the build that the database has not applied', async () => {
    db = await createTestDatabase();
    const s = SERVICES[3];
    const ds = await dataSource(specFor(s));
    const problems = await checkSchema(ds, specFor(s));
    expect(problems.map((p) => p.kind)).toContain('MIGRATION_NOT_APPLIED');
  });

  it('applies each migration exactly once when every service and a second replica migrate at the same time', async () => {
    db = await createTestDatabase();
    const runs = [...SERVICES, ...SERVICES].map(async (s) => {
      const ds = await dataSource(specFor(s));
      return runMigrations(ds, specFor(s));
    });
    const results = await Promise.all(runs);
    for (const s of SERVICES) {
      const table = `migrations_${s.service.replace(/-/g, '_')}`;
      const rows = await db.query<{ name: string }>(`SELECT name FROM nodes.${table}`);
      expect(rows.map((r) => r.name)).toEqual(s.migrations.map((m) => new m().name));
    }
    // Of the two replicas of each service, exactly one applied its migrations.
    const appliedCount = results.reduce((n, r) => n + r.length, 0);
    expect(appliedCount).toBe(SERVICES.reduce((n, s) => n + s.migrations.length, 0));
  });

  it('refuses a lying history before any pending migration: the initial migration recorded, its tables missing', async () => {
    db = await createTestDatabase();
    const s = SERVICES[3];
    const spec = specFor(s);
    const initial = new s.migrations[0]!().name!;
    // The migrations table says the initial migration ran; none of its tables are there.
    await db.query(`CREATE SCHEMA IF NOT EXISTS nodes`);
    await db.query(`CREATE TABLE nodes.migrations_karpenter_gateway (id serial PRIMARY KEY, "timestamp" bigint NOT NULL, name varchar NOT NULL)`);
    await db.query(`INSERT INTO nodes.migrations_karpenter_gateway ("timestamp", name) VALUES (1764500000000, $1)`, [initial]);
    const ds = await dataSource(spec);

    expect(await checkHistory(ds, spec)).toEqual([
      { kind: 'TABLE_MISSING', message: `table nodes.nodepool_changes does not exist, though migration ${initial} that creates it is recorded as applied` },
      { kind: 'TABLE_MISSING', message: `table nodes.outbox_karpenter_gateway does not exist, though migration ${initial} that creates it is recorded as applied` },
      { kind: 'TABLE_MISSING', message: `table nodes.inbox_karpenter_gateway does not exist, though migration ${initial} that creates it is recorded as applied` },
    ]);
    const refused = await runMigrations(ds, spec, { beforePending: () => assertHistory(ds, spec) }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(SchemaCheckError);
    expect((refused as SchemaCheckError).message).toContain('does not match its recorded migrations');
    // Nothing of the pending migrations was applied.
    const history = await db.query<{ name: string }>(`SELECT name FROM nodes.migrations_karpenter_gateway`);
    expect(history.map((r) => r.name)).toEqual([initial]);
  });

  it('finds a column a recorded migration added missing, and a new or honest database has nothing to report', async () => {
    db = await createTestDatabase();
    const s = SERVICES[1];
    const ds = await dataSource(specFor(s));
    expect(await checkHistory(ds, specFor(s))).toEqual([]);
    await runMigrations(ds, specFor(s), { beforePending: () => assertHistory(ds, specFor(s)) });
    expect(await checkHistory(ds, specFor(s))).toEqual([]);
    await db.query(`ALTER TABLE nodes.drain_operations DROP COLUMN state`);
    expect(await checkHistory(ds, specFor(s))).toEqual([
      { kind: 'COLUMN_MISSING', message: expect.stringMatching(/^column drain_operations\.state does not exist, though migration \w+ that adds it is recorded as applied$/) },
    ]);
  });
});
