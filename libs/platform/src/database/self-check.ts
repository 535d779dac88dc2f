import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { DB_SCHEMA, migrationsTable, outboxTable, type ServiceDatabaseSpec } from './database.js';

/** SchemaProblem — one way the database does not match what this build's code expects. */
export interface SchemaProblem {
  kind: 'NO_MIGRATIONS_IN_BUILD' | 'MIGRATION_NOT_APPLIED' | 'TABLE_MISSING' | 'COLUMN_MISSING' | 'COLUMN_TYPE_MISMATCH' | 'COLUMN_NOT_DECLARED';
  message: string;
}

export class SchemaCheckError extends Error {
  constructor(
    readonly service: string,
    readonly problems: readonly SchemaProblem[],
    against = 'this build',
  ) {
    super(
      `${service}: refusing to start, the database does not match ${against}:\n` +
        problems.map((p) => `  - ${p.kind}: ${p.message}`).join('\n'),
    );
    this.name = 'SchemaCheckError';
  }
}

/** Postgres' `udt_name` for each TypeORM column type we use; anything unlisted must match by name. */
const UDT: Record<string, string> = {
  jsonb: 'jsonb',
  json: 'json',
  uuid: 'uuid',
  text: 'text',
  varchar: 'varchar',
  'character varying': 'varchar',
  boolean: 'bool',
  bool: 'bool',
  integer: 'int4',
  int: 'int4',
  int4: 'int4',
  bigint: 'int8',
  int8: 'int8',
  smallint: 'int2',
  'double precision': 'float8',
  float8: 'float8',
  real: 'float4',
  numeric: 'numeric',
  decimal: 'numeric',
  timestamptz: 'timestamptz',
  'timestamp with time zone': 'timestamptz',
  timestamp: 'timestamp',
  date: 'date',
  'text[]': '_text',
  bytea: 'bytea',
};

function expectedUdt(type: unknown, isArray: boolean): string | undefined {
  const name = typeof type === 'string' ? type : typeof type === 'function' ? (type as { name: string }).name : undefined;
  if (!name) return undefined;
  const mapped =
    UDT[name.toLowerCase()] ??
    ({ String: 'varchar', Number: 'int4', Boolean: 'bool', Date: 'timestamp' } as Record<string, string>)[name];
  if (!mapped) return undefined;
  return isArray ? `_${mapped}` : mapped;
}

/**
 * checkSchema — the start-up self-check: the build carries migrations, all of them are applied, and the service's
 * tables in schema `nodes` have exactly the columns its entities declare — each declared column exists with the
 * declared type (a JSON column that is `json` instead of `jsonb` is a mismatch), and a column the migrations created
 * but no entity declares is a problem too, so the migration and the entity describe a table the same way
 * (docs/design.md#data). Returns every problem found; the caller refuses to start when there is any.
 */
