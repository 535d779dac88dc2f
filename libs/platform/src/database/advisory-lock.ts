import type { DataSource, EntityManager } from 'typeorm';

/** NOT_LOCKED — what {@link withAdvisoryLock} answers, with `fn` not run, when `wait: false` and another holds the lock. */
export const NOT_LOCKED: unique symbol = Symbol('not locked');
export type NotLocked = typeof NOT_LOCKED;

export interface AdvisoryLockOptions {
  /** true (default): wait for the lock; false: answer {@link NOT_LOCKED} at once when another holds it. */
  readonly wait?: boolean;
}

/**
 * withAdvisoryLock — `fn` holding the Postgres advisory lock `hashtext(key)`, taken transaction-scoped
 * (`pg_advisory_xact_lock`, or `pg_try_advisory_xact_lock` with `wait: false`) in a transaction of its own. The lock
 * ends with that transaction — committed, rolled back, or its connection lost — so no path returns a pooled
 * connection that still holds it (a session lock whose unlock failed stays with the connection, and with whoever
 * borrows it next). `fn` gets the transaction: what it writes there commits when it returns, and is rolled back
 * when it throws. The connection is held for as long as `fn` runs (docs/leader-election.md#locks).
 */
export async function withAdvisoryLock<T>(ds: DataSource, key: string, fn: (tx: EntityManager) => Promise<T>, o: { wait: false }): Promise<T | NotLocked>;
export async function withAdvisoryLock<T>(ds: DataSource, key: string, fn: (tx: EntityManager) => Promise<T>, o?: { wait?: true }): Promise<T>;
export async function withAdvisoryLock<T>(ds: DataSource, key: string, fn: (tx: EntityManager) => Promise<T>, o: AdvisoryLockOptions = {}): Promise<T | NotLocked> {
  return ds.transaction(async (tx) => {
    if (o.wait === false) {
      const [row] = (await tx.query(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got`, [key])) as { got: boolean }[];
      if (!row?.got) return NOT_LOCKED;
    } else {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [key]);
    }
    return fn(tx);
  });
}
