import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { EVENTS_EXCHANGE, type CloudEvent } from '@nodes-manager/contracts';
import type { JsonLogger } from '../logging/logger.js';
import type { AmqpConnection } from './amqp-connection.js';

/** EventConsumer — a running consumption of `nodes.events`; `close` cancels it and stops re-declaring it. */
export interface EventConsumer {
  close(): Promise<void>;
}

/**
 * consumeEvents — the one way this code base reads `nodes.events` (the gateway's live stream): a server-named,
 * exclusive, auto-deleted queue bound with `bindings`, on the process's one broker connection. It lives as long as
 * that connection, so a stopped process leaves nothing behind; the connection re-runs the declaration on every new
 * channel, so after a broker restart or a network cut a new queue is consumed again (events published while it was
 * away are not in it). Messages are acknowledged after `onEvent` returns; one that is not a CloudEvent is skipped.
 * Services themselves consume no events: they talk to each other with commands (docs/architecture.md#events).
 */
export async function consumeEvents(
  connection: AmqpConnection,
  bindings: readonly string[],
  onEvent: (event: CloudEvent) => void,
  o: { logger?: JsonLogger; prefetch?: number } = {},
): Promise<EventConsumer> {
  let current: { ch: ConfirmChannel; tag: string } | undefined;
  let closed = false;
  const onMessage = (ch: ConfirmChannel, msg: ConsumeMessage | null) => {
    if (!msg) return;
    try {
      const ev = JSON.parse(msg.content.toString('utf8')) as CloudEvent;
      if (ev && typeof ev.id === 'string' && typeof ev.type === 'string') onEvent(ev);
      else o.logger?.debug('skipped a message of nodes.events that is not a CloudEvent');
    } catch {
      o.logger?.debug('skipped a message of nodes.events that is not JSON');
    }
    try {
      ch.ack(msg);
    } catch {
      /* the channel is gone, and its exclusive queue with it */
    }
  };
  const remove = await connection.addSetup(async (ch) => {
    if (closed) return;
    const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    for (const b of bindings) await ch.bindQueue(queue, EVENTS_EXCHANGE, b);
    await ch.prefetch(o.prefetch ?? 100);
    const { consumerTag } = await ch.consume(queue, (msg) => onMessage(ch, msg), { noAck: false });
    current = { ch, tag: consumerTag };
    o.logger?.debug('consuming nodes.events', { queue, bindings });
  });
  return {
    async close() {
      closed = true;
      remove();
      const c = current;
      current = undefined;
      await c?.ch.cancel(c.tag).catch(() => undefined);
    },
  };
}
