import { randomUUID } from 'node:crypto';
import type { CloudEvent, ClusterIdentity, EventType, ServiceName } from '@nodes-manager/contracts';
import { EVENTS_EXCHANGE } from '@nodes-manager/contracts';
import { DB_SCHEMA, outboxTable } from '../database/database.js';
import { carrierOf, contextWithSpan, MESSAGING, SpanKind, startSpan, tracedContext, type TraceCarrier } from '../tracing/tracing.js';

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
 * OUTBOX_STATEMENT_EVENTS — events per INSERT: an `unnest()` statement's time grows faster than its arrays (measured:
 * 20,000 events in one statement took 2–4× as long as in statements of 500–2,000; docs/node-sync.md).
 */
export const OUTBOX_STATEMENT_EVENTS = 500;

/**
 * Outbox — events are written into the service's own outbox table in the same transaction as the state change
 * (pass the transaction's runner); {@link OutboxRelay} publishes them afterwards. A broker outage delays events and
 * never loses them.
 */
export class Outbox {
  readonly table: string;
  private readonly listeners: (() => void)[] = [];
  private readonly statementEvents: number;
  /**
   * `statementEvents` bounds the events one INSERT carries (default {@link OUTBOX_STATEMENT_EVENTS}): a caller that
   * adds 100,000 events at once (node-sync's first cycle) never has them all encoded into one statement.
   */
  /** The cluster stamped on every event it stores (CloudEvents extensions `clusterid`, `clustername`). */
  readonly cluster: ClusterIdentity;
  constructor(
    readonly service: ServiceName,
    o: { statementEvents?: number; cluster?: ClusterIdentity } = {},
  ) {
    this.cluster = o.cluster ?? { id: 'local', name: 'local' };
    this.table = `${DB_SCHEMA}.${outboxTable(service)}`;
    this.statementEvents = Math.max(1, o.statementEvents ?? OUTBOX_STATEMENT_EVENTS);
  }

  /**
   * add — the events, in the caller's transaction, in order, in statements of at most `statementEvents` each. When
   * the caller's work is traced, each event gets a PRODUCER span `create nodes.events` (child of the writer's span)
   * whose context is stored on its row: the relay's publish span links to it and the message carries it
   * (docs/observability.md).
   */
  async add(tx: SqlRunner, events: readonly CloudEvent[]): Promise<void> {
    const traced = tracedContext() !== undefined;
    for (let i = 0; i < events.length; i += this.statementEvents) await this.insert(tx, events.slice(i, i + this.statementEvents), traced);
  }

  /** insert — one statement: the events as arrays, one per column, with each event's creation span when traced. */
  private async insert(tx: SqlRunner, events: readonly CloudEvent[], traced: boolean): Promise<void> {
    const columns: [string, string, unknown[]][] = [
      ['id', 'uuid[]', events.map((e) => e.id)],
      ['type', 'text[]', events.map((e) => e.type)],
      ['payload', 'jsonb[]', events.map((e) => JSON.stringify({ ...e, clusterid: this.cluster.id, clustername: this.cluster.name }))],
      ['created_at', 'timestamptz[]', events.map((e) => e.time)],
    ];
    if (traced) columns.push(['trace_context', 'jsonb[]', events.map((e) => JSON.stringify(createSpan(e)))]);
    await tx.query(
      `INSERT INTO ${this.table} (${columns.map(([c]) => c).join(', ')})
       SELECT * FROM unnest(${columns.map(([, t], i) => `$${i + 1}::${t}`).join(', ')})`,
      columns.map(([, , values]) => values),
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

/** createSpan — an event's creation span (semantic conventions' `create`), ended at once: its context is what the row keeps. */
function createSpan(ev: CloudEvent): TraceCarrier | null {
  const span = startSpan(`create ${EVENTS_EXCHANGE}`, {
    kind: SpanKind.PRODUCER,
    attributes: {
      [MESSAGING.system]: 'rabbitmq',
      [MESSAGING.operationType]: 'create',
      [MESSAGING.operationName]: 'create',
      [MESSAGING.destination]: EVENTS_EXCHANGE,
      [MESSAGING.routingKey]: ev.type,
      [MESSAGING.messageId]: ev.id,
      'cloudevents.event_type': ev.type,
      ...(ev.subject ? { 'cloudevents.event_subject': ev.subject } : {}),
    },
  });
  span.end();
  return carrierOf(contextWithSpan(span)) ?? null;
}
