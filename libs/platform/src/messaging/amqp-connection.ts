import amqp from 'amqplib';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { EVENTS_DEAD_LETTER_EXCHANGE, EVENTS_EXCHANGE } from '@nodes-manager/contracts';
import type { JsonLogger } from '../logging/logger.js';

/**
 * AmqpConnection — one lazily opened connection with a confirm channel, reopened on demand after the broker goes
 * away. Callers that fail (broker down) simply retry later: the outbox keeps their events.
 */
export class AmqpConnection {
  private conn?: ChannelModel;
  private ch?: ConfirmChannel;
  private opening?: Promise<ConfirmChannel>;
  private closed = false;
  private readonly lostListeners: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly name: string,
    private readonly logger?: JsonLogger,
  ) {}

  get connected(): boolean {
    return this.ch !== undefined;
  }

  async channel(): Promise<ConfirmChannel> {
    if (this.ch) return this.ch;
    if (this.closed) throw new Error('connection closed');
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async open(): Promise<ConfirmChannel> {
    const conn = await amqp.connect(this.url, { clientProperties: { connection_name: this.name } });
    conn.on('error', () => undefined);
    conn.on('close', () => {
      if (this.conn === conn) {
        this.conn = undefined;
        this.ch = undefined;
        if (!this.closed) this.logger?.warn('broker connection lost', { connection: this.name });
      }
    });
    const ch = await conn.createConfirmChannel();
    ch.on('error', () => undefined);
    ch.on('close', () => {
      if (this.ch === ch) {
        this.ch = undefined;
        if (!this.closed) for (const l of this.lostListeners) l();
      }
    });
    await declareTopology(ch);
    this.conn = conn;
    this.ch = ch;
    return ch;
  }

  /** onLost — called when the open channel goes away (broker restart, network cut) while still in use. */
  onLost(fn: () => void): void {
    this.lostListeners.push(fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.conn;
    this.conn = undefined;
    this.ch = undefined;
    await c?.close().catch(() => undefined);
  }
}

/** declareTopology — the durable exchanges every publisher and subscriber relies on. */
export async function declareTopology(ch: { assertExchange: ConfirmChannel['assertExchange'] }): Promise<void> {
  await ch.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
  await ch.assertExchange(EVENTS_DEAD_LETTER_EXCHANGE, 'topic', { durable: true });
}
