import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gateway replicas' shared rate-limit counts: one fixed window per actor and budget. Unlogged — a count lost in
 * a database crash only restarts a window — and so cheap to write on every limited request.
 */
export class ApiGatewayRateLimits1765400000000 implements MigrationInterface {
  name = 'ApiGatewayRateLimits1765400000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNLOGGED TABLE nodes.rate_limit_windows (
      key text PRIMARY KEY,
      hits integer NOT NULL,
      window_ends timestamptz NOT NULL
    )`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.rate_limit_windows`);
  }
}
