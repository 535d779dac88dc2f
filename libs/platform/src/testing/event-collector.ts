import amqp from 'amqplib';
import { EVENTS_EXCHANGE, type CloudEvent } from '@nodes-manager/contracts';
import { TEST_RABBITMQ_URL } from './test-database.js';
import { waitFor } from './wait-for.js';

/**
 * EventCollector — a plain amqplib consumer on `nodes.events` (exclusive queue bound with `#`, or the patterns
 * given), as a downstream team would write it. Tests assert on what it received.
 */
export class EventCollector {
  readonly events: CloudEvent[] = [];
  /** When each of {@link events} arrived (ms since the epoch), index for index. */
  readonly receivedAt: number[] = [];
  /** The AMQP headers of each of {@link events} (the W3C trace context travels there), index for index. */
  readonly headers: Record<string, unknown>[] = [];
  private constructor(private readonly conn: amqp.ChannelModel) {}

  static async start(bindings: string[] = ['#'], url = TEST_RABBITMQ_URL): Promise<EventCollector> {
    const conn = await amqp.connect(url);
    conn.on('error', () => undefined);
    const c = new EventCollector(conn);
    const ch = await conn.createChannel();
    ch.on('error', () => undefined);
    await ch.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
    const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true });
    for (const b of bindings) await ch.bindQueue(queue, EVENTS_EXCHANGE, b);
    await ch.consume(queue, (msg) => {
      if (!msg) return;
      c.events.push(JSON.parse(msg.content.toString('utf8')));
      c.receivedAt.push(Date.now());
      c.headers.push((msg.properties.headers ?? {}) as Record<string, unknown>);
      ch.ack(msg);
    });
    return c;
  }

  ofType(type: string): CloudEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  waitFor(pred: (e: CloudEvent) => boolean, what: string, timeoutMs = 15_000): Promise<CloudEvent> {
    return waitFor(() => this.events.find(pred), what, timeoutMs);
  }

  async close(): Promise<void> {
    await this.conn.close().catch(() => undefined);
  }
}
