import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { LIST_CURSORS, type CloudEvent } from '@nodes-manager/contracts';
import { CodedError, fenced, STALE_WRITE, withAdvisoryLock, type NotLocked, type Outbox } from '@nodes-manager/platform';
import type { DecisionDraft } from '../../domain/decisions.js';

export interface DecisionView {
  id: string;
  kind: string;
  subject: string;
  outcome: string;
  reason: string;
  rationale: string;
  score: number | null;
  details: Record<string, unknown>;
  actor: string;
  correlationId: string | null;
  createdAt: string;
}

export interface PlanRow {
  id: string;
  status: string;
  nodePool: string | null;
  plan: Record<string, unknown>;
  hourlySavingsUsd: number;
  monthlySavingsUsd: number;
  dryRun: boolean;
  actor: string;
  correlationId: string | null;
  createdAt: string;
  executedAt: string | null;
}

const DECISIONS_CURSOR = LIST_CURSORS['decisions'];

const T_DECISIONS = 'nodes.scheduling_decisions';
const T_PLANS = 'nodes.consolidation_plans';
/** The advisory lock every replica takes to execute a consolidation plan (`hashtext` of this key). */
export const EXECUTION_LOCK = 'nodes-manager.optimize.execute';

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

/** SchedulingRepository — `scheduling_decisions` and `consolidation_plans`; writes take the caller's transaction. */
export class SchedulingRepository {
  constructor(private readonly ds: DataSource) {}

