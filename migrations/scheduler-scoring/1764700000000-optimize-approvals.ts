import type { MigrationInterface, QueryRunner } from 'typeorm';

/** scheduler-scoring's approvals of optimizer drains (docs/approvals.md). */
export class SchedulerScoringOptimizeApprovals1764700000000 implements MigrationInterface {
  name = 'SchedulerScoringOptimizeApprovals1764700000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.optimize_approvals (
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
    await q.query(`CREATE INDEX optimize_approvals_requested ON nodes.optimize_approvals (requested_at DESC, id COLLATE "C" DESC)`);
    await q.query(`CREATE INDEX optimize_approvals_open ON nodes.optimize_approvals (status, subject) WHERE status IN ('pending', 'approved', 'executing')`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.optimize_approvals`);
  }
}
