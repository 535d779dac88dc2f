import type { MigrationInterface, QueryRunner } from 'typeorm';

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
    // The service's outbox, and the inbox of an event subscriber that no longer exists (a later migration drops it).
    await q.query(`CREATE TABLE nodes.outbox_karpenter_gateway (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`);
    await q.query(`CREATE INDEX outbox_karpenter_gateway_pending ON nodes.outbox_karpenter_gateway (seq) WHERE sent_at IS NULL`);
    await q.query(`CREATE TABLE nodes.inbox_karpenter_gateway (
        event_id uuid PRIMARY KEY,
        type text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.inbox_karpenter_gateway`);
    await q.query(`DROP TABLE nodes.outbox_karpenter_gateway`);
    await q.query(`DROP TABLE nodes.nodepool_changes`);
  }
}
