import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager } from 'typeorm';
import type { Metrics } from '../health/metrics.js';
import type { JsonLogger } from '../logging/logger.js';
import type { SqlRunner } from '../messaging/outbox.js';

/**
 * LEADER_TERMS — `nodes.leader_terms`: one row per leader lock, its `term` bumped by each process that takes the lock
 * (docs/leader-election.md#terms). A service that elects a leader creates it in one of its migrations.
 */
export const LEADER_TERMS = 'nodes.leader_terms';

/** STALE_WRITE — what {@link fenced} answers, with nothing written, when the writer's term is no longer current. */
export const STALE_WRITE: unique symbol = Symbol('stale write');
export type StaleWrite = typeof STALE_WRITE;

/**
 * WriteFence — the leader's term a reconcile writes under (its fencing token). `admit(tx, table)`, first in the write's
 * transaction, answers whether the term is still the lock's current one, and holds a share lock on the term's row
 * until the transaction ends: a new leader's term cannot be taken while the write is under way, and a write that
 * starts after it sees the new term and is refused. A refused write is counted in
 * `nodes_manager_stale_writes_total{table}` and logged (docs/leader-election.md#terms).
 */
export interface WriteFence {
  /** The term as a reconcile sees it (`ReconcileContext.term`); '' when unfenced. */
  readonly term: string;
  admit(tx: SqlRunner, table: string): Promise<boolean>;
}

/** UNFENCED — the fence of a write made outside any leader's term (a controller every replica runs, a command). */
export const UNFENCED: WriteFence = { term: '', admit: async () => true };

/** StaleWrites — counts and logs the writes a deposed leader tried, by table. */
export class StaleWrites {
  private readonly counter?: { inc(labels: Record<string, string>): void };
  constructor(
    private readonly service: string,
    metrics?: Metrics,
    private readonly logger?: JsonLogger,
  ) {
    this.counter = metrics?.counter('nodes_manager_stale_writes_total', "Writes refused because their leader's term was no longer current", ['table']);
  }

  refused(table: string, detail: { lock: string; term: number; current: number | null }): void {
    this.counter?.inc({ service: this.service, table });
    this.logger?.warn('stale write refused: this process no longer holds the term it wrote under', { table, ...detail });
  }
}

/** TermFence — the fence of one term of the lock `lock`. */
export class TermFence implements WriteFence {
  readonly term: string;
  constructor(
    readonly lock: string,
    readonly value: number,
    private readonly stale?: StaleWrites,
  ) {
    this.term = String(value);
  }

  async admit(tx: SqlRunner, table: string): Promise<boolean> {
    const rows = (await tx.query(`SELECT term FROM ${LEADER_TERMS} WHERE name = $1 FOR SHARE`, [this.lock])) as { term: string | number }[];
    const current = rows[0] ? Number(rows[0].term) : null;
    if (current === this.value) return true;
    this.stale?.refused(table, { lock: this.lock, term: this.value, current });
    return false;
  }
}

/** The fence of the reconcile whose work this is: the runtime runs each reconcile inside it ({@link withFence}). */
const scope = new AsyncLocalStorage<WriteFence>();

/** withFence — `fn`, and all the work it sets off, writing under `fence` (the runtime, around each reconcile). */
export function withFence<T>(fence: WriteFence, fn: () => T): T {
  return scope.run(fence, fn);
}

/** currentFence — the fence of the reconcile this work belongs to; {@link UNFENCED} outside any (a command, a read). */
export function currentFence(): WriteFence {
  return scope.getStore() ?? UNFENCED;
}

/**
 * fenced — `fn` in one transaction, after the fence admitted it: what `fn` answers, or {@link STALE_WRITE} with nothing
 * written when the writer's term has passed (counted under `table`). The fence is the reconcile's own (`ctx.fence`,
 * which the runtime also puts in the work's async context, so a repository needs no parameter for it); outside a
 * reconcile it is UNFENCED and `fenced` is a plain transaction. Every write a reconcile makes goes through here, so a
 * deposed leader's reconcile still in flight cannot overwrite its successor's rows (docs/leader-election.md#terms).
 */
export async function fenced<T>(ds: DataSource, table: string, fn: (tx: EntityManager) => Promise<T>, fence: WriteFence = currentFence()): Promise<T | StaleWrite> {
  return ds.transaction(async (tx) => ((await fence.admit(tx, table)) ? fn(tx) : STALE_WRITE));
}
