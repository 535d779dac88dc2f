import type { MigrationInterface, QueryRunner } from 'typeorm';

/** karpenter-gateway's approvals of NodePool consolidations (docs/approvals.md). */
export class KarpenterGatewayConsolidationApprovals1764700000000 implements MigrationInterface {
  name = 'KarpenterGatewayConsolidationApprovals1764700000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.consolidation_approvals (
        id text PRIMARY KEY,
        kind text NOT NULL,
        status text NOT NULL,
        subject text NOT NULL,
        reason text NOT NULL,
        plan_id uuid,
        action jsonb NOT NULL,
        requested_by text NOT NULL,
        requested_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        decided_by text,
        decided_at timestamptz,
        comment text,
        executed_at timestamptz,
        results jsonb NOT NULL DEFAULT '[]',
        correlation_id text
      )`);
    await q.query(`CREATE INDEX consolidation_approvals_requested ON nodes.consolidation_approvals (requested_at DESC, id COLLATE "C" DESC)`);
    await q.query(`CREATE INDEX consolidation_approvals_open ON nodes.consolidation_approvals (status, subject) WHERE status IN ('pending', 'approved', 'executing')`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.consolidation_approvals`);
  }
}
