import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fleet-wide pause of disruptive actions (docs/pause.md): one row per change — a pause (its reason, scope and
 * `until`) or a resume — with its actor and source (`api`, `configuration`, `expiry`). The pause in force is read
 * from the latest row; the last `configuration` row is the value of DISRUPTION_PAUSE last applied.
 */
export class UncordonDisruptionPause1765400000000 implements MigrationInterface {
  name = 'UncordonDisruptionPause1765400000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE nodes.disruption_pause (
        id bigserial PRIMARY KEY,
        action text NOT NULL CHECK (action IN ('pause', 'resume')),
        reason text NOT NULL,
        scope text CHECK (scope IN ('disruptive', 'all')),
        until timestamptz,
        actor text NOT NULL,
        at timestamptz NOT NULL,
        source text NOT NULL CHECK (source IN ('api', 'configuration', 'expiry')),
        CHECK ((action = 'pause') = (scope IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX disruption_pause_source_idx ON nodes.disruption_pause (source, id DESC)`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.disruption_pause`);
  }
}
