import { randomUUID } from 'node:crypto';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  approvalId,
  EventTypes,
  type ApprovalNode,
  type ApprovalResult,
  type ApprovalsListQuery,
  type ApprovalStatus,
  type ApprovalView,
  type CommandMeta,
  type ApprovalKind,
  type EventType,
  type ServiceName,
} from '@nodes-manager/contracts';
import { decideApproval, executionStatus, type ApprovalRules } from '@nodes-manager/disruption';
import type { Clock } from '../clock/clock.js';
import { CodedError } from '../errors/coded-error.js';
import type { Metrics } from '../health/metrics.js';
import type { JsonLogger } from '../logging/logger.js';
import { makeEvent, type Outbox, type SqlRunner } from '../messaging/outbox.js';
import { fenced, STALE_WRITE } from '../leader/write-fence.js';

/**
 * Approvals of one disruptive action kind, in the owning service's own table (docs/approvals.md). Every change of
 * status and its `approval.*` event are committed in one transaction; the status changes that matter between
 * replicas are conditional updates (`… WHERE status = 'pending'`, `… WHERE status = 'approved'`), so one approval is
 * decided once and claimed for execution by exactly one replica.
 */

/** approvalEntity — the entity of a service's approvals table, so the start-up self-check verifies its columns. */
export function approvalEntity(table: string) {
  @Entity({ schema: 'nodes', name: table })
  class ApprovalEntity {
    @PrimaryColumn({ type: 'text' }) id!: string;
    @Column({ type: 'text' }) kind!: string;
    @Column({ type: 'text' }) status!: string;
    @Column({ type: 'text' }) subject!: string;
    @Column({ type: 'text' }) reason!: string;
    @Column({ type: 'uuid', name: 'plan_id', nullable: true }) planId!: string | null;
    @Column({ type: 'jsonb' }) action!: Record<string, unknown>;
    @Column({ type: 'text', name: 'requested_by' }) requestedBy!: string;
    @Column({ type: 'timestamptz', name: 'requested_at' }) requestedAt!: Date;
    @Column({ type: 'timestamptz', name: 'expires_at' }) expiresAt!: Date;
    @Column({ type: 'text', name: 'decided_by', nullable: true }) decidedBy!: string | null;
    @Column({ type: 'timestamptz', name: 'decided_at', nullable: true }) decidedAt!: Date | null;
    @Column({ type: 'text', nullable: true }) comment!: string | null;
    @Column({ type: 'timestamptz', name: 'executed_at', nullable: true }) executedAt!: Date | null;
    @Column({ type: 'jsonb' }) results!: unknown[];
    @Column({ type: 'text', name: 'correlation_id', nullable: true }) correlationId!: string | null;
  }
  Object.defineProperty(ApprovalEntity, 'name', { value: `${table.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Entity` });
  return ApprovalEntity;
}

/** ApprovalDraft — what an approval request says: the action in full, why, by which plan. */
export interface ApprovalDraft {
  subject: string;
  reason: string;
  planId: string | null;
  nodes: ApprovalNode[];
  pdbImpact?: ApprovalView['pdbImpact'];
  hourlySavingsUsd?: number | null;
  monthlySavingsUsd?: number | null;
  /** Anything else the owner needs to carry the action out (e.g. a consolidation's budget view). */
  extra?: Record<string, unknown>;
}

export interface ApprovalStoreOptions {
  ds: DataSource;
  outbox: Outbox;
  clock: Clock;
  logger: JsonLogger;
  metrics?: Metrics;
  service: ServiceName;
  kind: ApprovalKind;
  table: string;
  rules: ApprovalRules;
  ttlMinutes: number;
}

/** returned — the rows of an `UPDATE … RETURNING` (TypeORM's Postgres driver answers `[rows, count]` for updates). */
const returned = (result: unknown): any[] => (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : (result as any[]));

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

export class ApprovalStore {
  private readonly t: string;
  private readonly counter;
  private readonly listeners: ((id: string) => void)[] = [];
  /** The kind of every approval in this store's table. */
  readonly kind: ApprovalKind;

  constructor(private readonly o: ApprovalStoreOptions) {
    this.t = `nodes.${o.table}`;
    this.kind = o.kind;
    this.counter = o.metrics?.counter('nodes_manager_approvals_total', 'Approval requests by kind and what became of them', ['kind', 'outcome']);
    o.metrics?.collectedGauge('nodes_manager_approvals_open', 'Approvals waiting: pending a decision, or approved and waiting for a window', ['kind', 'status'], async (g) => {
      const rows: { status: string; n: string }[] = await o.ds.query(`SELECT status, count(*) AS n FROM ${this.t} WHERE status IN ('pending', 'approved', 'executing') GROUP BY status`);
      for (const s of ['pending', 'approved', 'executing']) g.set({ service: o.service, kind: o.kind, status: s }, Number(rows.find((r) => r.status === s)?.n ?? 0));
    });
  }

