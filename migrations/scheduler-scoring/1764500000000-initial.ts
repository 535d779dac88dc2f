import type { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxDdl } from '@nodes-manager/platform';

/** scheduler-scoring's tables: the decision log and consolidation plans. */
export class SchedulerScoringInitial1764500000000 implements MigrationInterface {
  name = 'SchedulerScoringInitial1764500000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.scheduling_decisions (
      id uuid PRIMARY KEY,
      kind text NOT NULL,
      subject text NOT NULL,
      outcome text NOT NULL,
      reason text NOT NULL,
      rationale text NOT NULL,
      score double precision,
      details jsonb NOT NULL DEFAULT '{}',
      actor text NOT NULL,
      correlation_id text,
      created_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX scheduling_decisions_created ON nodes.scheduling_decisions (created_at DESC, id DESC)`);
    // The loop looks up the last decision per (kind, subject) to record only changes.
    await q.query(`CREATE INDEX scheduling_decisions_subject ON nodes.scheduling_decisions (kind, subject, created_at DESC)`);
    await q.query(`CREATE TABLE nodes.consolidation_plans (
      id uuid PRIMARY KEY,
      status text NOT NULL,
      node_pool text,
      plan jsonb NOT NULL,
      hourly_savings_usd double precision NOT NULL,
      monthly_savings_usd double precision NOT NULL,
      dry_run boolean NOT NULL,
      actor text NOT NULL,
      correlation_id text,
      created_at timestamptz NOT NULL,
      executed_at timestamptz
    )`);
    await q.query(`CREATE INDEX consolidation_plans_created ON nodes.consolidation_plans (created_at DESC)`);
    for (const s of outboxDdl('scheduler-scoring').up) await q.query(s);
  }
  async down(q: QueryRunner): Promise<void> {
    for (const s of outboxDdl('scheduler-scoring').down) await q.query(s);
    await q.query(`DROP TABLE nodes.consolidation_plans`);
    await q.query(`DROP TABLE nodes.scheduling_decisions`);
  }
}