  /** insertDecisions — one row per draft; returns them with ids. */
  async insertDecisions(tx: EntityManager, drafts: readonly DecisionDraft[], meta: { actor: string; correlationId: string; now: Date }): Promise<DecisionView[]> {
    if (drafts.length === 0) return [];
    // Same timestamp for a batch; the id breaks ties (newest first by (created_at, id) is a total order).
    const rows = drafts.map((d) => ({ ...d, id: randomUUID() }));
    await tx.query(
      `INSERT INTO ${T_DECISIONS} (id, kind, subject, outcome, reason, rationale, score, details, actor, correlation_id, created_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::jsonb[], $9::text[], $10::text[], $11::timestamptz[])`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.kind),
        rows.map((r) => r.subject),
        rows.map((r) => r.outcome),
        rows.map((r) => r.reason),
        rows.map((r) => r.rationale),
        rows.map((r) => r.score),
        rows.map((r) => JSON.stringify(r.details)),
        rows.map(() => meta.actor),
        rows.map(() => meta.correlationId),
        rows.map(() => meta.now.toISOString()),
      ],
    );
    return rows.map((r) => ({ ...r, actor: meta.actor, correlationId: meta.correlationId, createdAt: meta.now.toISOString() }));
  }

  /**
   * withoutRepeats — the drafts that are not an exact repeat of the last decision recorded for their kind and
   * subject (same outcome, reason and rationale): the loop records a decision when it changes, not every interval.
   */
  async withoutRepeats(tx: EntityManager, drafts: readonly DecisionDraft[]): Promise<DecisionDraft[]> {
    const out: DecisionDraft[] = [];
    for (const d of drafts) {
      const [last] = (await tx.query(
        `SELECT outcome, reason, rationale FROM ${T_DECISIONS} WHERE kind = $1 AND subject = $2 ORDER BY created_at DESC, id DESC LIMIT 1`,
        [d.kind, d.subject],
      )) as { outcome: string; reason: string; rationale: string }[];
      if (!last || last.outcome !== d.outcome || last.reason !== d.reason || last.rationale !== d.rationale) out.push(d);
    }
    return out;
  }

  /** listDecisions — newest first; filters kind and subject; cursor = the last row's (created_at, id). */
  async listDecisions(q: { limit: number; cursor?: string; kind?: string; subject?: string }): Promise<{ items: DecisionView[]; nextCursor?: string }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.kind) where.push(`kind = $${params.push(q.kind)}`);
    if (q.subject) where.push(`subject = $${params.push(q.subject)}`);
    if (q.cursor) {
      const [at, id] = DECISIONS_CURSOR.decode(q.cursor);
      where.push(`(created_at, id) < ($${params.push(at)}::timestamptz, $${params.push(id)}::uuid)`);
    }
    const rows: any[] = await this.ds.query(
      `SELECT * FROM ${T_DECISIONS} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $${params.push(q.limit + 1)}`,
      params,
    );
    const items = rows.slice(0, q.limit).map(
      (r): DecisionView => ({
        id: r.id,
        kind: r.kind,
        subject: r.subject,
        outcome: r.outcome,
        reason: r.reason,
        rationale: r.rationale,
        score: r.score,
        details: r.details,
        actor: r.actor,
        correlationId: r.correlation_id,
        createdAt: iso(r.created_at)!,
      }),
    );
    if (rows.length <= q.limit) return { items };
    const last = items[items.length - 1]!;
    return { items, nextCursor: DECISIONS_CURSOR.encode([last.createdAt, last.id]) };
  }

  /**
   * recordCycle — a scheduling cycle's record in one transaction: its decisions (with `skipRepeats`, a loop cycle's
   * decisions that repeat the latest one of their kind and subject are left out), its consolidation plan if any, and
   * the events `events` builds from the decision rows written, in the outbox. Returns the rows written.
   */
  recordCycle(
    drafts: readonly DecisionDraft[],
    o: { skipRepeats: boolean; meta: { actor: string; correlationId: string; now: Date }; plan?: Omit<PlanRow, 'createdAt' | 'executedAt'> & { now: Date } },
    outbox: Pick<Outbox, 'add'>,
    events: (rows: readonly DecisionView[]) => CloudEvent[],
  ): Promise<DecisionView[]> {
    return this.write('scheduling_decisions', async (tx) => {
      const fresh = o.skipRepeats ? await this.withoutRepeats(tx, drafts) : drafts;
      const rows = await this.insertDecisions(tx, fresh, o.meta);
      if (o.plan) await this.insertPlan(tx, o.plan);
      await outbox.add(tx, events(rows));
      return rows;
    });
  }

  /** recordExecution — an executed plan's record in one transaction: its decisions, the plan marked, their events. */
  async recordExecution(
    planId: string,
    status: string,
    execution: Record<string, unknown>,
    drafts: readonly DecisionDraft[],
    meta: { actor: string; correlationId: string; now: Date },
    outbox: Pick<Outbox, 'add'>,
    events: (rows: readonly DecisionView[]) => CloudEvent[],
  ): Promise<void> {
    await this.write('scheduling_decisions', async (tx) => {
      const rows = await this.insertDecisions(tx, drafts, meta);
      await this.markExecuted(tx, planId, status, execution, meta.now);
      await outbox.add(tx, events(rows));
    });
  }

  async insertPlan(tx: EntityManager, row: Omit<PlanRow, 'createdAt' | 'executedAt'> & { now: Date }): Promise<void> {
    await tx.query(
      `INSERT INTO ${T_PLANS} (id, status, node_pool, plan, hourly_savings_usd, monthly_savings_usd, dry_run, actor, correlation_id, created_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10)`,
      [row.id, row.status, row.nodePool, JSON.stringify(row.plan), row.hourlySavingsUsd, row.monthlySavingsUsd, row.dryRun, row.actor, row.correlationId, row.now.toISOString()],
    );
  }

  /** savePlan — one plan row in its own transaction (an `optimize.replace` request, recorded before its drains start). */
  async savePlan(row: Omit<PlanRow, 'createdAt' | 'executedAt'> & { now: Date }): Promise<void> {
    await this.write('consolidation_plans', (tx) => this.insertPlan(tx, row));
  }

  async markExecuted(tx: EntityManager, id: string, status: string, execution: Record<string, unknown>, now: Date): Promise<void> {
    await tx.query(`UPDATE ${T_PLANS} SET status = $2, executed_at = $3, plan = plan || jsonb_build_object('execution', $4::jsonb) WHERE id = $1`, [
      id,
      status,
      now.toISOString(),
      JSON.stringify(execution),
    ]);
  }

  /**
   * recordDrain — append one started drain to the plan's `execution.drained` at once (its own statement, not the
   * end-of-run transaction), so {@link recentDrainIds} counts it even if the run stops half-way.
   */
  async recordDrain(id: string, drain: { node: string; operationId: string; status: string }): Promise<void> {
    await this.write('consolidation_plans', (tx) => tx.query(
      `UPDATE ${T_PLANS}
          SET plan = jsonb_set(plan, '{execution}',
                COALESCE(plan->'execution', '{}'::jsonb)
                || jsonb_build_object('drained', COALESCE(plan->'execution'->'drained', '[]'::jsonb) || jsonb_build_array($2::jsonb)))
        WHERE id = $1`,
      [id, JSON.stringify(drain)],
    ));
  }

  /** recentDrainIds — drain operations started by plans made since `since`, each recorded as it started (to count those still running). */
  async recentDrainIds(since: Date): Promise<string[]> {
    const rows: { id: string }[] = await this.ds.query(
      `SELECT DISTINCT d->>'operationId' AS id FROM ${T_PLANS}, jsonb_array_elements(COALESCE(plan->'execution'->'drained', '[]'::jsonb)) AS d
       WHERE created_at >= $1 AND d ? 'operationId'`,
      [since.toISOString()],
    );
    return rows.map((r) => r.id);
  }

  /**
   * write — `fn` in one transaction fenced by the leader's term (docs/leader-election.md#terms): a deposed leader's
   * cycle or execution record is refused as a CONFLICT (a cycle skipped), with nothing written.
   */
  private async write<T>(table: string, fn: (tx: EntityManager) => Promise<T>): Promise<T> {
    const out = await fenced(this.ds, table, fn);
    if (out === STALE_WRITE) throw new CodedError('CONFLICT', `not recorded: this process no longer holds the leader's term`, { table });
    return out;
  }

  /**
   * withExecutionLock — `fn` under the cluster-wide execution lock ({@link EXECUTION_LOCK}, transaction-scoped:
   * `withAdvisoryLock`), so one replica executes at a time and OPTIMIZE_MAX_DISRUPTIONS holds across them;
   * NOT_LOCKED, with `fn` not run, while another run holds it. Should the process die, Postgres ends the transaction
   * and so the lock with the connection.
   */
  withExecutionLock<T>(fn: () => Promise<T>): Promise<T | NotLocked> {
    return withAdvisoryLock(this.ds, EXECUTION_LOCK, () => fn(), { wait: false });
  }

  async latestPlan(nodePool: string | null): Promise<PlanRow | undefined> {
    const rows: any[] = await this.ds.query(
      `SELECT * FROM ${T_PLANS} WHERE node_pool IS NOT DISTINCT FROM $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [nodePool],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      id: r.id,
      status: r.status,
      nodePool: r.node_pool,
      plan: r.plan,
      hourlySavingsUsd: r.hourly_savings_usd,
      monthlySavingsUsd: r.monthly_savings_usd,
      dryRun: r.dry_run,
      actor: r.actor,
      correlationId: r.correlation_id,
      createdAt: iso(r.created_at)!,
      executedAt: iso(r.executed_at),
    };
  }
}
