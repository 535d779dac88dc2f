import type { DataSource } from 'typeorm';
import type { CloudEvent, FencingAction, FencingOperation, FencingStatus, FencingStep, FencingVerdict, PartitionShare } from '@nodes-manager/contracts';
import { fenced, STALE_WRITE, type Outbox, type SqlRunner } from '@nodes-manager/platform';
import type { ScalingEventInput, UncordonRepository } from '../auto-uncordon/uncordon.repository.js';

const COLUMNS = `id, node_name, node_uid, instance_id, zone, action, dry_run, status, reason, message, instance_state, pods_deleted,
  actor, steps, evidence, started_at, updated_at, finished_at`;

/** FencingRow — one row of `fencing_operations`. */
export interface FencingRow {
  id: string;
  node: string;
  nodeUid: string;
  instanceId: string;
  zone: string | null;
  action: FencingAction;
  dryRun: boolean;
  status: FencingStatus;
  reason: string | null;
  message: string | null;
  instanceState: string | null;
  podsDeleted: number;
  actor: string;
  steps: FencingStep[];
  evidence: Record<string, unknown>;
  startedAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
}

const toRow = (r: Record<string, unknown>): FencingRow => ({
  id: r.id as string,
  node: r.node_name as string,
  nodeUid: r.node_uid as string,
  instanceId: r.instance_id as string,
  zone: (r.zone as string | null) ?? null,
  action: r.action as FencingAction,
  dryRun: r.dry_run as boolean,
  status: r.status as FencingStatus,
  reason: (r.reason as string | null) ?? null,
  message: (r.message as string | null) ?? null,
  instanceState: (r.instance_state as string | null) ?? null,
  podsDeleted: Number(r.pods_deleted ?? 0),
  actor: r.actor as string,
  steps: (r.steps as FencingStep[]) ?? [],
  evidence: (r.evidence as Record<string, unknown>) ?? {},
  startedAt: r.started_at as Date,
  updatedAt: r.updated_at as Date,
  finishedAt: (r.finished_at as Date | null) ?? null,
});

/** fencingView — a fencing operation as the API shows it. */
export function fencingView(r: FencingRow): FencingOperation {
  return {
    id: r.id,
    node: r.node,
    nodeUid: r.nodeUid,
    instanceId: r.instanceId,
    zone: r.zone,
    action: r.action,
    dryRun: r.dryRun,
    status: r.status,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.message ? { message: r.message } : {}),
    ...(r.instanceState ? { instanceState: r.instanceState } : {}),
    podsDeleted: r.podsDeleted,
    actor: r.actor,
    steps: r.steps,
    startedAt: r.startedAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    ...(r.finishedAt ? { finishedAt: r.finishedAt.toISOString() } : {}),
  };
}

/** rowsOf — TypeORM's EntityManager.query answers UPDATE … RETURNING as [rows, count] on pg, INSERT as rows. */
const rowsOf = (result: unknown[]): unknown[] => (Array.isArray(result[0]) ? (result[0] as unknown[]) : result);

/** FencingRecord — what a fencing step writes besides the operation: its scaling event, and its CloudEvents. */
export interface FencingRecord {
  readonly row: ScalingEventInput;
  readonly events?: readonly CloudEvent[];
}

/** The columns a step writes besides its status and step. */
export type FencingSet = { reason?: string | null; message?: string | null; instanceState?: string | null; podsDeleted?: number; finished?: boolean };

/**
 * FencingRepository — `fencing_operations` (one non-dry-run, non-abandoned fence per node uid, by a partial unique
 * index), `fencing_verdicts` and `fencing_state`. Every step is a guarded transition from the status it expects,
 * so a replica that lost leadership cannot move an operation on behind the new leader's back. It owns the
 * transactions: each method below is one unit of work — the rows, their scaling event and their outbox events
 * committed together (docs/design.md#transactions).
 */
export class FencingRepository {
  constructor(
    private readonly ds: DataSource,
    /** Where a step's `scaling_events` row goes, in the step's own transaction. */
    private readonly events: UncordonRepository,
    private readonly outbox: Outbox,
  ) {}

