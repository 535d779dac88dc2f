import type { MigrationInterface, QueryRunner } from 'typeorm';

/** uncordon's approvals: of fences (DISRUPTION_APPROVAL for `fence`) and the records of manual drains (docs/approvals.md). */
export class UncordonApprovals1764900000000 implements MigrationInterface {
  name = 'UncordonApprovals1764900000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.fence_approvals (
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
    await q.query(`CREATE INDEX fence_approvals_requested ON nodes.fence_approvals (requested_at DESC, id COLLATE "C" DESC)`);
    await q.query(`CREATE INDEX fence_approvals_open ON nodes.fence_approvals (status, subject) WHERE status IN ('pending', 'approved', 'executing')`);
    await q.query(`CREATE TABLE nodes.drain_approvals (
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
    await q.query(`CREATE INDEX drain_approvals_requested ON nodes.drain_approvals (requested_at DESC, id COLLATE "C" DESC)`);
    await q.query(`CREATE INDEX drain_approvals_open ON nodes.drain_approvals (status, subject) WHERE status IN ('pending', 'approved', 'executing')`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.drain_approvals`);
    await q.query(`DROP TABLE nodes.fence_approvals`);
  }
}