export async function checkSchema(ds: DataSource, spec: ServiceDatabaseSpec): Promise<SchemaProblem[]> {
  const problems: SchemaProblem[] = [];
  if (spec.migrations.length === 0) {
    problems.push({
      kind: 'NO_MIGRATIONS_IN_BUILD',
      message: `this build of ${spec.service} carries no migrations (migrations/${spec.service}/ was not compiled in)`,
    });
  }
  const history = await ds
    .query(`SELECT name FROM ${DB_SCHEMA}.${migrationsTable(spec.service)}`)
    .then((rows: { name: string }[]) => new Set(rows.map((r) => r.name)))
    .catch(() => new Set<string>());
  for (const m of ds.migrations) {
    const name = m.name ?? m.constructor.name;
    if (!history.has(name)) problems.push({ kind: 'MIGRATION_NOT_APPLIED', message: `migration ${name} is not applied` });
  }
  const cols: { table_name: string; column_name: string; udt_name: string }[] = await ds.query(
    `SELECT table_name, column_name, udt_name FROM information_schema.columns WHERE table_schema = $1`,
    [DB_SCHEMA],
  );
  const byTable = new Map<string, Map<string, string>>();
  for (const c of cols) {
    if (!byTable.has(c.table_name)) byTable.set(c.table_name, new Map());
    byTable.get(c.table_name)!.set(c.column_name, c.udt_name);
  }
  // The outbox is the platform's, not an entity: its columns are checked from this table of types.
  const platformTables: Record<string, Record<string, string>> = {
    [outboxTable(spec.service)]: { seq: 'int8', id: 'uuid', type: 'text', payload: 'jsonb', created_at: 'timestamptz', sent_at: 'timestamptz', attempts: 'int4', last_error: 'text', claimed_by: 'text', claimed_until: 'timestamptz', trace_context: 'jsonb' },
  };
  for (const [tableName, columns] of Object.entries(platformTables)) {
    const table = byTable.get(tableName);
    if (!table) {
      problems.push({ kind: 'TABLE_MISSING', message: `table ${DB_SCHEMA}.${tableName} does not exist (the service's first migration creates it)` });
      continue;
    }
    for (const [column, expected] of Object.entries(columns)) {
      const actual = table.get(column);
      if (!actual) problems.push({ kind: 'COLUMN_MISSING', message: `column ${tableName}.${column} does not exist` });
      else if (actual !== expected) problems.push({ kind: 'COLUMN_TYPE_MISMATCH', message: `column ${tableName}.${column} is ${actual} but the code expects ${expected}` });
    }
    problems.push(...undeclared(tableName, table, new Set(Object.keys(columns))));
  }
  for (const meta of ds.entityMetadatas) {
    const table = byTable.get(meta.tableName);
    if (!table) {
      problems.push({
        kind: 'TABLE_MISSING',
        message: `table ${DB_SCHEMA}.${meta.tableName} does not exist (its migration is missing from this build or was never applied)`,
      });
      continue;
    }
    for (const col of meta.columns) {
      const actual = table.get(col.databaseName);
      if (!actual) {
        problems.push({ kind: 'COLUMN_MISSING', message: `column ${meta.tableName}.${col.databaseName} does not exist` });
        continue;
      }
      const expected = expectedUdt(col.type, col.isArray);
      if (expected && expected !== actual) {
        problems.push({
          kind: 'COLUMN_TYPE_MISMATCH',
          message: `column ${meta.tableName}.${col.databaseName} is ${actual} but the code expects ${expected}`,
        });
      }
    }
    problems.push(...undeclared(meta.tableName, table, new Set(meta.columns.map((c) => c.databaseName))));
  }
  return problems;
}

/** undeclared — columns of a table that the code does not declare (added by a migration and forgotten in the entity). */
function undeclared(tableName: string, table: ReadonlyMap<string, string>, declared: ReadonlySet<string>): SchemaProblem[] {
  return [...table.keys()]
    .filter((c) => !declared.has(c))
    .sort()
    .map((c) => ({ kind: 'COLUMN_NOT_DECLARED' as const, message: `column ${tableName}.${c} exists but the code does not declare it (add it to the entity, or drop it in a migration)` }));
}

/** What a recorded migration's SQL leaves behind, as far as the history check reads it: tables and added columns. */
const CREATE_TABLE = new RegExp(`^\\s*CREATE\\s+(?:UNLOGGED\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?${DB_SCHEMA}\\.(\\w+)`, 'i');
const DROP_TABLE = new RegExp(`^\\s*DROP\\s+TABLE\\s+(?:IF\\s+EXISTS\\s+)?${DB_SCHEMA}\\.(\\w+)`, 'i');
const ALTER_TABLE = new RegExp(`^\\s*ALTER\\s+TABLE\\s+(?:IF\\s+EXISTS\\s+)?${DB_SCHEMA}\\.(\\w+)\\s+([\\s\\S]*)$`, 'i');
const ADD_COLUMN = /\bADD\s+COLUMN\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi;
const DROP_COLUMN = /\bDROP\s+COLUMN\s+(?:IF\s+EXISTS\s+)?(\w+)/gi;

