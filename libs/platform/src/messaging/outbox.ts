import { randomUUID } from 'node:crypto';
import type { CloudEvent, EventType, ServiceName } from '@nodes-manager/contracts';
import { DB_SCHEMA, inboxTable, outboxTable } from '../database/database.js';

/** SqlRunner — anything that runs SQL inside the caller's transaction (TypeORM EntityManager or QueryRunner). */
export interface SqlRunner {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

export interface EventMeta {
  actor?: string;
  correlationId?: string;
  subject?: string;
}

/** makeEvent — a CloudEvents 1.0 envelope; `now` comes from the caller's clock. */
export function makeEvent<T>(service: ServiceName, type: EventType, data: T, now: Date, meta: EventMeta = {}): CloudEvent<T> {
  const ev: CloudEvent<T> = {
    specversion: '1.0',
    id: randomUUID(),
    source: `nodes-manager/${service}`,
    type,
    time: now.toISOString(),
    datacontenttype: 'application/json',
    data,
  };
  if (meta.subject) ev.subject = meta.subject;
  if (meta.actor) ev.actor = meta.actor;
  if (meta.correlationId) ev.correlationid = meta.correlationId;
  return ev;
}

/**
 * Outbox — events are written into the service's own outbox table in the same transaction as the state change
 * (pass the transaction's runner); {@link OutboxRelay} publishes them afterwards. A broker outage delays events and
 * never loses them.
 */
export class Outbox {
  readonly table: string;
  private readonly listeners: (() => void)[] = [];
  constructor(readonly service: ServiceName) {
    this.table = `${DB_SCHEMA}.${outboxTable(service)}`;
  }

  async add(tx: SqlRunner, events: readonly CloudEvent[]): Promise<void> {
    if (events.length === 0) return;
    await tx.query(
      `INSERT INTO ${this.table} (id, type, payload, created_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::timestamptz[])`,
      [events.map((e) => e.id), events.map((e) => e.type), events.map((e) => JSON.stringify(e)), events.map((e) => e.time)],
    );
  }

  /** added — call after the transaction commits so the relay publishes without waiting for its next poll. */
  added(): void {
    for (const l of this.listeners) l();
  }
  onAdded(fn: () => void): void {
    this.listeners.push(fn);
  }
}

/**
 * outboxClaimsDdl — the relay's claim on a batch (docs/reliability.md, "Events"), added to every service's outbox by
 * a migration of its own after the first.
 */
export function outboxClaimsDdl(service: string): { up: string[]; down: string[] } {
  const o = `${DB_SCHEMA}.${outboxTable(service)}`;
  return {
    up: [`ALTER TABLE ${o} ADD COLUMN claimed_by text, ADD COLUMN claimed_until timestamptz`],
    down: [`ALTER TABLE ${o} DROP COLUMN claimed_until, DROP COLUMN claimed_by`],
  };
}

/** outboxDdl — the DDL of a service's outbox and inbox tables, used by each service's first migration. */
export function outboxDdl(service: string): { up: string[]; down: string[] } {
  const o = `${DB_SCHEMA}.${outboxTable(service)}`;
  const i = `${DB_SCHEMA}.${inboxTable(service)}`;
  return {
    up: [
      `CREATE TABLE ${o} (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        last_error text
      )`,
      `CREATE INDEX ${outboxTable(service)}_pending ON ${o} (seq) WHERE sent_at IS NULL`,
      `CREATE TABLE ${i} (
        event_id uuid PRIMARY KEY,
        type text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now()
      )`,
    ],
    down: [`DROP TABLE ${i}`, `DROP TABLE ${o}`],
  };
}
