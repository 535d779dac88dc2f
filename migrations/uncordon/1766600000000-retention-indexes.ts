import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The retention controller's indexes (docs/retention.md): the oldest finished drains and fences, and pause changes, are found without a scan. */
export class UncordonRetentionIndexes1766600000000 implements MigrationInterface {
  name = 'UncordonRetentionIndexes1766600000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX drain_operations_finished ON nodes.drain_operations (finished_at) WHERE finished_at IS NOT NULL`);
    await q.query(`CREATE INDEX fencing_operations_finished ON nodes.fencing_operations (finished_at) WHERE finished_at IS NOT NULL`);
    await q.query(`CREATE INDEX disruption_pause_at ON nodes.disruption_pause (at)`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX nodes.drain_operations_finished`);
    await q.query(`DROP INDEX nodes.fencing_operations_finished`);
    await q.query(`DROP INDEX nodes.disruption_pause_at`);
  }
}
