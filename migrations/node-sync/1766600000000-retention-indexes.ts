import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The retention controller's indexes (docs/retention.md): the oldest deleted nodes and pods are found without a scan. */
export class NodeSyncRetentionIndexes1766600000000 implements MigrationInterface {
  name = 'NodeSyncRetentionIndexes1766600000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX nodes_deleted ON nodes.nodes (deleted_at) WHERE deleted_at IS NOT NULL`);
    await q.query(`CREATE INDEX pods_deleted ON nodes.pods (deleted_at) WHERE deleted_at IS NOT NULL`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX nodes.nodes_deleted`);
    await q.query(`DROP INDEX nodes.pods_deleted`);
  }
}
