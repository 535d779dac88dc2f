import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `nodes.spot_interruptions` — every Spot interruption of a Node object (uid), whether a rebalance recommendation
 * came first or not: the numerator of a pool's interruptions per 1,000 node-hours (docs/rebalance-ledger.md). Filled
 * from the ledger's interrupted rows for the interruptions known today.
 */
export class UncordonSpotInterruptions1766400000001 implements MigrationInterface {
  name = 'UncordonSpotInterruptions1766400000001';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE nodes.spot_interruptions (
        id uuid PRIMARY KEY,
        node_name text NOT NULL,
        node_uid text NOT NULL UNIQUE,
        instance_id text,
        instance_type text,
        zone text,
        capacity_type text,
        node_pool text,
        interrupted_at timestamptz NOT NULL,
        source text NOT NULL,
        rebalance_id uuid,
        evidence jsonb NOT NULL,
        recorded_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX spot_interruptions_at ON nodes.spot_interruptions (interrupted_at)`);
    await q.query(`
      INSERT INTO nodes.spot_interruptions (id, node_name, node_uid, instance_id, instance_type, zone, capacity_type, node_pool, interrupted_at, source, rebalance_id, evidence, recorded_at)
      SELECT DISTINCT ON (node_uid) gen_random_uuid(), node_name, node_uid, instance_id, instance_type, zone, capacity_type, node_pool, interrupted_at,
             interruption_source, id, evidence, updated_at
        FROM nodes.rebalance_ledger WHERE outcome = 'interrupted' AND interrupted_at IS NOT NULL
       ORDER BY node_uid, interrupted_at
      ON CONFLICT (node_uid) DO NOTHING`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.spot_interruptions`);
  }
}
