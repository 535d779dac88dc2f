import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { LIST_CURSORS } from '@nodes-manager/contracts';

const EVENTS_CURSOR = LIST_CURSORS['events'];
import type { CloudEvent } from '@nodes-manager/contracts';
import { fenced, type Outbox, type SqlRunner } from '@nodes-manager/platform';

/** ObservationRow — `cordon_observations`: the first time we saw a node's current cordon, and its latest verdict. */
export interface ObservationRow {
  nodeName: string;
  nodeUid: string;
  firstSeenCordonedAt: Date;
  verdict: Record<string, unknown> | null;
}

/** ScalingEventInput — one row of `scaling_events`. */
export interface ScalingEventInput {
  nodeName: string;
  action: string;
  decision?: string | null;
  reason: string;
  actor: string;
  correlationId?: string | null;
  operationId?: string | null;
  dryRun?: boolean;
  evidence: Record<string, unknown>;
  createdAt: Date;
}

export interface ScalingEventRow {
  id: string;
  node: string;
  action: string;
  decision: string | null;
  reason: string;
  actor: string;
  correlationId: string | null;
  operationId: string | null;
  dryRun: boolean;
  evidence: Record<string, unknown>;
  createdAt: string;
}

/**
 * PendingUncordon — everything the record of one uncordon needs, written before its patch. Both ids are chosen
 * here, once, so that writing the record again (a retry after a lost commit acknowledgement, a reconcile) is a no-op.
 */
export interface PendingUncordon {
  /** The `nodes-manager/uncordoned-at` annotation the patch sets (ISO 8601): the proof that the patch landed. */
  at: string;
  event: ScalingEventInput & { id: string; createdAt: Date | string };
  /** The id of the `node.uncordoned` CloudEvent. */
  eventId: string;
  data: Record<string, unknown>;
}

const FLAP_WINDOW_MS = 24 * 3600_000;
/** Scaling-event action of an auto-uncordon (flap back-off counts these, dry runs excluded). */
export const UNCORDON_ACTION = 'uncordon';

/** UncordonRepository — `cordon_observations` and `scaling_events`, in SQL. */
export class UncordonRepository {
  constructor(private readonly ds: DataSource) {}

  async observations(names: readonly string[]): Promise<Map<string, ObservationRow>> {
    if (names.length === 0) return new Map();
    const rows: Array<{ node_name: string; node_uid: string; first_seen_cordoned_at: Date; verdict: Record<string, unknown> | null }> =
      await this.ds.query(
        `SELECT node_name, node_uid, first_seen_cordoned_at, verdict FROM nodes.cordon_observations WHERE node_name = ANY($1::text[])`,
        [names],
      );
    return new Map(
      rows.map((r) => [r.node_name, { nodeName: r.node_name, nodeUid: r.node_uid, firstSeenCordonedAt: r.first_seen_cordoned_at, verdict: r.verdict }]),
    );
  }

  /**
   * observe — records `now` as the first sight of each cordon not yet recorded (or recorded for another node object
   * of the same name). An existing first sight is never moved: a restart does not restart the grace period.
   */
  async observe(nodes: ReadonlyArray<{ name: string; uid: string }>, now: Date): Promise<void> {
    if (nodes.length === 0) return;
    await fenced(this.ds, 'cordon_observations', (tx) => tx.query(
      `INSERT INTO nodes.cordon_observations (node_name, node_uid, first_seen_cordoned_at, updated_at)
       SELECT n, u, $3, $3 FROM unnest($1::text[], $2::text[]) AS t(n, u)
       ON CONFLICT (node_name) DO UPDATE
         SET node_uid = EXCLUDED.node_uid, first_seen_cordoned_at = EXCLUDED.first_seen_cordoned_at, verdict = NULL, pending_uncordon = NULL,
             updated_at = EXCLUDED.updated_at
         WHERE nodes.cordon_observations.node_uid <> EXCLUDED.node_uid`,
      [nodes.map((n) => n.name), nodes.map((n) => n.uid), now],
    ));
  }

