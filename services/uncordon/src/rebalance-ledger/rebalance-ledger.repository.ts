import { Column, Entity, PrimaryColumn, type DataSource } from 'typeorm';
import { LIST_CURSORS, type LedgerNodeIdentity, type RebalanceEvidence, type RebalanceOutcome, type RebalanceView, type RebalancesListQuery } from '@nodes-manager/contracts';
import type { CloudEvent } from '@nodes-manager/contracts';
import { fenced, STALE_WRITE, type Outbox, type SqlRunner } from '@nodes-manager/platform';
import type { LedgerEntry } from './domain/advance-ledger.js';

const REBALANCES_CURSOR = LIST_CURSORS['rebalances'];

/** RebalanceLedgerEntity — `nodes.rebalance_ledger`: one Spot rebalance recommendation seen on one Node object. */
@Entity({ schema: 'nodes', name: 'rebalance_ledger' })
export class RebalanceLedgerEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ type: 'text', name: 'node_name' }) nodeName!: string;
  @Column({ type: 'text', name: 'node_uid' }) nodeUid!: string;
  @Column({ type: 'text', name: 'instance_id', nullable: true }) instanceId!: string | null;
  @Column({ type: 'text', name: 'instance_type', nullable: true }) instanceType!: string | null;
  @Column({ type: 'text', nullable: true }) zone!: string | null;
  @Column({ type: 'text', name: 'capacity_type', nullable: true }) capacityType!: string | null;
  @Column({ type: 'text', name: 'node_pool', nullable: true }) nodePool!: string | null;
  @Column({ type: 'timestamptz', name: 'seen_at' }) seenAt!: Date;
  @Column({ type: 'text', name: 'seen_signal' }) seenSignal!: string;
  @Column({ type: 'text', name: 'seen_time_source' }) seenTimeSource!: string;
  @Column({ type: 'text' }) outcome!: string;
  @Column({ type: 'timestamptz', name: 'resolved_at', nullable: true }) resolvedAt!: Date | null;
  @Column({ type: 'timestamptz', name: 'uncordoned_at', nullable: true }) uncordonedAt!: Date | null;
  @Column({ type: 'timestamptz', name: 'recordoned_at', nullable: true }) recordonedAt!: Date | null;
  @Column({ type: 'timestamptz', name: 'interrupted_at', nullable: true }) interruptedAt!: Date | null;
  @Column({ type: 'text', name: 'interruption_source', nullable: true }) interruptionSource!: string | null;
  @Column({ type: 'bigint', name: 'lead_time_ms', nullable: true }) leadTimeMs!: string | null;
  @Column({ type: 'bigint', name: 'given_back_ms' }) givenBackMs!: string;
  @Column({ type: 'timestamptz', name: 'gone_at', nullable: true }) goneAt!: Date | null;
  @Column({ type: 'jsonb' }) evidence!: RebalanceEvidence[];
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt!: Date;
}

const COLUMNS = `id, node_name, node_uid, instance_id, instance_type, zone, capacity_type, node_pool, seen_at, seen_signal, seen_time_source,
  outcome, resolved_at, uncordoned_at, recordoned_at, interrupted_at, interruption_source, lead_time_ms, given_back_ms, gone_at, evidence`;

type Row = Record<string, unknown>;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** nodeIdentityOf — the node columns that `rebalance_ledger` and `spot_interruptions` share, read from a row of either. */
export const nodeIdentityOf = (r: Row): LedgerNodeIdentity => ({
  id: r['id'] as string,
  node: r['node_name'] as string,
  nodeUid: r['node_uid'] as string,
  instanceId: (r['instance_id'] as string | null) ?? null,
  instanceType: (r['instance_type'] as string | null) ?? null,
  zone: (r['zone'] as string | null) ?? null,
  capacityType: (r['capacity_type'] as string | null) ?? null,
  nodePool: (r['node_pool'] as string | null) ?? null,
});

