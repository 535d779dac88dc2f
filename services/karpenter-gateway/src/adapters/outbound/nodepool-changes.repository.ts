import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { CommandMeta, EventType } from '@nodes-manager/contracts';
import { DATA_SOURCE, makeEvent, OUTBOX, type Outbox } from '@nodes-manager/platform';

/** NodePoolChange — one row of `nodes.nodepool_changes`. `result`: applied | dry-run | refused:<CODE>. */
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

/** Attempts at recording a change made in the cluster (backing off 200 ms, 400 ms, … between them). */
const RECORD_ATTEMPTS = 5;

/**
 * NodePoolChangesRepository — records every NodePool change with its actor, and its event in the outbox, in ONE
 * transaction (the event cannot exist without the row, nor the row without the event).
 */
@Injectable()
export class NodePoolChangesRepository {
  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX) private readonly outbox: Outbox,
  ) {}

  async record(change: NodePoolChange, event?: { type: EventType; data: unknown }): Promise<string> {
    const id = randomUUID();
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    // The change has already been made in the cluster: its record and event are retried before giving up, so a
    // brief database failure does not leave an applied change without its row and its event.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.write(id, change, json, event);
        break;
      } catch (err) {
        if (attempt >= RECORD_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
    if (event) this.outbox.added();
    return id;
  }

  /**
   * withPoolLock — runs `fn` holding a Postgres advisory lock of the pool, so two replicas never consolidate one pool
   * at the same time (each would read the budget before the other's deletions).
   */
  async withPoolLock<T>(pool: string, fn: () => Promise<T>): Promise<T> {
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query(`SELECT pg_advisory_lock(hashtext($1))`, [`nodes-manager.consolidate.${pool}`]);
      try {
        return await fn();
      } finally {
        await qr.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`nodes-manager.consolidate.${pool}`]).catch(() => undefined);
      }
    } finally {
      await qr.release();
    }
  }

  private async write(id: string, change: NodePoolChange, json: (v: unknown) => string | null, event?: { type: EventType; data: unknown }): Promise<void> {
    await this.ds.transaction(async (tx) => {
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
  }
}