  /**
   * onChange — `fn(id)` after this process committed a request (on its own transaction) or a decision: the owner's
   * approvals controller looks at the approval at once (docs/approvals.md#the-approvals-controller).
   */
  onChange(fn: (id: string) => void): void {
    this.listeners.push(fn);
  }

  private changed(id: string): void {
    for (const l of this.listeners) l(id);
  }

  private count(outcome: string): void {
    this.counter?.inc({ service: this.o.service, kind: this.o.kind, outcome });
  }

  private view(r: any): ApprovalView {
    const action = (r.action ?? {}) as { nodes?: ApprovalNode[]; pdbImpact?: ApprovalView['pdbImpact']; hourlySavingsUsd?: number | null; monthlySavingsUsd?: number | null };
    return {
      id: r.id,
      kind: r.kind,
      service: this.o.service,
      status: r.status,
      subject: r.subject,
      reason: r.reason,
      planId: r.plan_id,
      nodes: action.nodes ?? [],
      pdbImpact: action.pdbImpact ?? [],
      hourlySavingsUsd: action.hourlySavingsUsd ?? null,
      monthlySavingsUsd: action.monthlySavingsUsd ?? null,
      requestedBy: r.requested_by,
      requestedAt: iso(r.requested_at)!,
      expiresAt: iso(r.expires_at)!,
      decidedBy: r.decided_by,
      decidedAt: iso(r.decided_at),
      comment: r.comment,
      executedAt: iso(r.executed_at),
      results: r.results ?? [],
      correlationId: r.correlation_id,
    };
  }

  /** extra — what the owner stored beside the action (see ApprovalDraft.extra). */
  async extra(id: string): Promise<Record<string, unknown>> {
    const [r] = (await this.o.ds.query(`SELECT action->'extra' AS extra FROM ${this.t} WHERE id = $1`, [id])) as { extra: Record<string, unknown> | null }[];
    return r?.extra ?? {};
  }

  private event(type: EventType, v: ApprovalView, meta: Partial<CommandMeta>, now: Date) {
    return makeEvent(
      this.o.service,
      type,
      {
        approvalId: v.id,
        kind: v.kind,
        status: v.status,
        subject: v.subject,
        planId: v.planId,
        nodes: v.nodes.map((n) => n.node),
        hourlySavingsUsd: v.hourlySavingsUsd,
        requestedBy: v.requestedBy,
        expiresAt: v.expiresAt,
        decidedBy: v.decidedBy,
        comment: v.comment,
        results: v.results,
      },
      now,
      { subject: v.subject, ...(meta.actor ? { actor: meta.actor } : {}), ...(meta.correlationId ? { correlationId: meta.correlationId } : {}) },
    );
  }

  /** request — a pending approval for the draft, expiring after APPROVAL_TTL_MINUTES, with `approval.requested`. */
  async request(draft: ApprovalDraft, meta: CommandMeta, tx?: SqlRunner): Promise<ApprovalView> {
    const now = this.o.clock.now();
    const id = approvalId(this.o.kind, randomUUID());
    const action = {
      nodes: draft.nodes,
      pdbImpact: draft.pdbImpact ?? [],
      hourlySavingsUsd: draft.hourlySavingsUsd ?? null,
      monthlySavingsUsd: draft.monthlySavingsUsd ?? null,
      ...(draft.extra ? { extra: draft.extra } : {}),
    };
    const run = async (m: SqlRunner) => {
      const [row] = (await m.query(
        `INSERT INTO ${this.t} (id, kind, status, subject, reason, plan_id, action, requested_by, requested_at, expires_at, correlation_id)
         VALUES ($1, $2, 'pending', $3, $4, $5, $6::jsonb, $7, $8, $9, $10) RETURNING *`,
        [id, this.o.kind, draft.subject, draft.reason, draft.planId, JSON.stringify(action), meta.actor, now.toISOString(), new Date(now.getTime() + this.o.ttlMinutes * 60_000).toISOString(), meta.correlationId],
      )) as any[];
      const v = this.view(row);
      await this.o.outbox.add(m, [this.event(EventTypes.approvalRequested, v, meta, now)]);
      return v;
    };
    const v = tx ? await run(tx) : await this.fencedWrite(run);
    // In the caller's transaction the request is not committed yet: the controller finds it at its next listing.
    if (!tx) {
      this.o.outbox.added();
      this.changed(v.id);
    }
    this.count('requested');
    this.o.logger.info('approval requested', { approvalId: v.id, kind: v.kind, subject: v.subject, nodes: v.nodes.map((n) => n.node), expiresAt: v.expiresAt, correlationId: meta.correlationId });
    return v;
  }

