import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DataSource, EntityManager } from 'typeorm';
import { InvalidCursorError, LIST_CURSORS, type NodeDetail, type NodesListQuery, type NodeView, type Page, type PoolHoursBucket, type PoolNodeHours } from '@nodes-manager/contracts';
import type { CloudEvent } from '@nodes-manager/contracts';
import { CodedError, fenced, STALE_WRITE, type Outbox, type StaleWrite } from '@nodes-manager/platform';
import type { NodeState, NodeTaintRow } from '../../domain/project-node.js';
import type { LivePod, NodeWrite, StoredNode } from '../../domain/plan-sync.js';
import { NODE_COPY_COLUMNS, nodeCopyLine } from './node-copy.mapper.js';
import { POD_COPY_COLUMNS } from './pod-copy.mapper.js';

/** Pod uids per removal statement (one array parameter each). */
const POD_CHUNK = 20_000;

/**
 * StoreBatches — how much the repository encodes or reads at once: COPY lines per chunk of the stream (`copy`), stored
 * pod hashes per query (`read`). Memory and time, not correctness: any sizes write the same rows in the same
 * transaction and read the same state. (The outbox bounds its own statements: Outbox's `statementEvents`.)
 */
export interface StoreBatches {
  copy: number;
  read: number;
}
export const STORE_BATCHES: StoreBatches = { copy: 2_000, read: 50_000 };

export interface StoredState {
  nodes: Map<string, StoredNode>;
  pods: Map<string, string>;
}

export interface WriteResult {
  nodeRows: number;
  podRows: number;
}

const NODE_COLUMNS = `id, name, uid, provider_id, instance_id, instance_type, zone, capacity_type, node_pool, state, ready,
  unschedulable, taints, labels, conditions, alloc_cpu_milli, alloc_memory_bytes, alloc_gpu, alloc_pods, req_cpu_milli,
  req_memory_bytes, req_gpu, pod_count, k8s_created_at, first_seen_at, last_seen_at, changed_at, deleted_at`;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function nodeView(r: any): NodeView {
  return {
    id: r.id,
    name: r.name,
    uid: r.uid,
    providerId: r.provider_id,
    instanceId: r.instance_id,
    instanceType: r.instance_type,
    zone: r.zone,
    capacityType: r.capacity_type,
    nodePool: r.node_pool,
    state: r.state,
    ready: r.ready,
    unschedulable: r.unschedulable,
    taints: r.taints,
    labels: r.labels,
    conditions: r.conditions,
    allocatable: { cpuMilli: Number(r.alloc_cpu_milli), memoryBytes: Number(r.alloc_memory_bytes), gpu: r.alloc_gpu, pods: r.alloc_pods },
    requested: { cpuMilli: Number(r.req_cpu_milli), memoryBytes: Number(r.req_memory_bytes), gpu: r.req_gpu },
    podCount: r.pod_count,
    createdAt: iso(r.k8s_created_at),
    firstSeenAt: iso(r.first_seen_at)!,
    lastSeenAt: iso(r.last_seen_at)!,
    changedAt: iso(r.changed_at)!,
    deletedAt: iso(r.deleted_at),
  };
}

/** Cursor — the last row of a page: the sort it was issued for, its sort key and name (the tie-breaker). */
interface Cursor {
  s: string;
  k: string | null;
  n: string;
}
const NODES_CURSOR = LIST_CURSORS['nodes'];
const encodeNodeCursor = (c: Cursor): string => NODES_CURSOR.encode([c.s as NodesListQuery['sort'], c.k, c.n]);
/** decodeNodeCursor — a cursor issued for `sort`: by created time it carries a time, by name none. */
function decodeNodeCursor(cursor: string, sort: string): Cursor {
  const [s, k, n] = NODES_CURSOR.decode(cursor);
  if (s !== sort || (k === null) !== !sort.endsWith('created')) throw new InvalidCursorError('is not valid for this query: it was issued for another sort');
  return { s, k, n };
}

