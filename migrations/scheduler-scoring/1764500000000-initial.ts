import type { MigrationInterface, QueryRunner } from 'typeorm';

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
    // The service's outbox, and the inbox of an event subscriber that no longer exists (a later migration drops it).
    await q.query(`CREATE TABLE nodes.outbox_scheduler_scoring (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`);
    await q.query(`CREATE INDEX outbox_scheduler_scoring_pending ON nodes.outbox_scheduler_scoring (seq) WHERE sent_at IS NULL`);
    await q.query(`CREATE TABLE nodes.inbox_scheduler_scoring (
        event_id uuid PRIMARY KEY,
        type text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.inbox_scheduler_scoring`);
    await q.query(`DROP TABLE nodes.outbox_scheduler_scoring`);
    await q.query(`DROP TABLE nodes.consolidation_plans`);
    await q.query(`DROP TABLE nodes.scheduling_decisions`);
  }
}
