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
    if (event) this.outbox.added();
    return id;
  }
}
