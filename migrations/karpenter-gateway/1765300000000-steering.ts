import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Steering (docs/steering.md): each Spot pool's health and its transitions, what steering wrote to each NodePool (the
 * owner's requirements kept for the exact undo), the plans of each pass, and the approvals of kind `steer`.
 */
export class KarpenterGatewaySteering1765300000000 implements MigrationInterface {
  name = 'KarpenterGatewaySteering1765300000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.pool_health (
        pool text PRIMARY KEY,
        instance_type text NOT NULL,
        zone text NOT NULL,
        state text NOT NULL CHECK (state IN ('healthy', 'watch', 'avoid')),
        since timestamptz NOT NULL,
        basis_from timestamptz,
        reason text NOT NULL,
        sentence text NOT NULL,
        evidence jsonb NOT NULL,
        restore_at timestamptz,
        decided_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE TABLE nodes.pool_health_transitions (
        id uuid PRIMARY KEY,
        pool text NOT NULL,
        from_state text,
        to_state text NOT NULL,
        at timestamptz NOT NULL,
        reason text NOT NULL,
        sentence text NOT NULL,
        evidence jsonb NOT NULL
      )`);
    await q.query(`CREATE INDEX pool_health_transitions_at ON nodes.pool_health_transitions (at DESC, id)`);
    await q.query(`CREATE INDEX pool_health_transitions_pool ON nodes.pool_health_transitions (pool, at DESC)`);
    await q.query(`CREATE TABLE nodes.nodepool_steering (
        node_pool text PRIMARY KEY,
        original jsonb NOT NULL,
        added jsonb NOT NULL,
        applied jsonb NOT NULL,
        fallback_since timestamptz,
        replace_nodes jsonb NOT NULL DEFAULT '[]',
        resource_version text,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE TABLE nodes.steering_plans (
        node_pool text PRIMARY KEY,
        mode text NOT NULL,
        plan jsonb NOT NULL,
        status text NOT NULL,
        detail text NOT NULL,
        planned_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE TABLE nodes.steer_approvals (
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
    await q.query(`CREATE INDEX steer_approvals_requested ON nodes.steer_approvals (requested_at DESC, id COLLATE "C" DESC)`);
    await q.query(`CREATE INDEX steer_approvals_open ON nodes.steer_approvals (status, subject) WHERE status IN ('pending', 'approved', 'executing')`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.steer_approvals`);
    await q.query(`DROP TABLE nodes.steering_plans`);
    await q.query(`DROP TABLE nodes.nodepool_steering`);
    await q.query(`DROP TABLE nodes.pool_health_transitions`);
    await q.query(`DROP TABLE nodes.pool_health`);
  }
}
