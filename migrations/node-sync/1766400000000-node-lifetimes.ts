import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `nodes.node_lifetimes` — one row per Node object (uid) with its pool and when it came and went: `nodes.nodes` keeps
 * one row per name, so a re-created node of the same name overwrote its predecessor's times. Node-hours per pool
 * (docs/node-sync.md#node-lifetimes) are summed from here. Filled from `nodes.nodes` for the nodes known today.
 */
export class NodeSyncNodeLifetimes1766400000000 implements MigrationInterface {
  name = 'NodeSyncNodeLifetimes1766400000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE nodes.node_lifetimes (
        uid text PRIMARY KEY,
        name text NOT NULL,
        instance_id text,
        instance_type text,
        zone text,
        capacity_type text,
        node_pool text,
        created_at timestamptz NOT NULL,
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX node_lifetimes_open ON nodes.node_lifetimes (name) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX node_lifetimes_span ON nodes.node_lifetimes (deleted_at, created_at)`);
    await q.query(`
      INSERT INTO nodes.node_lifetimes (uid, name, instance_id, instance_type, zone, capacity_type, node_pool, created_at, deleted_at)
      SELECT uid, name, instance_id, instance_type, zone, capacity_type, node_pool, COALESCE(k8s_created_at, first_seen_at), deleted_at
        FROM nodes.nodes
      ON CONFLICT (uid) DO NOTHING`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.node_lifetimes`);
  }
}
