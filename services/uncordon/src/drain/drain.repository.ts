import type { DataSource } from 'typeorm';
import type { DrainOperation, DrainOptions, DrainStatus } from '@nodes-manager/contracts';
import type { CloudEvent } from '@nodes-manager/contracts';
import { fenced, STALE_WRITE, type Outbox, type SqlRunner, type WriteFence } from '@nodes-manager/platform';
import type { ScalingEventInput, UncordonRepository } from '../auto-uncordon/uncordon.repository.js';

const COLUMNS = `id, node_name, status, actor, correlation_id, options, progress, state, reason, started_at, updated_at, finished_at`;

/** DrainRecord — what a drain step writes besides the operation: its scaling event and its CloudEvent. */
export interface DrainRecord {
  readonly row: ScalingEventInput;
  readonly event: CloudEvent;
}

export interface DrainRow {
  id: string;
  node: string;
  status: DrainStatus;
  actor: string;
  correlationId: string | null;
  options: DrainOptions;
  progress: Record<string, unknown>;
  /** The drain's state between its steps (`DrainRowState`, as stored); null before its first step. */
  state: Record<string, unknown> | null;
  reason: string | null;
  startedAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

const toRow = (r: Record<string, unknown>): DrainRow => ({
  id: r.id as string,
  node: r.node_name as string,
  status: r.status as DrainStatus,
  actor: r.actor as string,
  correlationId: (r.correlation_id as string | null) ?? null,
  options: r.options as DrainOptions,
  progress: r.progress as Record<string, unknown>,
  state: (r.state as Record<string, unknown> | null) ?? null,
  reason: (r.reason as string | null) ?? null,
  startedAt: r.started_at as Date,
  updatedAt: r.updated_at as Date,
  finishedAt: (r.finished_at as Date | null) ?? null,
});

/** drainView — a drain operation as the API shows it. */
export function drainView(r: DrainRow): DrainOperation {
  const { message, ...progress } = r.progress as { message?: string };
  return {
    id: r.id,
    node: r.node,
    status: r.status,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(typeof message === 'string' ? { message } : {}),
    actor: r.actor,
    options: r.options,
    progress: progress as DrainOperation['progress'],
    startedAt: r.startedAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    ...(r.finishedAt ? { finishedAt: r.finishedAt.toISOString() } : {}),
  };
}

/** DrainRepository — `drain_operations`. One active (pending or running) operation per node, by a partial unique index. */
export class DrainRepository {
  constructor(
    private readonly ds: DataSource,
    /** Where a drain step's `scaling_events` row goes, in the step's own transaction. */
    private readonly events: UncordonRepository,
  ) {}

  /**
   * create — records a pending operation, and what goes with it (`also`: a manual drain's approval record), in one
   * transaction; false, with nothing written, when the node already has an active one (the partial unique index).
   */
  create(r: Omit<DrainRow, 'updatedAt' | 'finishedAt' | 'reason' | 'state'>, also?: (tx: SqlRunner) => Promise<unknown>): Promise<boolean> {
    return this.ds.transaction(async (tx) => {
      if (!(await this.insert(tx, r))) return false;
      if (also) await also(tx);
      return true;
    });
  }

  /**
   * transitionAndRecord — one drain step in one transaction: the operation moves on, and its `scaling_events` row and
   * its `node.drain.*` event are written with it; false, with nothing written, when the operation is no longer
   * active (someone else ended it) or the step's term has passed (`fence`: a deposed leader's step is refused).
   */
  async transitionAndRecord(
    id: string,
    status: DrainStatus,
    progress: Record<string, unknown>,
    now: Date,
    reason: string | null,
    record: DrainRecord,
    outbox: Pick<Outbox, 'add'>,
    fence: WriteFence,
    state?: Record<string, unknown>,
  ): Promise<boolean> {
    const done = await fenced(this.ds, 'drain_operations', async (tx) => {
      if (!(await this.transition(tx, id, status, progress, now, reason, state))) return false;
      await this.events.addEvent(tx, record.row);
      await outbox.add(tx, [record.event]);
      return true;
    }, fence);
    return done !== STALE_WRITE && done;
  }

