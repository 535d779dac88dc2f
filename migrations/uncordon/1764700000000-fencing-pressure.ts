import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fencing operations (one per node object, ever — dry runs and abandoned attempts aside), the latest fencing
 * verdicts and partition shares, and the last PSI reading of each node that opted in to pressure watching.
 */
export class UncordonFencingPressure1764700000000 implements MigrationInterface {
  name = 'UncordonFencingPressure1764700000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.fencing_operations (
      id uuid PRIMARY KEY,
      node_name text NOT NULL,
      node_uid text NOT NULL,
      instance_id text NOT NULL,
      zone text,
      action text NOT NULL,
      dry_run boolean NOT NULL DEFAULT false,
      status text NOT NULL,
      reason text,
      message text,
      instance_state text,
      pods_deleted integer NOT NULL DEFAULT 0,
      actor text NOT NULL,
      steps jsonb NOT NULL DEFAULT '[]',
      evidence jsonb NOT NULL DEFAULT '{}',
      started_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      finished_at timestamptz
    )`);
    await q.query(`CREATE UNIQUE INDEX fencing_operations_once ON nodes.fencing_operations (node_uid) WHERE NOT dry_run AND status <> 'abandoned'`);
    await q.query(`CREATE INDEX fencing_operations_active ON nodes.fencing_operations (started_at) WHERE status IN ('pending', 'ec2_requested', 'confirmed', 'tainted')`);
    await q.query(`CREATE TABLE nodes.fencing_verdicts (
      node_name text PRIMARY KEY,
      verdict jsonb NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE TABLE nodes.fencing_state (
      id text PRIMARY KEY,
      suspended boolean NOT NULL,
      shares jsonb NOT NULL,
      evaluated_at timestamptz NOT NULL
    )`);
    await q.query(`CREATE TABLE nodes.node_pressure (
      node_name text PRIMARY KEY,
      mode text NOT NULL,
      status text NOT NULL,
      cpu jsonb,
      memory jsonb,
      io jsonb,
      high_samples integer NOT NULL DEFAULT 0,
      sampled_at timestamptz NOT NULL,
      last_relief jsonb
    )`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.node_pressure`);
    await q.query(`DROP TABLE nodes.fencing_state`);
    await q.query(`DROP TABLE nodes.fencing_verdicts`);
    await q.query(`DROP TABLE nodes.fencing_operations`);
  }
}
