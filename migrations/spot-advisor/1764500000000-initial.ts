import type { MigrationInterface, QueryRunner } from 'typeorm';

/** spot-advisor's tables: Spot price history and on-demand provisioning requests. */
export class SpotAdvisorInitial1764500000000 implements MigrationInterface {
  name = 'SpotAdvisorInitial1764500000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.spot_price_samples (
      id bigserial PRIMARY KEY,
      region text NOT NULL,
      instance_type text NOT NULL,
      zone text NOT NULL,
      product_description text NOT NULL,
      price_usd double precision NOT NULL,
      sampled_at timestamptz NOT NULL,
      fetched_at timestamptz NOT NULL,
      UNIQUE (region, instance_type, zone, product_description, sampled_at)
    )`);
    await q.query(`CREATE TABLE nodes.provisioning_requests (
      id uuid PRIMARY KEY,
      client_token text NOT NULL,
      actor text NOT NULL,
      correlation_id text,
      request jsonb NOT NULL,
      dry_run boolean NOT NULL,
      status text NOT NULL,
      instance_ids text[] NOT NULL DEFAULT '{}',
      result jsonb,
      error jsonb,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
    // One launch per client token; dry runs start nothing, so they are recorded without holding the token.
    await q.query(`CREATE UNIQUE INDEX provisioning_requests_client_token ON nodes.provisioning_requests (client_token) WHERE NOT dry_run`);
    // The service's outbox, and the inbox of an event subscriber that no longer exists (a later migration drops it).
    await q.query(`CREATE TABLE nodes.outbox_spot_advisor (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`);
    await q.query(`CREATE INDEX outbox_spot_advisor_pending ON nodes.outbox_spot_advisor (seq) WHERE sent_at IS NULL`);
    await q.query(`CREATE TABLE nodes.inbox_spot_advisor (
        event_id uuid PRIMARY KEY,
        type text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.inbox_spot_advisor`);
    await q.query(`DROP TABLE nodes.outbox_spot_advisor`);
    await q.query(`DROP TABLE nodes.provisioning_requests`);
    await q.query(`DROP TABLE nodes.spot_price_samples`);
  }
}