  /**
   * start — the intent of a fence (or, in dry run, the fence that would have run, with its scaling event), and what
   * goes with it (`also`: the approval it carries out finished), in one transaction. False, with nothing written,
   * when this node object was fenced already (or a fence of it runs).
   */
  async start(
    r: Omit<FencingRow, 'updatedAt' | 'finishedAt' | 'reason' | 'message' | 'instanceState' | 'podsDeleted'>,
    opts: { record?: FencingRecord; also?: (tx: SqlRunner) => Promise<unknown> } = {},
  ): Promise<boolean> {
    const ok = await fenced(this.ds, 'fencing_operations', async (tx) => {
      if (!(await this.insert(tx, r))) return false;
      await this.record(tx, opts.record);
      if (opts.also) await opts.also(tx);
      return true;
    });
    if (ok !== true) return false;
    this.outbox.added();
    return true;
  }

  /** step — a guarded transition in its own transaction, with its record when it has one; false when the operation moved on elsewhere. */
  async step(id: string, from: FencingStatus, to: FencingStatus, step: FencingStep, now: Date, set: FencingSet = {}, record?: FencingRecord): Promise<boolean> {
    const ok = await fenced(this.ds, 'fencing_operations', async (tx) => {
      if (!(await this.transition(tx, id, from, to, step, now, set))) return false;
      await this.record(tx, record);
      return true;
    });
    if (ok !== true) return false;
    if (record?.events?.length) this.outbox.added();
    return true;
  }

  /** saveEvaluation — the verdicts and partition shares of one cycle, with its events (`fencing.suspended`), in one transaction. */
  async saveEvaluation(verdicts: readonly FencingVerdict[], state: { suspended: boolean; overall: PartitionShare; zones: PartitionShare[]; pools: PartitionShare[] }, now: Date, events: readonly CloudEvent[]): Promise<void> {
    const saved = await fenced(this.ds, 'fencing_verdicts', async (tx) => {
      await this.saveVerdicts(tx, verdicts, state, now);
      if (events.length) await this.outbox.add(tx, events);
    });
    if (saved !== STALE_WRITE && events.length) this.outbox.added();
  }

  private async record(tx: SqlRunner, record: FencingRecord | undefined): Promise<void> {
    if (!record) return;
    await this.events.addEvent(tx, record.row);
    if (record.events?.length) await this.outbox.add(tx, record.events);
  }