  /**
   * record — an action the operator carried out at once, recorded as an approval they requested and approved
   * themselves, already `executed` with its results (a manual drain): `approval.approved` and `approval.executed`
   * in the caller's transaction `tx`, which the caller commits (and then tells the outbox).
   */
  async record(draft: ApprovalDraft, results: readonly ApprovalResult[], meta: CommandMeta, tx: SqlRunner): Promise<ApprovalView> {
    const now = this.o.clock.now();
    const id = approvalId(this.o.kind, randomUUID());
    const action = { nodes: draft.nodes, pdbImpact: draft.pdbImpact ?? [], hourlySavingsUsd: draft.hourlySavingsUsd ?? null, monthlySavingsUsd: draft.monthlySavingsUsd ?? null };
    const status = executionStatus(results.filter((r) => r.outcome === 'started').length);
    const [row] = returned(
      await tx.query(
        `INSERT INTO ${this.t} (id, kind, status, subject, reason, plan_id, action, requested_by, requested_at, expires_at, decided_by, decided_at, executed_at, results, correlation_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $9, $8, $9, $9, $10::jsonb, $11) RETURNING *`,
        [id, this.o.kind, status, draft.subject, draft.reason, draft.planId, JSON.stringify(action), meta.actor, now.toISOString(), JSON.stringify(results), meta.correlationId],
      ),
    );
    const v = this.view(row);
    await this.o.outbox.add(tx, [this.event(EventTypes.approvalApproved, { ...v, status: 'approved', results: [] }, meta, now), this.event(EventTypes.approvalExecuted, v, meta, now)]);
    this.count('approved');
    this.count(status);
    this.o.logger.info('approval recorded', { approvalId: v.id, kind: v.kind, subject: v.subject, status, actor: meta.actor, correlationId: meta.correlationId });
    return v;
  }

  /** open — the approval for `subject` still in play (pending, approved or executing), if any: one at a time per subject. */
  async open(subject: string): Promise<ApprovalView | undefined> {
    const [r] = (await this.o.ds.query(
      `SELECT * FROM ${this.t} WHERE subject = $1 AND status IN ('pending', 'approved', 'executing') ORDER BY requested_at DESC LIMIT 1`,
      [subject],
    )) as any[];
    return r ? this.view(r) : undefined;
  }

  /** ofSubjects — every approval of these subjects, newest first, with what the owner stored beside the action. */
  async ofSubjects(subjects: readonly string[]): Promise<Array<ApprovalView & { extra: Record<string, unknown> }>> {
    if (subjects.length === 0) return [];
    const rows: any[] = await this.o.ds.query(`SELECT * FROM ${this.t} WHERE subject = ANY($1::text[]) ORDER BY requested_at DESC, id COLLATE "C" DESC`, [subjects]);
    return rows.map((r) => ({ ...this.view(r), extra: (r.action?.extra as Record<string, unknown> | undefined) ?? {} }));
  }

  async get(id: string): Promise<ApprovalView> {
    const v = await this.find(id);
    if (!v) throw new CodedError('NOT_FOUND', `approval ${id} not found`, { id });
    return v;
  }

