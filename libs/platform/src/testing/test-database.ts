import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_PG_ADMIN_URL = process.env['TEST_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_RABBITMQ_URL = process.env['TEST_RABBITMQ_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';

export interface TestDatabase {
  url: string;
  name: string;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** createTestDatabase — a fresh, empty database with a random name on the real server; `drop()` removes it. */
export async function createTestDatabase(prefix = 'nm_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(TEST_PG_ADMIN_URL);
  u.pathname = `/${name}`;
  const url = u.toString();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined); // idle clients die when the database is dropped
  return {
    url,
    name,
    async query<T>(sql: string, params?: unknown[]) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async drop() {
      await pool.end();
      const a = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