  /** insert — the intent; false when this node object was fenced already (or a fence of it runs). */
  private async insert(tx: SqlRunner, r: Omit<FencingRow, 'updatedAt' | 'finishedAt' | 'reason' | 'message' | 'instanceState' | 'podsDeleted'>): Promise<boolean> {
    try {
      await tx.query(
        `INSERT INTO nodes.fencing_operations (id, node_name, node_uid, instance_id, zone, action, dry_run, status, actor, steps, evidence, started_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
        [r.id, r.node, r.nodeUid, r.instanceId, r.zone, r.action, r.dryRun, r.status, r.actor, JSON.stringify(r.steps), JSON.stringify(r.evidence), r.startedAt],
      );
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return false;
      throw err;
    }
  }

  async get(id: string): Promise<FencingRow | undefined> {
    const rows: Record<string, unknown>[] = await this.ds.query(`SELECT ${COLUMNS} FROM nodes.fencing_operations WHERE id = $1`, [id]);
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  async active(): Promise<FencingRow[]> {
    const rows: Record<string, unknown>[] = await this.ds.query(
      `SELECT ${COLUMNS} FROM nodes.fencing_operations WHERE status IN ('pending', 'ec2_requested', 'confirmed', 'tainted') ORDER BY started_at`,
    );
    return rows.map(toRow);
  }

  /** observeInstance — what EC2 last said of the instance, while the operation waits at `status` for it to stop. */
  async observeInstance(id: string, status: FencingStatus, instanceState: string, now: Date): Promise<void> {
    await fenced(this.ds, 'fencing_operations', (tx) => tx.query(`UPDATE nodes.fencing_operations SET instance_state = $3, updated_at = $4 WHERE id = $1 AND status = $2`, [id, status, instanceState, now]));
  }

  /** fencedUids — node uids with a real (not dry-run) fence that was not abandoned: these are never fenced again. */
  async fencedUids(uids: readonly string[]): Promise<Set<string>> {
    if (uids.length === 0) return new Set();
    const rows: Array<{ node_uid: string }> = await this.ds.query(
      `SELECT node_uid FROM nodes.fencing_operations WHERE node_uid = ANY($1::text[]) AND NOT dry_run AND status <> 'abandoned'`,
      [uids],
    );
    return new Set(rows.map((r) => r.node_uid));
  }

  /** dryRunUids — node uids whose dry-run fence is recorded, so a dry run records once per node object. */
  async dryRunUids(uids: readonly string[]): Promise<Set<string>> {
    if (uids.length === 0) return new Set();
    const rows: Array<{ node_uid: string }> = await this.ds.query(
      `SELECT DISTINCT node_uid FROM nodes.fencing_operations WHERE node_uid = ANY($1::text[]) AND dry_run`,
      [uids],
    );
    return new Set(rows.map((r) => r.node_uid));
  }

  async recent(limit: number): Promise<FencingRow[]> {
    const rows: Record<string, unknown>[] = await this.ds.query(`SELECT ${COLUMNS} FROM nodes.fencing_operations ORDER BY started_at DESC, id DESC LIMIT $1`, [limit]);
    return rows.map(toRow);
  }

  /**
   * transition — from the status `from` to `to`, appending a step; false when the operation is no longer at `from`
   * (someone else moved it). `set` writes the other columns that change with the step.
   */
  private async transition(
    tx: SqlRunner,
    id: string,
    from: FencingStatus,
    to: FencingStatus,
    step: FencingStep,
    now: Date,
    set: FencingSet = {},
  ): Promise<boolean> {
    const result = (await tx.query(
      `UPDATE nodes.fencing_operations SET status = $3, steps = steps || $4::jsonb, updated_at = $5,
         reason = COALESCE($6, reason), message = COALESCE($7, message), instance_state = COALESCE($8, instance_state),
         pods_deleted = COALESCE($9, pods_deleted), finished_at = CASE WHEN $10 THEN $5 ELSE finished_at END
       WHERE id = $1 AND status = $2 RETURNING id`,
      [id, from, to, JSON.stringify([step]), now, set.reason ?? null, set.message ?? null, set.instanceState ?? null, set.podsDeleted ?? null, set.finished === true],
    )) as unknown[];
    return rowsOf(result).length > 0;
  }

  /** saveVerdicts — the latest verdict of every node that is not Ready; nodes no longer listed lose theirs. */
  private async saveVerdicts(tx: SqlRunner, verdicts: readonly FencingVerdict[], state: { suspended: boolean; overall: PartitionShare; zones: PartitionShare[]; pools: PartitionShare[] }, now: Date): Promise<void> {
    {
      await tx.query(`DELETE FROM nodes.fencing_verdicts WHERE NOT (node_name = ANY($1::text[]))`, [verdicts.map((v) => v.node)]);
      if (verdicts.length > 0) {
        await tx.query(
          `INSERT INTO nodes.fencing_verdicts (node_name, verdict, updated_at)
           SELECT v->>'node', v, $2 FROM jsonb_array_elements($1::jsonb) v
           ON CONFLICT (node_name) DO UPDATE SET verdict = EXCLUDED.verdict, updated_at = EXCLUDED.updated_at`,
          [JSON.stringify(verdicts), now],
        );
      }
      await tx.query(
        `INSERT INTO nodes.fencing_state (id, suspended, shares, evaluated_at) VALUES ('cluster', $1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET suspended = EXCLUDED.suspended, shares = EXCLUDED.shares, evaluated_at = EXCLUDED.evaluated_at`,
        [state.suspended, JSON.stringify({ overall: state.overall, zones: state.zones, pools: state.pools }), now],
      );
    }
  }

  async verdicts(): Promise<FencingVerdict[]> {
    const rows: Array<{ verdict: FencingVerdict }> = await this.ds.query(`SELECT verdict FROM nodes.fencing_verdicts ORDER BY node_name`);
    return rows.map((r) => r.verdict);
  }

  async state(): Promise<{ suspended: boolean; overall: PartitionShare; zones: PartitionShare[]; pools: PartitionShare[]; evaluatedAt: Date } | undefined> {
    const rows: Array<{ suspended: boolean; shares: { overall: PartitionShare; zones: PartitionShare[]; pools?: PartitionShare[] }; evaluated_at: Date }> = await this.ds.query(
      `SELECT suspended, shares, evaluated_at FROM nodes.fencing_state WHERE id = 'cluster'`,
    );
    const r = rows[0];
    return r ? { suspended: r.suspended, overall: r.shares.overall, zones: r.shares.zones, pools: r.shares.pools ?? [], evaluatedAt: r.evaluated_at } : undefined;
  }
}