const EPOCH = '1970-01-01T00:00:00.000Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * NodeSyncRepository — `nodes.nodes` and `nodes.pods`. Every write is set-based: the rows streamed by COPY into a
 * staging table, then one merge per table with an `IS DISTINCT FROM` guard on the content hash, so rows that did not
 * change are not touched (and counted as such: the result is the number of rows Postgres actually wrote). What is
 * encoded or read at once is bounded by {@link StoreBatches}, never by the cluster's size.
 */
type Row = Record<string, unknown>;

export class NodeSyncRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly batches: StoreBatches = STORE_BATCHES,
  ) {}

  async loadStored(): Promise<StoredState> {
    const nodes = new Map<string, StoredNode>();
    const rows: any[] = await this.ds.query(
      `SELECT name, uid, instance_id, content_hash, deleted_at IS NOT NULL AS deleted, ready, unschedulable, state, taints,
              alloc_cpu_milli, alloc_memory_bytes, alloc_gpu, alloc_pods
         FROM nodes.nodes`,
    );
    for (const r of rows) {
      nodes.set(r.name, {
        hash: r.content_hash,
        deleted: r.deleted,
        uid: r.uid,
        instanceId: r.instance_id,
        ready: r.ready,
        unschedulable: r.unschedulable,
        state: r.state as NodeState,
        taints: r.taints as NodeTaintRow[],
        allocatable: { cpuMilli: Number(r.alloc_cpu_milli), memoryBytes: Number(r.alloc_memory_bytes), gpu: r.alloc_gpu, pods: r.alloc_pods },
      });
    }
    return { nodes, pods: await this.loadStoredPods() };
  }

  /**
   * loadStoredPods — uid → content hash of the live pod rows, fetched `batches.read` at a time from a cursor (one
   * snapshot, one sequential scan): a million rows never arrive as one result of a million objects.
   */
  private loadStoredPods(): Promise<Map<string, string>> {
    return this.ds.transaction(async (tx) => {
      const pods = new Map<string, string>();
      await tx.query(`DECLARE stored_pods NO SCROLL CURSOR FOR SELECT uid, content_hash FROM nodes.pods WHERE deleted_at IS NULL`);
      for (;;) {
        const rows: { uid: string; content_hash: string }[] = await tx.query(`FETCH ${Math.max(1, Math.floor(this.batches.read))} FROM stored_pods`);
        for (const r of rows) pods.set(r.uid, r.content_hash);
        if (rows.length < this.batches.read) return pods;
      }
    });
  }

  /**
   * write — the cycle's changes and their events in ONE transaction; `events` is given the rows written so that the
   * cycle summary can carry them. Returns the rows Postgres wrote.
   */
  async write(
    changes: { nodeWrites: NodeWrite[]; nodeRemovals: string[]; podWrites: LivePod[]; podRemovals: string[] },
    events: (written: WriteResult) => CloudEvent[],
    outbox: Outbox,
    now: Date,
  ): Promise<WriteResult | StaleWrite> {
    // Fenced by the leader's term: a deposed leader's cycle writes nothing (docs/leader-election.md#terms).
    return fenced(this.ds, 'nodes', async (tx) => {
      let nodeRows = 0;
      let podRows = 0;
      if (changes.nodeWrites.length) nodeRows += await this.upsertNodes(tx, changes.nodeWrites, now);
      if (changes.nodeRemovals.length) {
        nodeRows += await affected(
          tx,
          `UPDATE nodes.nodes SET state = 'Deleted', deleted_at = $2, changed_at = $2
            WHERE name = ANY($1::text[]) AND deleted_at IS NULL`,
          [changes.nodeRemovals, now],
        );
        await tx.query(`UPDATE nodes.node_lifetimes SET deleted_at = $2 WHERE name = ANY($1::text[]) AND deleted_at IS NULL`, [changes.nodeRemovals, now]);
      }
      if (changes.podWrites.length) podRows += await this.copyPods(tx, changes.podWrites, now);
      for (let i = 0; i < changes.podRemovals.length; i += POD_CHUNK) {
        podRows += await affected(
          tx,
          `UPDATE nodes.pods SET deleted_at = $2, changed_at = $2 WHERE uid = ANY($1::text[]) AND deleted_at IS NULL`,
          [changes.podRemovals.slice(i, i + POD_CHUNK), now],
        );
      }
      const evs = events({ nodeRows, podRows });
      // The outbox writes them in bounded statements: the first cycle's 100,000 `node.added` are never encoded at once.
      await outbox.add(tx, evs);
      return { nodeRows, podRows };
    });
  }

  /**
   * upsertNodes — the node rows by `COPY … FROM STDIN` into a staging table dropped at commit (the lines built
   * `batches.copy` at a time as the stream asks for them, so a first cycle of 100,000 nodes never holds all their
   * rows encoded at once), then ONE merge into `nodes.nodes` that writes only rows whose hash differs (or that were
   * marked deleted). Returns the rows Postgres wrote.
   */
  private async upsertNodes(tx: EntityManager, writes: NodeWrite[], now: Date): Promise<number> {
    await tx.queryRunner!.query(
      `CREATE TEMP TABLE nodes_stage (name text, uid text, provider_id text, instance_id text, instance_type text, zone text,
          capacity_type text, node_pool text, ready boolean, unschedulable boolean, state text, taints jsonb, labels jsonb,
          annotations jsonb, conditions jsonb, alloc_cpu_milli bigint, alloc_memory_bytes bigint, alloc_gpu integer,
          alloc_pods integer, req_cpu_milli bigint, req_memory_bytes bigint, req_gpu integer, pod_count integer,
          content_hash text, resource_version text, k8s_created_at timestamptz) ON COMMIT DROP`,
    );
    await copyInto(tx, 'nodes_stage', NODE_COPY_COLUMNS, copyChunks(writes, this.batches.copy, nodeCopyLine));
    await this.recordLifetimes(tx, now);
    return affected(
      tx,
      `INSERT INTO nodes.nodes AS n (${NODE_COPY_COLUMNS.join(', ')}, first_seen_at, last_seen_at, changed_at, deleted_at)
       SELECT ${NODE_COPY_COLUMNS.map((c) => `s.${c}`).join(', ')}, $1::timestamptz, $1::timestamptz, $1::timestamptz, NULL::timestamptz
         FROM nodes_stage s
       ON CONFLICT (name) DO UPDATE SET
         uid = EXCLUDED.uid, provider_id = EXCLUDED.provider_id, instance_id = EXCLUDED.instance_id,
         instance_type = EXCLUDED.instance_type, zone = EXCLUDED.zone, capacity_type = EXCLUDED.capacity_type,
         node_pool = EXCLUDED.node_pool, ready = EXCLUDED.ready, unschedulable = EXCLUDED.unschedulable,
         state = EXCLUDED.state, taints = EXCLUDED.taints, labels = EXCLUDED.labels, annotations = EXCLUDED.annotations,
         conditions = EXCLUDED.conditions, alloc_cpu_milli = EXCLUDED.alloc_cpu_milli,
         alloc_memory_bytes = EXCLUDED.alloc_memory_bytes, alloc_gpu = EXCLUDED.alloc_gpu, alloc_pods = EXCLUDED.alloc_pods,
         req_cpu_milli = EXCLUDED.req_cpu_milli, req_memory_bytes = EXCLUDED.req_memory_bytes, req_gpu = EXCLUDED.req_gpu,
         pod_count = EXCLUDED.pod_count, content_hash = EXCLUDED.content_hash, resource_version = EXCLUDED.resource_version,
         k8s_created_at = EXCLUDED.k8s_created_at, last_seen_at = EXCLUDED.last_seen_at, changed_at = EXCLUDED.changed_at,
         deleted_at = NULL
       WHERE n.content_hash IS DISTINCT FROM EXCLUDED.content_hash OR n.deleted_at IS NOT NULL`,
      [now],
    );
  }

  /**
   * recordLifetimes — from the staged node rows: a Node object (uid) seen for the first time starts its lifetime at
   * its creationTimestamp (our first sight without one); a lifetime still open under the same name with another uid
   * ends now (the node was re-created between two cycles); a pool label that changed is taken.
   */
  private async recordLifetimes(tx: EntityManager, now: Date): Promise<void> {
    await tx.query(
      `UPDATE nodes.node_lifetimes l SET deleted_at = $1
         FROM nodes_stage s WHERE l.name = s.name AND l.uid <> s.uid AND l.deleted_at IS NULL`,
      [now],
    );
    await tx.query(
      `INSERT INTO nodes.node_lifetimes AS l (uid, name, instance_id, instance_type, zone, capacity_type, node_pool, created_at)
       SELECT s.uid, s.name, s.instance_id, s.instance_type, s.zone, s.capacity_type, s.node_pool, COALESCE(s.k8s_created_at, $1) FROM nodes_stage s
       ON CONFLICT (uid) DO UPDATE SET instance_id = EXCLUDED.instance_id, instance_type = EXCLUDED.instance_type, zone = EXCLUDED.zone,
         capacity_type = EXCLUDED.capacity_type, node_pool = EXCLUDED.node_pool
       WHERE (l.instance_id, l.instance_type, l.zone, l.capacity_type, l.node_pool)
         IS DISTINCT FROM (EXCLUDED.instance_id, EXCLUDED.instance_type, EXCLUDED.zone, EXCLUDED.capacity_type, EXCLUDED.node_pool)`,
      [now],
    );
  }

  /**
   * nodeHours — node-hours per pool (instance type × zone × capacity type) over [from, to): each lifetime's overlap
   * with the window, a node still there counting up to `to`. With `hourly`, also per clock hour (the hours' starts).
   */
  async nodeHours(from: Date, to: Date, o: { capacityType?: string; hourly?: boolean } = {}): Promise<PoolNodeHours[]> {
    const rows: Row[] = await this.ds.query(
      `SELECT instance_type, zone, capacity_type, count(*)::int AS nodes,
              sum(EXTRACT(EPOCH FROM (LEAST(COALESCE(deleted_at, $2), $2) - GREATEST(created_at, $1)))) / 3600 AS node_hours
         FROM nodes.node_lifetimes
        WHERE created_at < $2 AND (deleted_at IS NULL OR deleted_at > $1) AND ($3::text IS NULL OR capacity_type = $3)
        GROUP BY instance_type, zone, capacity_type
        ORDER BY instance_type, zone, capacity_type`,
      [from, to, o.capacityType ?? null],
    );
    const pools: PoolNodeHours[] = rows.map((r) => ({
      instanceType: (r['instance_type'] as string | null) ?? null,
      zone: (r['zone'] as string | null) ?? null,
      capacityType: (r['capacity_type'] as string | null) ?? null,
      nodes: Number(r['nodes']),
      nodeHours: Number(r['node_hours']),
    }));
    if (!o.hourly) return pools;
    const hours: Row[] = await this.ds.query(
      `SELECT l.instance_type, l.zone, l.capacity_type, h.start,
              sum(EXTRACT(EPOCH FROM (LEAST(COALESCE(l.deleted_at, $2), $2, h.start + interval '1 hour') - GREATEST(l.created_at, $1, h.start)))) / 3600 AS node_hours
         FROM nodes.node_lifetimes l
         JOIN LATERAL generate_series(date_trunc('hour', GREATEST(l.created_at, $1)), LEAST(COALESCE(l.deleted_at, $2), $2) - interval '1 microsecond', interval '1 hour') AS h(start) ON true
        WHERE l.created_at < $2 AND (l.deleted_at IS NULL OR l.deleted_at > $1) AND ($3::text IS NULL OR l.capacity_type = $3)
        GROUP BY l.instance_type, l.zone, l.capacity_type, h.start
        ORDER BY h.start`,
      [from, to, o.capacityType ?? null],
    );
    const key = (t: unknown, z: unknown, c: unknown) => `${t ?? ''}|${z ?? ''}|${c ?? ''}`;
    const buckets = new Map<string, PoolHoursBucket[]>();
    for (const h of hours) {
      const k = key(h['instance_type'], h['zone'], h['capacity_type']);
      buckets.set(k, [...(buckets.get(k) ?? []), { from: (h['start'] as Date).toISOString(), nodeHours: Number(h['node_hours']) }]);
    }
    return pools.map((p) => ({ ...p, hours: buckets.get(key(p.instanceType, p.zone, p.capacityType)) ?? [] }));
  }

  /**
   * copyPods — the pod rows by `COPY … FROM STDIN` (the cached COPY lines streamed as they are, with their hashes)
   * into a staging table dropped at commit, then ONE merge into `nodes.pods` that writes only rows whose hash differs
   * (or that were marked deleted). Returns the rows Postgres wrote.
   */
  private async copyPods(tx: EntityManager, writes: LivePod[], now: Date): Promise<number> {
    const runner = tx.queryRunner!;
    await runner.query(
      `CREATE TEMP TABLE pods_stage (uid text, namespace text, name text, node_name text, phase text, owner_kind text,
          owner_name text, workload_class text, qos text, cpu_milli bigint, memory_bytes bigint, gpu integer, has_pvc boolean,
          has_local_storage boolean, mirror boolean, daemonset boolean, labels jsonb, annotations jsonb,
          k8s_created_at timestamptz, content_hash text) ON COMMIT DROP`,
    );
    await copyInto(tx, 'pods_stage', [...POD_COPY_COLUMNS, 'content_hash'], copyChunks(writes, this.batches.copy, (p) => `${p.row}\t${p.hash}`));
    return affected(
      tx,
      `INSERT INTO nodes.pods AS p (uid, namespace, name, node_name, phase, owner_kind, owner_name, workload_class, qos, cpu_milli,
          memory_bytes, gpu, has_pvc, has_local_storage, mirror, daemonset, labels, annotations, content_hash, k8s_created_at,
          first_seen_at, changed_at, deleted_at)
       SELECT s.uid, s.namespace, s.name, s.node_name, s.phase, s.owner_kind, s.owner_name, s.workload_class, s.qos, s.cpu_milli,
              s.memory_bytes, s.gpu, s.has_pvc, s.has_local_storage, s.mirror, s.daemonset, s.labels, s.annotations, s.content_hash,
              s.k8s_created_at, $1::timestamptz, $1::timestamptz, NULL::timestamptz
         FROM pods_stage s
       ON CONFLICT (uid) DO UPDATE SET
         namespace = EXCLUDED.namespace, name = EXCLUDED.name, node_name = EXCLUDED.node_name, phase = EXCLUDED.phase,
         owner_kind = EXCLUDED.owner_kind, owner_name = EXCLUDED.owner_name, workload_class = EXCLUDED.workload_class,
         qos = EXCLUDED.qos, cpu_milli = EXCLUDED.cpu_milli, memory_bytes = EXCLUDED.memory_bytes, gpu = EXCLUDED.gpu,
         has_pvc = EXCLUDED.has_pvc, has_local_storage = EXCLUDED.has_local_storage, mirror = EXCLUDED.mirror,
         daemonset = EXCLUDED.daemonset, labels = EXCLUDED.labels, annotations = EXCLUDED.annotations,
         content_hash = EXCLUDED.content_hash, k8s_created_at = EXCLUDED.k8s_created_at, changed_at = EXCLUDED.changed_at,
         deleted_at = NULL
       WHERE p.content_hash IS DISTINCT FROM EXCLUDED.content_hash OR p.deleted_at IS NOT NULL`,
      [now],
    );
  }

  /** list — keyset pagination over (sort key, name); filters as in {@link NodesListQuery}. */
  async list(q: NodesListQuery): Promise<Page<NodeView>> {
    const where: string[] = [];
    const params: unknown[] = [];
    const p = (v: unknown): string => {
      params.push(v);
      return `$${params.length}`;
    };
    if (q.state) where.push(`state = ${p(q.state)}`);
    if (q.zone) where.push(`zone = ${p(q.zone)}`);
    if (q.instanceType) where.push(`instance_type = ${p(q.instanceType)}`);
    if (q.capacityType) where.push(`capacity_type = ${p(q.capacityType)}`);
    if (q.nodePool) where.push(`node_pool = ${p(q.nodePool)}`);
    // Removed nodes are kept with state Deleted: asking for that state shows them.
    if (!q.includeDeleted && q.state !== 'Deleted') where.push('deleted_at IS NULL');
    const desc = q.sort.startsWith('-');
    const byCreated = q.sort.endsWith('created');
    const key = byCreated ? `COALESCE(k8s_created_at, '${EPOCH}'::timestamptz)` : 'name';
    if (q.cursor) {
      const c = decodeNodeCursor(q.cursor, q.sort);
      const op = desc ? '<' : '>';
      where.push(byCreated ? `(${key}, name) ${op} (${p(c.k ?? EPOCH)}::timestamptz, ${p(c.n)})` : `name ${op} ${p(c.n)}`);
    }
    const dir = desc ? 'DESC' : 'ASC';
    const order = byCreated ? `${key} ${dir}, name ${dir}` : `name ${dir}`;
    const rows: any[] = await this.ds.query(
      `SELECT ${NODE_COLUMNS} FROM nodes.nodes ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY ${order} LIMIT ${p(q.limit + 1)}`,
      params,
    );
    const items = rows.slice(0, q.limit).map(nodeView);
    const page: Page<NodeView> = { items };
    if (rows.length > q.limit) {
      const last = items[items.length - 1]!;
      page.nextCursor = encodeNodeCursor({ s: q.sort, k: byCreated ? (last.createdAt ?? EPOCH) : null, n: last.name });
    }
    return page;
  }

  /** get — one node by name or id, with the pods bound to it that have not finished. */
  async get(idOrName: string): Promise<NodeDetail | undefined> {
    const byId = UUID.test(idOrName);
    const [row]: any[] = await this.ds.query(
      `SELECT ${NODE_COLUMNS}, annotations FROM nodes.nodes WHERE ${byId ? 'id = $1::uuid OR name = $1::text' : 'name = $1'}`,
      [idOrName],
    );
    if (!row) return undefined;
    const pods: any[] = await this.ds.query(
      `SELECT uid, namespace, name, phase, owner_kind, owner_name, workload_class, qos, cpu_milli, memory_bytes, gpu,
              has_pvc, has_local_storage, mirror, daemonset, k8s_created_at
         FROM nodes.pods
        WHERE node_name = $1 AND deleted_at IS NULL AND (phase IS NULL OR phase NOT IN ('Succeeded', 'Failed'))
        ORDER BY namespace, name`,
      [row.name],
    );
    return {
      ...nodeView(row),
      annotations: row.annotations,
      pods: pods.map((r) => ({
        uid: r.uid,
        namespace: r.namespace,
        name: r.name,
        phase: r.phase,
        ownerKind: r.owner_kind,
        ownerName: r.owner_name,
        workloadClass: r.workload_class,
        qos: r.qos,
        requests: { cpuMilli: Number(r.cpu_milli), memoryBytes: Number(r.memory_bytes), gpu: r.gpu },
        hasPvc: r.has_pvc,
        hasLocalStorage: r.has_local_storage,
        mirror: r.mirror,
        daemonset: r.daemonset,
        createdAt: iso(r.k8s_created_at),
      })),
    };
  }
}

/** copyChunks — the COPY stream of `items`' lines, `batch` lines to a chunk, each chunk built when the stream asks for it. */
function* copyChunks<T>(items: readonly T[], batch: number, line: (item: T) => string): Generator<string> {
  for (let i = 0; i < items.length; i += batch) {
    let chunk = '';
    const end = Math.min(items.length, i + batch);
    for (let j = i; j < end; j++) chunk += `${line(items[j]!)}\n`;
    yield chunk;
  }
}

/** copyInto — streams the chunks into `table` by `COPY … FROM STDIN` on the transaction's connection, with backpressure. */
async function copyInto(tx: EntityManager, table: string, columns: readonly string[], chunks: Iterable<string>): Promise<void> {
  const client = (tx.queryRunner as unknown as { databaseConnection: PoolClient }).databaseConnection;
  await pipeline(Readable.from(chunks, { objectMode: false }), client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`)));
}

/** affected — runs a statement in the transaction and returns the number of rows it wrote. */
async function affected(tx: EntityManager, sql: string, params: unknown[]): Promise<number> {
  const res = (await tx.queryRunner!.query(sql, params, true)) as { affected?: number };
  return res.affected ?? 0;
}