  /**
   * list — newest first by (requestedAt, id) — ids compared byte-wise (`COLLATE "C"`), as the gateway does when it
   * merges the pages of several services; `after` is the last key the caller saw. `more` says a next page exists.
   */
  async list(q: ApprovalsListQuery): Promise<{ items: ApprovalView[]; more: boolean }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.status) where.push(`status = $${params.push(q.status)}`);
    if (q.after) where.push(`(requested_at, id COLLATE "C") < ($${params.push(q.after.requestedAt)}::timestamptz, $${params.push(q.after.id)} COLLATE "C")`);
    const rows: any[] = await this.o.ds.query(
      `SELECT * FROM ${this.t} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY requested_at DESC, id COLLATE "C" DESC LIMIT $${params.push(q.limit + 1)}`,
      params,
    );
    return { items: rows.slice(0, q.limit).map((r) => this.view(r)), more: rows.length > q.limit };
  }

  /**
   * decide — approve or reject, as `meta.actor`, under a row lock: only a pending, unexpired approval, and with
   * APPROVAL_DISTINCT_APPROVER not by its requester (`decideApproval`). One found expired is marked so (with its
   * event) and the caller gets a CONFLICT.
   */
  async decide(id: string, action: 'approve' | 'reject', meta: CommandMeta, comment?: string): Promise<ApprovalView> {
    const now = this.o.clock.now();
    let expired = false;
    const out = await this.o.ds.transaction(async (m) => {
      const [r] = (await m.query(`SELECT * FROM ${this.t} WHERE id = $1 FOR UPDATE`, [id])) as any[];
      if (!r) throw new CodedError('NOT_FOUND', `approval ${id} not found`, { id });
      const current = this.view(r);
      const verdict = decideApproval({ status: current.status, requestedBy: current.requestedBy, expiresAt: new Date(current.expiresAt) }, action, meta.actor, now, this.o.rules);
      if (!verdict.ok) {
        if (verdict.expire) {
          await this.expireRows(m, [id], now);
          expired = true;
          return { error: new CodedError(verdict.code, verdict.message, { id, reason: verdict.reason, status: 'expired' }) };
        }
        return { error: new CodedError(verdict.code, verdict.message, { id, reason: verdict.reason, status: current.status }) };
      }
      const [row] = returned(
        await m.query(`UPDATE ${this.t} SET status = $2, decided_by = $3, decided_at = $4, comment = $5 WHERE id = $1 AND status = 'pending' RETURNING *`, [
          id,
          verdict.status,
          meta.actor,
          now.toISOString(),
          comment ?? null,
        ]),
      );
      const v = this.view(row);
      await this.o.outbox.add(m, [this.event(verdict.status === 'approved' ? EventTypes.approvalApproved : EventTypes.approvalRejected, v, meta, now)]);
      return { view: v };
    });
    this.o.outbox.added();
    if (expired) this.count('expired');
    if ('error' in out) throw out.error;
    this.count(out.view.status);
    this.o.logger.info(`approval ${out.view.status}`, { approvalId: id, kind: out.view.kind, actor: meta.actor, correlationId: meta.correlationId });
    this.changed(id);
    return out.view;
  }

  /** expireRows — the pending ones of `ids` whose deadline is at or before `now` become `expired`, with their events. */
  private async expireRows(m: EntityManager, ids: readonly string[], now: Date): Promise<ApprovalView[]> {
    const rows = returned(
      await m.query(`UPDATE ${this.t} SET status = 'expired', decided_at = $2 WHERE id = ANY($1) AND status = 'pending' AND expires_at <= $2 RETURNING *`, [ids, now.toISOString()]),
    );
    const views = rows.map((r) => this.view(r));
    await this.o.outbox.add(m, views.map((v) => this.event(EventTypes.approvalExpired, v, { correlationId: v.correlationId ?? undefined }, now)));
    return views;
  }

  /** expireDue — every pending approval past its deadline becomes `expired` (with `approval.expired`); nothing is done for it. */
  async expireDue(): Promise<ApprovalView[]> {
    const now = this.o.clock.now();
    const due: { id: string }[] = await this.o.ds.query(`SELECT id FROM ${this.t} WHERE status = 'pending' AND expires_at <= $1`, [now.toISOString()]);
    if (due.length === 0) return [];
    const views = await fenced(this.o.ds, this.o.table, (m) => this.expireRows(m, due.map((d) => d.id), now));
    if (views === STALE_WRITE) return [];
    this.o.outbox.added();
    for (const v of views) {
      this.count('expired');
      this.o.logger.info('approval expired', { approvalId: v.id, kind: v.kind, expiresAt: v.expiresAt });
    }
    return views;
  }

  /**
   * expire — this approval becomes `expired` (with `approval.expired`) if it is still pending and its deadline is at
   * or before now; undefined when it is not (decided meanwhile, or not due): a conditional update, once however many
   * replicas try.
   */
  async expire(id: string): Promise<ApprovalView | undefined> {
    const now = this.o.clock.now();
    const expired = await fenced(this.o.ds, this.o.table, (m) => this.expireRows(m, [id], now));
    const [v] = expired === STALE_WRITE ? [] : expired;
    if (!v) return undefined;
    this.o.outbox.added();
    this.count('expired');
    this.o.logger.info('approval expired', { approvalId: v.id, kind: v.kind, expiresAt: v.expiresAt });
    return v;
  }

  /**
   * fencedWrite — `run` in a transaction of its own, fenced by the reconcile's term (docs/leader-election.md#terms): a
   * deposed leader's request or execution record is refused as a CONFLICT, with nothing written.
   */
  private async fencedWrite<T>(run: (m: EntityManager) => Promise<T>): Promise<T> {
    const out = await fenced(this.o.ds, this.o.table, run);
    if (out === STALE_WRITE) throw new CodedError('CONFLICT', `approval not written: this process no longer holds the leader's term`, { table: this.o.table });
    return out;
  }

  /** find — the approval, or undefined when there is none with this id. */
  async find(id: string): Promise<ApprovalView | undefined> {
    const [r] = (await this.o.ds.query(`SELECT * FROM ${this.t} WHERE id = $1`, [id])) as any[];
    return r ? this.view(r) : undefined;
  }

  /** idsIn — the ids of the approvals in these statuses (one query on the status). */
  async idsIn(statuses: readonly ApprovalStatus[]): Promise<string[]> {
    const rows: { id: string }[] = await this.o.ds.query(`SELECT id FROM ${this.t} WHERE status = ANY($1::text[]) ORDER BY requested_at, id`, [statuses]);
    return rows.map((r) => r.id);
  }

  /** approved — approved approvals waiting to run, oldest first. */
  approved(): Promise<ApprovalView[]> {
    return this.inStatus('approved');
  }

  /** inStatus — the approvals in one status, oldest decision first. */
  async inStatus(status: ApprovalStatus): Promise<ApprovalView[]> {
    const rows: any[] = await this.o.ds.query(`SELECT * FROM ${this.t} WHERE status = $1 ORDER BY decided_at, id`, [status]);
    return rows.map((r) => this.view(r));
  }

  /**
   * claim — `approved` → `executing` by a conditional update: true for exactly one caller, however many replicas
   * try at once. The claimer must then `finish` it.
   */
  async claim(id: string): Promise<boolean> {
    const claimed = await fenced(this.o.ds, this.o.table, async (m) => returned(await m.query(`UPDATE ${this.t} SET status = 'executing' WHERE id = $1 AND status = 'approved' RETURNING id`, [id])).length === 1);
    return claimed === true;
  }

  /**
   * finish — the per-node results of an execution: `executed` when at least one node was acted on, else `failed`,
   * with `approval.executed`; `extra` events (the owner's own record of the action) go in the same transaction.
   */
  async finish(id: string, results: readonly ApprovalResult[], meta: CommandMeta, also?: (m: EntityManager, now: Date) => Promise<void>, tx?: SqlRunner): Promise<ApprovalView> {
    const now = this.o.clock.now();
    const status: ApprovalStatus = executionStatus(results.filter((r) => r.outcome === 'started').length);
    const run = async (m: SqlRunner) => {
      const [got] = returned(
        await m.query(`UPDATE ${this.t} SET status = $2, executed_at = $3, results = $4::jsonb WHERE id = $1 AND status = 'executing' RETURNING *`, [
          id,
          status,
          now.toISOString(),
          JSON.stringify(results),
        ]),
      );
      if (!got) throw new CodedError('CONFLICT', `approval ${id} is not executing`, { id });
      const view = this.view(got);
      await this.o.outbox.add(m, [this.event(EventTypes.approvalExecuted, view, meta, now)]);
      if (also) await also(m as EntityManager, now);
      return view;
    };
    // Inside the caller's transaction (`tx`), the caller commits and then tells the outbox.
    const v = tx ? await run(tx) : await this.fencedWrite(run);
    if (!tx) this.o.outbox.added();
    this.count(status);
    this.o.logger.info('approval executed', { approvalId: id, kind: v.kind, status, results: results.map((r) => `${r.node}:${r.outcome}:${r.reason}`).join(','), correlationId: meta.correlationId });
    return v;
  }

  /**
   * failInterrupted — approvals left `executing` by a run that died: the caller holds the lock every run holds, so
   * none of them is running. They end `failed` (reason `interrupted`): what they started is in their own records.
   */
  async failInterrupted(meta: CommandMeta, ids?: readonly string[]): Promise<number> {
    const rows: { id: string }[] = ids ? ids.map((id) => ({ id })) : await this.o.ds.query(`SELECT id FROM ${this.t} WHERE status = 'executing'`);
    let n = 0;
    for (const r of rows) {
      const done = await this.finish(r.id, [{ node: '*', outcome: 'failed', reason: 'interrupted', detail: 'the run executing this approval stopped before recording its results' }], meta).then(
        () => true,
        () => false,
      );
      if (done) n += 1;
    }
    return n;
  }
}

export { type ApprovalRules } from '@nodes-manager/disruption';
