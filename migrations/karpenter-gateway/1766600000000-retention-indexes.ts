import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The retention controller's index (docs/retention.md): the oldest NodePool changes are found without a scan. */
export class KarpenterGatewayRetentionIndexes1766600000000 implements MigrationInterface {
  name = 'KarpenterGatewayRetentionIndexes1766600000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX nodepool_changes_created ON nodes.nodepool_changes (created_at)`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX nodes.nodepool_changes_created`);
  }
}
