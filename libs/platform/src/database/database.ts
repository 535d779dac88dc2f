import net from 'node:net';
import { DataSource, type DataSourceOptions, type EntitySchema, type MigrationInterface } from 'typeorm';
import pg from 'pg';
import { DEPENDENCY, registerDependency } from '../errors/coded-error.js';

export const DB_SCHEMA = 'nodes';

export type MigrationClass = new () => MigrationInterface;

// TypeORM accepts entity classes or EntitySchema; services pass their entity classes.
export type EntityTarget = (new (...args: never[]) => unknown) | EntitySchema;

/** tableSuffix — a service name as a SQL identifier fragment: `scheduler-scoring` → `scheduler_scoring`. */
export const tableSuffix = (service: string): string => service.replace(/[^a-z0-9]/gi, '_').toLowerCase();
export const migrationsTable = (service: string): string => `migrations_${tableSuffix(service)}`;
export const outboxTable = (service: string): string => `outbox_${tableSuffix(service)}`;

export interface ServiceDatabaseSpec {
  service: string;
  url: string;
  entities: readonly EntityTarget[];
  /** The service's migrations, imported statically so a build cannot leave them out. */
  migrations: readonly MigrationClass[];
  poolSize?: number;
}

/**
 * databaseSocket — the socket of every pool connection: its errors carry `dependency: 'database'`, so that a reset
 * or refused connection (whose socket error names only an address, or nothing, as a reset does) is answered as
 * "database unavailable" wherever it surfaces (CodedError.from).
 */
export function databaseSocket(): net.Socket {
  const socket = new net.Socket();
  socket.prependListener('error', (err: Error & { [DEPENDENCY]?: string }) => {
    err[DEPENDENCY] = 'database';
  });
  return socket;
}

/**
 * dataSourceOptions — the TypeORM options of a service's database (its own pg pool, schema `nodes`, its migrations
 * table): what `TypeOrmModule.forRootAsync` gets in a service (PlatformModule), and {@link createDataSource} elsewhere.
 */
export function dataSourceOptions(spec: ServiceDatabaseSpec): DataSourceOptions {
  registerDependency('database', spec.url, 5432);
  return {
    type: 'postgres',
    url: spec.url,
    schema: DB_SCHEMA,
    entities: [...spec.entities] as never,
    migrations: [...spec.migrations],
    migrationsTableName: migrationsTable(spec.service),
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: { max: spec.poolSize ?? 10, application_name: `nodes-manager/${spec.service}`, stream: databaseSocket },
  };
}

/** createDataSource — one TypeORM DataSource of a service, outside Nest (migration tests, benchmarks). */
export const createDataSource = (spec: ServiceDatabaseSpec): DataSource => new DataSource(dataSourceOptions(spec));

/** MIGRATION_LOCK_KEY — the advisory lock every replica of every service takes while migrating. */
export const MIGRATION_LOCK_KEY = 0x6e6d6d67; // "nmmg"

/**
 * runMigrations — applies the service's pending migrations under a Postgres advisory lock, so replicas (and
 * services) starting together apply each migration exactly once. Returns the names applied by this call.
 * `beforePending` runs under the same lock before any pending migration (the start-up history check,
 * self-check.ts `assertHistory`): what it throws refuses the start with nothing applied.
 */
export async function runMigrations(ds: DataSource, spec: ServiceDatabaseSpec, o: { beforePending?: () => Promise<void> } = {}): Promise<string[]> {
  const client = new pg.Client({ connectionString: spec.url, application_name: `nodes-manager/${spec.service}/migrate` });
  // A connection lost while migrating fails the queries below (and so the start); it must not also crash the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${DB_SCHEMA}`);
    await o.beforePending?.();
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
