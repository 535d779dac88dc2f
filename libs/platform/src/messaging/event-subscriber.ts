import type { DataSource } from 'typeorm';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import {
  EVENTS_DEAD_LETTER_EXCHANGE,
  EVENTS_EXCHANGE,
  type CloudEvent,
  type ServiceName,
} from '@nodes-manager/contracts';
import { DB_SCHEMA, inboxTable } from '../database/database.js';
import type { AmqpConnection } from './amqp-connection.js';
import type { InProcessEventBus } from './in-process-bus.js';
import type { SqlRunner } from './outbox.js';
import type { JsonLogger } from '../logging/logger.js';

/** EventHandler — runs inside a transaction that also records the event id, so a redelivery is a no-op. */
export type EventHandler = (event: CloudEvent, tx: SqlRunner) => Promise<void>;

export interface EventSubscriber {
  subscribe(bindings: readonly string[], handler: EventHandler): Promise<void>;
  close(): Promise<void>;
}
export const EVENT_SUBSCRIBER = Symbol('EVENT_SUBSCRIBER');

export const MAX_EVENT_ATTEMPTS = 5;
const ATTEMPT_HEADER = 'x-nodes-manager-attempt';

/** subscriberQueue — a service's durable event queue, and its dead-letter queue. */
export const subscriberQueue = (service: ServiceName) => `nodes-manager.${service}.events`;
export const deadLetterQueue = (service: ServiceName) => `nodes-manager.${service}.events.dlq`;

/** processOnce — handler + inbox insert in one transaction; false when the event id was already processed. */
export async function processOnce(ds: DataSource, service: ServiceName, ev: CloudEvent, handler: EventHandler): Promise<boolean> {
  return ds.transaction(async (tx) => {
    const inserted: unknown[] = await tx.query(
      `INSERT INTO ${DB_SCHEMA}.${inboxTable(service)} (event_id, type) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING event_id`,
      [ev.id, ev.type],
    );
    if (inserted.length === 0) return false;
    await handler(ev, tx);
    return true;
  });
}

/**
 * AmqpEventSubscriber — one durable queue per service bound to `nodes.events` by routing pattern; manual acks with
 * a prefetch; idempotent on the CloudEvents id (inbox table); a failing event is retried up to
 * {@link MAX_EVENT_ATTEMPTS} times with back-off, then dead-lettered to `nodes-manager.<service>.events.dlq`.
 */
export class AmqpEventSubscriber implements EventSubscriber {
  private consumers: { ch: ConfirmChannel; tag: string }[] = [];
  private closed = false;

  constructor(
    private readonly connection: AmqpConnection,
    private readonly ds: DataSource,
    private readonly service: ServiceName,
    private readonly logger?: JsonLogger,
    private readonly prefetch = 20,
  ) {}

  /**
   * subscribe — declares and consumes the queue now and on every channel after a reconnection (the connection runs
   * the setup again): a subscription outlives its channel. A broker that is down now only delays the start.
   */
  async subscribe(bindings: readonly string[], handler: EventHandler): Promise<void> {
    await this.connection.addSetup((ch) => this.consume(ch, { bindings, handler }));
  }

  private async consume(ch: ConfirmChannel, sub: { bindings: readonly string[]; handler: EventHandler }): Promise<void> {
    if (this.closed) return;
    const queue = subscriberQueue(this.service);
    const dlq = deadLetterQueue(this.service);
    await ch.assertQueue(dlq, { durable: true });
    await ch.bindQueue(dlq, EVENTS_DEAD_LETTER_EXCHANGE, queue);
    await ch.assertQueue(queue, {
      durable: true,
      arguments: { 'x-dead-letter-exchange': EVENTS_DEAD_LETTER_EXCHANGE, 'x-dead-letter-routing-key': queue },
    });
    for (const b of sub.bindings) await ch.bindQueue(queue, EVENTS_EXCHANGE, b);
    await ch.prefetch(this.prefetch);
    // Acks go to the channel that delivered the message: a delivery tag means nothing on another channel.
    const { consumerTag } = await ch.consume(queue, (msg) => void this.onMessage(ch, msg, sub.handler), { noAck: false });
    this.consumers = this.consumers.filter((c) => c.ch === ch);
    this.consumers.push({ ch, tag: consumerTag });
  }

  private async onMessage(ch: ConfirmChannel, msg: ConsumeMessage | null, handler: EventHandler): Promise<void> {
    if (!msg) return;
    const settle = (f: () => void) => {
      try {
        f();
      } catch {
        /* the channel is gone: the broker redelivers, and the inbox makes that harmless */
      }
    };
    let ev: CloudEvent;
    try {
      ev = JSON.parse(msg.content.toString('utf8'));
      if (!ev || typeof ev.id !== 'string' || typeof ev.type !== 'string') throw new Error('not a CloudEvent');
    } catch (err) {
      this.logger?.warn('dead-lettering a message that is not a CloudEvent', { err: (err as Error).message });
      settle(() => ch.nack(msg, false, false));
      return;
    }
    try {
      await processOnce(this.ds, this.service, ev, handler);
      settle(() => ch.ack(msg));
    } catch (err) {
      const attempt = Number(msg.properties.headers?.[ATTEMPT_HEADER] ?? 1);
      if (attempt >= MAX_EVENT_ATTEMPTS) {
        this.logger?.error('event failed every attempt; dead-lettered', { eventId: ev.id, type: ev.type, err: (err as Error).message });
        settle(() => ch.nack(msg, false, false));
        return;
      }
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
      try {
        ch.sendToQueue(subscriberQueue(this.service), msg.content, {
          ...msg.properties,
          persistent: true,
          headers: { ...msg.properties.headers, [ATTEMPT_HEADER]: attempt + 1 },
        });
        await ch.waitForConfirms();
        settle(() => ch.ack(msg));
      } catch {
        /* the channel went away before the retry was queued: the original is redelivered */
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { ch, tag } of this.consumers) await ch.cancel(tag).catch(() => undefined);
    this.consumers = [];
  }
}

/** InProcessEventSubscriber — the same contract over the in-process bus (all-in-one mode without RabbitMQ). */
export class InProcessEventSubscriber implements EventSubscriber {
  constructor(
    private readonly bus: InProcessEventBus,
    private readonly ds: DataSource,
    private readonly service: ServiceName,
  ) {}
  async subscribe(bindings: readonly string[], handler: EventHandler): Promise<void> {
    this.bus.subscribe(bindings, async (ev) => {
      await processOnce(this.ds, this.service, ev, handler);
    });
  }
  async close(): Promise<void> {}
}
