import type { MigrationInterface, QueryRunner } from 'typeorm';

/** node-sync's tables: the projection of the cluster's nodes and pods. */
export class NodeSyncInitial1764500000000 implements MigrationInterface {
  name = 'NodeSyncInitial1764500000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE nodes.nodes (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL UNIQUE,
      uid text NOT NULL,
      provider_id text,
      instance_id text,
      instance_type text,
      zone text,
      capacity_type text,
      node_pool text,
      ready boolean NOT NULL,
      unschedulable boolean NOT NULL,
      state text NOT NULL,
      taints jsonb NOT NULL DEFAULT '[]',
      labels jsonb NOT NULL DEFAULT '{}',
      annotations jsonb NOT NULL DEFAULT '{}',
      conditions jsonb NOT NULL DEFAULT '[]',
      alloc_cpu_milli bigint NOT NULL DEFAULT 0,
      alloc_memory_bytes bigint NOT NULL DEFAULT 0,
      alloc_gpu integer NOT NULL DEFAULT 0,
      alloc_pods integer NOT NULL DEFAULT 0,
      req_cpu_milli bigint NOT NULL DEFAULT 0,
      req_memory_bytes bigint NOT NULL DEFAULT 0,
      req_gpu integer NOT NULL DEFAULT 0,
      pod_count integer NOT NULL DEFAULT 0,
      content_hash text NOT NULL,
      resource_version text,
      k8s_created_at timestamptz,
      first_seen_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL,
      changed_at timestamptz NOT NULL,
      deleted_at timestamptz
    )`);
    await q.query(`CREATE INDEX nodes_state ON nodes.nodes (state) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX nodes_zone ON nodes.nodes (zone)`);
    await q.query(`CREATE TABLE nodes.pods (
      uid text PRIMARY KEY,
      namespace text NOT NULL,
      name text NOT NULL,
      node_name text,
      phase text,
      owner_kind text,
      owner_name text,
      workload_class text,
      qos text,
      cpu_milli bigint NOT NULL DEFAULT 0,
      memory_bytes bigint NOT NULL DEFAULT 0,
      gpu integer NOT NULL DEFAULT 0,
      has_pvc boolean NOT NULL DEFAULT false,
      has_local_storage boolean NOT NULL DEFAULT false,
      mirror boolean NOT NULL DEFAULT false,
      daemonset boolean NOT NULL DEFAULT false,
      labels jsonb NOT NULL DEFAULT '{}',
      annotations jsonb NOT NULL DEFAULT '{}',
      content_hash text NOT NULL,
      k8s_created_at timestamptz,
      first_seen_at timestamptz NOT NULL,
      changed_at timestamptz NOT NULL,
      deleted_at timestamptz
    )`);
    await q.query(`CREATE INDEX pods_node ON nodes.pods (node_name) WHERE deleted_at IS NULL`);
    // The service's outbox, and the inbox of an event subscriber that no longer exists (a later migration drops it).
    await q.query(`CREATE TABLE nodes.outbox_node_sync (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`);
    await q.query(`CREATE INDEX outbox_node_sync_pending ON nodes.outbox_node_sync (seq) WHERE sent_at IS NULL`);
    await q.query(`CREATE TABLE nodes.inbox_node_sync (
        event_id uuid PRIMARY KEY,
        type text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now()
      )`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE nodes.inbox_node_sync`);
    await q.query(`DROP TABLE nodes.outbox_node_sync`);
    await q.query(`DROP TABLE nodes.pods`);
    await q.query(`DROP TABLE nodes.nodes`);
  }
}