  /** insert — undefined when the node already has an active drain (the unique index said so). */
  async insert(tx: SqlRunner, r: Omit<DrainRow, 'updatedAt' | 'finishedAt' | 'reason' | 'state'>): Promise<boolean> {
    try {
      await tx.query(
        `INSERT INTO nodes.drain_operations (id, node_name, status, actor, correlation_id, options, progress, started_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
        [r.id, r.node, r.status, r.actor, r.correlationId, JSON.stringify(r.options), JSON.stringify(r.progress), r.startedAt],
      );
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return false;
      throw err;
    }
  }

  async get(id: string): Promise<DrainRow | undefined> {
    const rows: Record<string, unknown>[] = await this.ds.query(`SELECT ${COLUMNS} FROM nodes.drain_operations WHERE id = $1`, [id]);
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  /** latestForNode — the node's active drain, else its most recent one. */
  async latestForNode(node: string): Promise<DrainRow | undefined> {
    const rows: Record<string, unknown>[] = await this.ds.query(
      `SELECT ${COLUMNS} FROM nodes.drain_operations WHERE node_name = $1
        ORDER BY (status IN ('pending', 'running')) DESC, started_at DESC LIMIT 1`,
      [node],
    );
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  /** activeIds — the operations still to be carried on (`pending` or `running`), oldest first. */
  async activeIds(): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.ds.query(`SELECT id FROM nodes.drain_operations WHERE status IN ('pending', 'running') ORDER BY started_at`);
    return rows.map((r) => r.id);
  }

  /** untouchedIds — the operations recorded `pending` that no step has looked at yet (one query on the active index). */
  async untouchedIds(): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.ds.query(
      `SELECT id FROM nodes.drain_operations WHERE status IN ('pending', 'running') AND status = 'pending' AND state IS NULL ORDER BY started_at`,
    );
    return rows.map((r) => r.id);
  }

  /**
   * saveStep — the progress and state one step reached, while the operation is active and the step's term current;
   * false when it is not active, or the term has passed (a deposed leader's step: refused and counted, `fence`).
   */
  async saveStep(id: string, progress: Record<string, unknown>, state: Record<string, unknown>, now: Date, fence: WriteFence): Promise<boolean> {
    const saved = await fenced(this.ds, 'drain_operations', async (tx) => {
      const rows = (await tx.query(
        `UPDATE nodes.drain_operations SET progress = $2, state = $3, updated_at = $4 WHERE id = $1 AND status IN ('pending', 'running') RETURNING id`,
        [id, JSON.stringify(progress), JSON.stringify(state), now],
      )) as unknown[];
      const list = Array.isArray(rows[0]) ? (rows[0] as unknown[]) : rows;
      return list.length > 0;
    }, fence);
    return saved !== STALE_WRITE && saved;
  }

  /** transition — moves an active operation on; false when it is no longer active (someone else ended it). */
  async transition(
    tx: SqlRunner,
    id: string,
    status: DrainStatus,
    progress: Record<string, unknown>,
    now: Date,
    reason: string | null = null,
    state?: Record<string, unknown>,
  ): Promise<boolean> {
    const finished = status === 'completed' || status === 'failed';
    const rows = (await tx.query(
      `UPDATE nodes.drain_operations SET status = $2, progress = $3, reason = $4, updated_at = $5, finished_at = $6, state = COALESCE($7, state)
        WHERE id = $1 AND status IN ('pending', 'running') RETURNING id`,
      [id, status, JSON.stringify(progress), reason, now, finished ? now : null, state ? JSON.stringify(state) : null],
    )) as unknown[];
    // TypeORM's EntityManager.query returns [rows, count] for UPDATE … RETURNING on pg.
    const list = Array.isArray(rows[0]) ? (rows[0] as unknown[]) : rows;
    return list.length > 0;
  }
}