const rowToEntry = (r: Row): LedgerEntry => ({
  ...nodeIdentityOf(r),
  seenAt: r['seen_at'] as Date,
  seenSignal: r['seen_signal'] as LedgerEntry['seenSignal'],
  seenTimeSource: r['seen_time_source'] as LedgerEntry['seenTimeSource'],
  outcome: r['outcome'] as RebalanceOutcome,
  resolvedAt: (r['resolved_at'] as Date | null) ?? null,
  uncordonedAt: (r['uncordoned_at'] as Date | null) ?? null,
  recordonedAt: (r['recordoned_at'] as Date | null) ?? null,
  interruptedAt: (r['interrupted_at'] as Date | null) ?? null,
  interruptionSource: (r['interruption_source'] as LedgerEntry['interruptionSource']) ?? null,
  leadTimeMs: num(r['lead_time_ms']),
  givenBackMs: num(r['given_back_ms']) ?? 0,
  goneAt: (r['gone_at'] as Date | null) ?? null,
  evidence: (r['evidence'] as RebalanceEvidence[]) ?? [],
});

const iso = (d: Date | null): string | null => d?.toISOString() ?? null;

/** viewOf — a ledger row as the API and the events show it. */
export function viewOf(e: LedgerEntry, givenBack = e.givenBackMs): RebalanceView {
  return {
    id: e.id,
    node: e.node,
    nodeUid: e.nodeUid,
    instanceId: e.instanceId,
    instanceType: e.instanceType,
    zone: e.zone,
    capacityType: e.capacityType,
    nodePool: e.nodePool,
    seenAt: e.seenAt.toISOString(),
    seenSignal: e.seenSignal,
    seenTimeSource: e.seenTimeSource,
    outcome: e.outcome,
    resolved: e.resolvedAt !== null,
    resolvedAt: iso(e.resolvedAt),
    uncordonedAt: iso(e.uncordonedAt),
    recordonedAt: iso(e.recordonedAt),
    interruptedAt: iso(e.interruptedAt),
    interruptionSource: e.interruptionSource,
    leadTimeMs: e.leadTimeMs,
    givenBackMs: givenBack,
    evidence: e.evidence,
  };
}

