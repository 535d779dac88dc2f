import type { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxDdl } from '@nodes-manager/platform';

/** karpenter-gateway's table: every NodePool change with who asked for it. */
export class KarpenterGatewayInitial1764500000000 implements MigrationInterface {
  name = 'KarpenterGatewayInitial1764500000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.nodepool_changes (
      id uuid PRIMARY KEY,
      node_pool text NOT NULL,
      action text NOT NULL,
      actor text NOT NULL,
      correlation_id text,
      dry_run boolean NOT NULL DEFAULT false,
      request jsonb NOT NULL DEFAULT '{}',
      before jsonb,
      after jsonb,
      result text NOT NULL,
      created_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX nodepool_changes_pool ON nodes.nodepool_changes (node_pool, created_at DESC)`);
    for (const s of outboxDdl('karpenter-gateway').up) await q.query(s);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const s of outboxDdl('karpenter-gateway').down) await q.query(s);
    await q.query(`DROP TABLE nodes.nodepool_changes`);
  }
}
