import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The rebalance ledger: one row per Spot rebalance recommendation seen on a Node object, and what followed. */
export class UncordonRebalanceLedger1764800000000 implements MigrationInterface {
  name = 'UncordonRebalanceLedger1764800000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.rebalance_ledger (
      id uuid PRIMARY KEY,
      node_name text NOT NULL,
      node_uid text NOT NULL,
      instance_id text,
      instance_type text,
      zone text,
      capacity_type text,
      node_pool text,
      seen_at timestamptz NOT NULL,
      seen_signal text NOT NULL,
      seen_time_source text NOT NULL,
      outcome text NOT NULL,
      resolved_at timestamptz,
      uncordoned_at timestamptz,
      recordoned_at timestamptz,
      interrupted_at timestamptz,
      interruption_source text,
      lead_time_ms bigint,
      given_back_ms bigint NOT NULL DEFAULT 0,
      gone_at timestamptz,
      evidence jsonb NOT NULL DEFAULT '[]',
      updated_at timestamptz NOT NULL
    )`);
    // One row per rebalance of a Node object: a replayed view cannot add it twice.
    await q.query(`CREATE UNIQUE INDEX rebalance_ledger_rebalance ON nodes.rebalance_ledger (node_uid, seen_at)`);
    await q.query(`CREATE INDEX rebalance_ledger_seen ON nodes.rebalance_ledger (seen_at DESC, id DESC)`);
    await q.query(`CREATE INDEX rebalance_ledger_open ON nodes.rebalance_ledger (node_uid) WHERE resolved_at IS NULL`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.rebalance_ledger`);
  }
}