/** The SQL statements a migration's `up` runs, recorded instead of run (migrations here are raw SQL text only). */
async function statementsOf(migration: MigrationInterface): Promise<string[]> {
  const sql: string[] = [];
  const recorder = { query: async (text: string) => void sql.push(text) } as unknown as QueryRunner;
  await migration.up(recorder);
  return sql;
}

/**
 * checkHistory — the self-check that runs before pending migrations: the database holds what its recorded history
 * says it does. Each migration the migrations table lists as applied is read (its SQL recorded, not run) for the
 * tables it creates or drops and the columns it adds or drops; every table and column the history leaves must
 * exist. A lying history (the initial migration recorded, its tables missing) is refused here with the list of what
 * does not match, before a pending migration fails against a table that is not there (docs/architecture.md#data).
 * An empty or absent migrations table is a new database: nothing to check.
 */
export async function checkHistory(ds: DataSource, spec: ServiceDatabaseSpec): Promise<SchemaProblem[]> {
  const recorded = await ds
    .query(`SELECT name FROM ${DB_SCHEMA}.${migrationsTable(spec.service)}`)
    .then((rows: { name: string }[]) => new Set(rows.map((r) => r.name)))
    .catch(() => new Set<string>());
  if (recorded.size === 0) return [];
  /** table → the migration that created it and the columns later migrations added (with who added each). */
  const expected = new Map<string, { by: string; columns: Map<string, string> }>();
  for (const m of ds.migrations) {
    const name = m.name ?? m.constructor.name;
    if (!recorded.has(name)) continue;
    for (const sql of await statementsOf(m)) {
      const created = CREATE_TABLE.exec(sql);
      if (created) expected.set(created[1]!, { by: name, columns: new Map() });
      const dropped = DROP_TABLE.exec(sql);
      if (dropped) expected.delete(dropped[1]!);
      const altered = ALTER_TABLE.exec(sql);
      const table = altered ? expected.get(altered[1]!) : undefined;
      if (!altered || !table) continue;
      for (const [, column] of altered[2]!.matchAll(ADD_COLUMN)) table.columns.set(column!, name);
      for (const [, column] of altered[2]!.matchAll(DROP_COLUMN)) table.columns.delete(column!);
    }
  }
  const cols: { table_name: string; column_name: string }[] = await ds.query(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`,
    [DB_SCHEMA],
  );
  const present = new Map<string, Set<string>>();
  for (const c of cols) present.set(c.table_name, (present.get(c.table_name) ?? new Set()).add(c.column_name));
  const problems: SchemaProblem[] = [];
  for (const [tableName, { by, columns }] of expected) {
    const table = present.get(tableName);
    if (!table) {
      problems.push({ kind: 'TABLE_MISSING', message: `table ${DB_SCHEMA}.${tableName} does not exist, though migration ${by} that creates it is recorded as applied` });
      continue;
    }
    for (const [column, addedBy] of columns) {
      if (!table.has(column)) problems.push({ kind: 'COLUMN_MISSING', message: `column ${tableName}.${column} does not exist, though migration ${addedBy} that adds it is recorded as applied` });
    }
  }
  return problems;
}

/** assertHistory — {@link checkHistory}; throws SchemaCheckError on any problem (the start is refused with exit 78). */
export async function assertHistory(ds: DataSource, spec: ServiceDatabaseSpec): Promise<void> {
  const problems = await checkHistory(ds, spec);
  if (problems.length > 0) throw new SchemaCheckError(spec.service, problems, 'its recorded migrations');
}

/** assertSchema — the self-check after migrations; throws SchemaCheckError on any problem. */
export async function assertSchema(ds: DataSource, spec: ServiceDatabaseSpec): Promise<void> {
  const problems = await checkSchema(ds, spec);
  if (problems.length > 0) throw new SchemaCheckError(spec.service, problems);
}