  /**
   * setPending — records the uncordon about to be patched (its time and its complete record) before the patch, so a
   * patch that succeeds while its record fails is still recorded, exactly once, by the next cycle's reconcile.
   */
  async setPending(node: string, intent: PendingUncordon): Promise<void> {
    await fenced(this.ds, 'cordon_observations', (tx) => tx.query(`UPDATE nodes.cordon_observations SET pending_uncordon = $2 WHERE node_name = $1`, [node, JSON.stringify(intent)]));
  }

  async clearPending(node: string): Promise<void> {
    await fenced(this.ds, 'cordon_observations', (tx) => tx.query(`UPDATE nodes.cordon_observations SET pending_uncordon = NULL WHERE node_name = $1`, [node]));
  }

  async pendingUncordons(): Promise<Array<{ node: string; intent: PendingUncordon }>> {
    const rows: Array<{ node_name: string; pending_uncordon: PendingUncordon }> = await this.ds.query(
      `SELECT node_name, pending_uncordon FROM nodes.cordon_observations WHERE pending_uncordon IS NOT NULL`,
    );
    // An intent stored before the ids were part of it gets them now, once per reconcile.
    return rows.map((r) => ({
      node: r.node_name,
      intent: { ...r.pending_uncordon, eventId: r.pending_uncordon.eventId ?? randomUUID(), event: { ...r.pending_uncordon.event, id: r.pending_uncordon.event.id ?? randomUUID() } },
    }));
  }

  /** forget — the cordon is gone (or the node is): the next cordon starts a new observation. */
  async forget(tx: SqlRunner, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await tx.query(`DELETE FROM nodes.cordon_observations WHERE node_name = ANY($1::text[])`, [names]);
  }

  /**
   * forgetAllBut — drops observations of every node not in `cordoned` (call only on a synced view), except those
   * holding a pending uncordon, which reconcilePending settles.
   */
  async forgetAllBut(cordoned: readonly string[]): Promise<void> {
    await fenced(this.ds, 'cordon_observations', (tx) => tx.query(`DELETE FROM nodes.cordon_observations WHERE NOT (node_name = ANY($1::text[])) AND pending_uncordon IS NULL`, [cordoned]));
  }

  async saveVerdicts(verdicts: ReadonlyArray<{ node: string; verdict: Record<string, unknown> }>, now: Date): Promise<void> {
    if (verdicts.length === 0) return;
    await fenced(this.ds, 'cordon_observations', (tx) => tx.query(
      `UPDATE nodes.cordon_observations o SET verdict = v.verdict, last_evaluated_at = $3, updated_at = $3
         FROM unnest($1::text[], $2::jsonb[]) AS v(node, verdict) WHERE o.node_name = v.node`,
      [verdicts.map((v) => v.node), verdicts.map((v) => JSON.stringify(v.verdict)), now],
    ));
  }

  /** uncordonHistory — our own (not dry-run) uncordons of these nodes in the 24 h before `now`: the flap count k. */
  async uncordonHistory(names: readonly string[], now: Date): Promise<Map<string, Date[]>> {
    const out = new Map<string, Date[]>();
    if (names.length === 0) return out;
    const rows: Array<{ node_name: string; created_at: Date }> = await this.ds.query(
      `SELECT node_name, created_at FROM nodes.scaling_events
        WHERE action = $1 AND NOT dry_run AND node_name = ANY($2::text[]) AND created_at > $3 AND created_at <= $4`,
      [UNCORDON_ACTION, names, new Date(now.getTime() - FLAP_WINDOW_MS), now],
    );
    for (const r of rows) out.set(r.node_name, [...(out.get(r.node_name) ?? []), r.created_at]);
    return out;
  }

  /**
   * recentUncordons — the times of our own (not dry-run) uncordons after `since`: what the per-interval budget
   * (docs/auto-uncordon.md clause 6) has already used.
   */
  async recentUncordons(since: Date): Promise<Date[]> {
    const rows: Array<{ created_at: Date }> = await this.ds.query(
      `SELECT created_at FROM nodes.scaling_events WHERE created_at > $1 AND action = $2 AND NOT dry_run ORDER BY created_at`,
      [since, UNCORDON_ACTION],
    );
    return rows.map((r) => r.created_at);
  }

