import type { MigrationInterface, QueryRunner } from 'typeorm';

/** uncordon's tables: node actions, what we observed of each cordon, and drain operations. */
export class UncordonInitial1764500000000 implements MigrationInterface {
  name = 'UncordonInitial1764500000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.scaling_events (
      id uuid PRIMARY KEY,
      node_name text NOT NULL,
      action text NOT NULL,
      decision text,
      reason text NOT NULL,
      actor text NOT NULL,
      correlation_id text,
      operation_id uuid,
      dry_run boolean NOT NULL DEFAULT false,
      evidence jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE INDEX scaling_events_created ON nodes.scaling_events (created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX scaling_events_node ON nodes.scaling_events (node_name, created_at DESC)`);
    await q.query(`CREATE TABLE nodes.cordon_observations (
      node_name text PRIMARY KEY,
      node_uid text NOT NULL,
      first_seen_cordoned_at timestamptz NOT NULL,
      last_evaluated_at timestamptz,
      verdict jsonb,
      pending_uncordon jsonb,
      updated_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE TABLE nodes.drain_operations (
      id uuid PRIMARY KEY,
      node_name text NOT NULL,
      status text NOT NULL,
      actor text NOT NULL,
      correlation_id text,
      options jsonb NOT NULL,
      progress jsonb NOT NULL DEFAULT '{}',
      reason text,
      started_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      finished_at timestamptz
    )`);
    await q.query(`CREATE UNIQUE INDEX drain_operations_one_active ON nodes.drain_operations (node_name) WHERE status IN ('pending', 'running')`);
    // The service's outbox, and the inbox of an event subscriber that no longer exists (a later migration drops it).
    await q.query(`CREATE TABLE nodes.outbox_uncordon (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`);
    await q.query(`CREATE INDEX outbox_uncordon_pending ON nodes.outbox_uncordon (seq) WHERE sent_at IS NULL`);
    await q.query(`CREATE TABLE nodes.inbox_uncordon (
        event_id uuid PRIMARY KEY,
        type text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.inbox_uncordon`);
    await q.query(`DROP TABLE nodes.outbox_uncordon`);
    await q.query(`DROP TABLE nodes.drain_operations`);
    await q.query(`DROP TABLE nodes.cordon_observations`);
    await q.query(`DROP TABLE nodes.scaling_events`);
  }
}
