import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { CommandMeta, EventType } from '@nodes-manager/contracts';
import { CLOCK, CodedError, DATA_SOURCE, fenced, makeEvent, OUTBOX, retryOnClock, STALE_WRITE, withAdvisoryLock, type Clock, type Outbox } from '@nodes-manager/platform';

/** NodePoolChange — one row of `nodes.nodepool_changes`. `result`: applied | dry_run | partial | awaiting_approval | refused:<CODE>. */
export interface NodePoolChange {
  nodePool: string;
  action: 'create' | 'update' | 'delete' | 'consolidate';
  meta: CommandMeta;
  dryRun: boolean;
  request: unknown;
  before: unknown;
  after: unknown;
  result: string;
  now: Date;
}

/** Attempts at recording a change made in the cluster, backing off about 200 ms, 400 ms, 800 ms, 1.6 s between them. */
const RECORD_ATTEMPTS = 5;
const RECORD_BACKOFF = { baseMs: 200, maxMs: 1_600 };

/**
 * NodePoolChangesRepository — records every NodePool change with its actor, and its event in the outbox, in ONE
 * transaction (the event cannot exist without the row, nor the row without the event).
 */
@Injectable()
export class NodePoolChangesRepository {
  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX) private readonly outbox: Outbox,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async record(change: NodePoolChange, event?: { type: EventType; data: unknown }): Promise<string> {
    const id = randomUUID();
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    // The change has already been made in the cluster: its record and event are retried (on the Clock, with the
    // runtime's back-off) before giving up, so a brief database failure does not leave an applied change without its
    // row and its event. The caller waits: it answers whether the change was recorded.
    await retryOnClock(this.clock, () => this.write(id, change, json, event), { attempts: RECORD_ATTEMPTS, backoff: RECORD_BACKOFF });
    if (event) this.outbox.added();
    return id;
  }

  /**
   * withPoolLock — runs `fn` holding a Postgres advisory lock of the pool, so two replicas never consolidate one pool
   * at the same time (each would read the budget before the other's deletions); transaction-scoped
   * (`withAdvisoryLock`), so the lock never outlives the call on a pooled connection.
   */
  withPoolLock<T>(pool: string, fn: () => Promise<T>): Promise<T> {
    return withAdvisoryLock(this.ds, `nodes-manager.consolidate.${pool}`, () => fn());
  }

  private async write(id: string, change: NodePoolChange, json: (v: unknown) => string | null, event?: { type: EventType; data: unknown }): Promise<void> {
    const written = await fenced(this.ds, 'nodepool_changes', async (tx) => {
      await tx.query(
        `INSERT INTO nodes.nodepool_changes (id, node_pool, action, actor, correlation_id, dry_run, request, before, after, result, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::jsonb, $10, $11)`,
        [id, change.nodePool, change.action, change.meta.actor, change.meta.correlationId, change.dryRun, json(change.request) ?? '{}', json(change.before), json(change.after), change.result, change.now],
      );
      if (event) {
        await this.outbox.add(tx, [
          makeEvent('karpenter-gateway', event.type, event.data, change.now, {
            actor: change.meta.actor,
            correlationId: change.meta.correlationId,
            subject: change.nodePool,
          }),
        ]);
      }
    });
    // A deposed leader's record (an approval it carried out) is refused as a CONFLICT (docs/leader-election.md#terms).
    if (written === STALE_WRITE) throw new CodedError('CONFLICT', `NodePool change not recorded: this process no longer holds the leader's term`, { nodePool: change.nodePool });
  }
}