  /**
   * addEvent — inserts a `scaling_events` row inside the caller's transaction. With `e.id` given, a row with that id
   * already there makes it a no-op: `inserted` is false (a retried record).
   */
  /**
   * recordUncordon — the record of an uncordon that landed, in one transaction: its `scaling_events` row (once:
   * the row's id comes from the intent, so a retry is a no-op), the node's observation forgotten, and — only when
   * the row is new — its `node.uncordoned` event in the outbox.
   */
  async recordUncordon(e: ScalingEventInput & { id: string }, node: string, outbox: Pick<Outbox, 'add'>, event: CloudEvent): Promise<void> {
    await fenced(this.ds, 'scaling_events', async (tx) => {
      const { inserted } = await this.addEvent(tx, e);
      await this.forget(tx, [node]);
      if (inserted) await outbox.add(tx, [event]);
    });
  }

  /** recordScalingEvent — one `scaling_events` row on its own (a dry run's record). */
  async recordScalingEvent(e: ScalingEventInput & { id?: string }): Promise<void> {
    await fenced(this.ds, 'scaling_events', (tx) => this.addEvent(tx, e));
  }

  async addEvent(tx: SqlRunner, e: ScalingEventInput & { id?: string }): Promise<{ id: string; inserted: boolean }> {
    const id = e.id ?? randomUUID();
    const result = (await tx.query(
      `INSERT INTO nodes.scaling_events (id, node_name, action, decision, reason, actor, correlation_id, operation_id, dry_run, evidence, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [id, e.nodeName, e.action, e.decision ?? null, e.reason, e.actor, e.correlationId ?? null, e.operationId ?? null, e.dryRun ?? false, JSON.stringify(e.evidence), e.createdAt],
    )) as unknown[];
    return { id, inserted: result.length > 0 };
  }

  /** hasDryRun — whether this cordon (same T) already has its dry-run record, so a dry run records once per cordon. */
  async hasDryRun(node: string, cordonedSince: string | undefined): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(
      `SELECT 1 FROM nodes.scaling_events WHERE node_name = $1 AND action = $2 AND dry_run AND evidence->>'cordonedSince' IS NOT DISTINCT FROM $3 LIMIT 1`,
      [node, UNCORDON_ACTION, cordonedSince ?? null],
    );
    return rows.length > 0;
  }

  /** listEvents — newest first; keyset cursor on (created_at, id). */
  async listEvents(q: { limit: number; cursor?: string; node?: string; action?: string }): Promise<{ items: ScalingEventRow[]; nextCursor?: string }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.node) {
      params.push(q.node);
      where.push(`node_name = $${params.length}`);
    }
    if (q.action) {
      params.push(q.action);
      where.push(`action = $${params.length}`);
    }
    if (q.cursor) {
      const [at, id] = EVENTS_CURSOR.decode(q.cursor);
      params.push(at, id);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(q.limit + 1);
    const rows: Array<Record<string, unknown>> = await this.ds.query(
      `SELECT id, node_name, action, decision, reason, actor, correlation_id, operation_id, dry_run, evidence, created_at
         FROM nodes.scaling_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, q.limit).map(
      (r): ScalingEventRow => ({
        id: r.id as string,
        node: r.node_name as string,
        action: r.action as string,
        decision: (r.decision as string | null) ?? null,
        reason: r.reason as string,
        actor: r.actor as string,
        correlationId: (r.correlation_id as string | null) ?? null,
        operationId: (r.operation_id as string | null) ?? null,
        dryRun: r.dry_run as boolean,
        evidence: r.evidence as Record<string, unknown>,
        createdAt: (r.created_at as Date).toISOString(),
      }),
    );
    const last = page.at(-1);
    return rows.length > q.limit && last ? { items: page, nextCursor: EVENTS_CURSOR.encode([last.createdAt, last.id]) } : { items: page };
  }
}