/** RebalanceLedgerRepository — `nodes.rebalance_ledger`, in SQL. */
export class RebalanceLedgerRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly outbox: Outbox,
  ) {}

  /**
   * record — new rows, changed rows and their events, in one transaction: `eventsFor` is given the ids actually
   * inserted (a row already there for the same node uid and time is left alone and gets no `rebalance.observed`).
   */
  async record(opened: readonly LedgerEntry[], updated: readonly LedgerEntry[], now: Date, eventsFor: (inserted: Set<string>) => CloudEvent[]): Promise<Set<string>> {
    const inserted = await fenced(this.ds, 'rebalance_ledger', async (tx) => {
      const ids = await this.insert(tx, opened, now);
      await this.update(tx, updated, now);
      const out = eventsFor(ids);
      if (out.length > 0) await this.outbox.add(tx, out);
      return ids;
    });
    // A deposed leader's pass records nothing: its successor's pass records what it saw.
    if (inserted === STALE_WRITE) return new Set();
    this.outbox.added();
    return inserted;
  }

  /** forStep — every open row, plus the latest row of each of these Node objects (what {@link advanceLedger} takes). */
  async forStep(uids: readonly string[]): Promise<LedgerEntry[]> {
    const rows: Row[] = await this.ds.query(
      `SELECT ${COLUMNS} FROM nodes.rebalance_ledger WHERE resolved_at IS NULL
       UNION
       SELECT * FROM (SELECT DISTINCT ON (node_uid) ${COLUMNS} FROM nodes.rebalance_ledger WHERE node_uid = ANY($1::text[]) ORDER BY node_uid, seen_at DESC) latest`,
      [uids],
    );
    return rows.map(rowToEntry);
  }

  /**
   * insert — new rows, inside the caller's transaction; a row already there for the same (node uid, seen at) is left
   * alone. Returns the ids actually inserted (only those get `rebalance.observed`).
   */
  async insert(tx: SqlRunner, entries: readonly LedgerEntry[], now: Date): Promise<Set<string>> {
    const inserted = new Set<string>();
    for (const e of entries) {
      const rows = (await tx.query(
        `INSERT INTO nodes.rebalance_ledger (${COLUMNS}, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
         ON CONFLICT (node_uid, seen_at) DO NOTHING RETURNING id`,
        [...values(e), now],
      )) as Row[];
      if (rows.length > 0) inserted.add(e.id);
    }
    return inserted;
  }

  /**
   * update — the new state of changed rows, inside the caller's transaction. The seen time moves (earlier) when a
   * second source saw the rebalance first; a clash with another row of the node at that time keeps the old time.
   */
  async update(tx: SqlRunner, entries: readonly LedgerEntry[], now: Date): Promise<void> {
    for (const e of entries) {
      await tx.query(
        `UPDATE nodes.rebalance_ledger r SET outcome = $2, resolved_at = $3, uncordoned_at = $4, recordoned_at = $5, interrupted_at = $6,
           interruption_source = $7, lead_time_ms = $8, given_back_ms = $9, gone_at = $10, evidence = $11, updated_at = $12,
           seen_at = CASE WHEN EXISTS (SELECT 1 FROM nodes.rebalance_ledger o WHERE o.node_uid = r.node_uid AND o.seen_at = $13 AND o.id <> r.id) THEN r.seen_at ELSE $13 END,
           seen_signal = $14, seen_time_source = $15
         WHERE id = $1`,
        [e.id, e.outcome, e.resolvedAt, e.uncordonedAt, e.recordonedAt, e.interruptedAt, e.interruptionSource, e.leadTimeMs, e.givenBackMs, e.goneAt, JSON.stringify(e.evidence), now, e.seenAt, e.seenSignal, e.seenTimeSource],
      );
    }
  }

  /** byIds — these rows as stored (what a step changed them from). */
  async byIds(ids: readonly string[]): Promise<LedgerEntry[]> {
    if (ids.length === 0) return [];
    const rows: Row[] = await this.ds.query(`SELECT ${COLUMNS} FROM nodes.rebalance_ledger WHERE id = ANY($1::uuid[])`, [ids]);
    return rows.map(rowToEntry);
  }

  /** since — every row seen at or after `from` (and before `to`), for the figures. */
  async since(from: Date | undefined, to?: Date): Promise<LedgerEntry[]> {
    const rows: Row[] = await this.ds.query(
      `SELECT ${COLUMNS} FROM nodes.rebalance_ledger WHERE ($1::timestamptz IS NULL OR seen_at >= $1) AND ($2::timestamptz IS NULL OR seen_at < $2)`,
      [from ?? null, to ?? null],
    );
    return rows.map(rowToEntry);
  }

  /** list — newest rebalance first; keyset cursor on (seen_at, id). */
  async list(q: RebalancesListQuery): Promise<{ items: LedgerEntry[]; nextCursor?: string }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (q.outcome) add('outcome = ?', q.outcome);
    if (q.instanceType) add('instance_type = ?', q.instanceType);
    if (q.zone) add('zone = ?', q.zone);
    if (q.nodePool) add('node_pool = ?', q.nodePool);
    if (q.from) add('seen_at >= ?::timestamptz', q.from);
    if (q.to) add('seen_at < ?::timestamptz', q.to);
    if (q.cursor) {
      const [at, id] = REBALANCES_CURSOR.decode(q.cursor);
      params.push(at, id);
      where.push(`(seen_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(q.limit + 1);
    const rows: Row[] = await this.ds.query(
      `SELECT ${COLUMNS} FROM nodes.rebalance_ledger ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seen_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, q.limit).map(rowToEntry);
    const last = page.at(-1);
    return rows.length > q.limit && last ? { items: page, nextCursor: REBALANCES_CURSOR.encode([last.seenAt.toISOString(), last.id]) } : { items: page };
  }
}

function values(e: LedgerEntry): unknown[] {
  return [
    e.id, e.node, e.nodeUid, e.instanceId, e.instanceType, e.zone, e.capacityType, e.nodePool, e.seenAt, e.seenSignal, e.seenTimeSource,
    e.outcome, e.resolvedAt, e.uncordonedAt, e.recordonedAt, e.interruptedAt, e.interruptionSource, e.leadTimeMs, e.givenBackMs, e.goneAt, JSON.stringify(e.evidence),
  ];
}
