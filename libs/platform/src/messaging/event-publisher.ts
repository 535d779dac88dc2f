import type { CloudEvent } from '@nodes-manager/contracts';
import { EVENTS_EXCHANGE } from '@nodes-manager/contracts';
import type { AmqpConnection } from './amqp-connection.js';

/**
 * EventPublisher — delivers events; resolves only when every one is safely accepted (broker confirm). `traces[i]`,
 * when given, is event i's W3C trace context (its creation span's, from the outbox row), sent as AMQP headers.
 */
export interface EventPublisher {
  publish(events: readonly CloudEvent[], traces?: readonly (Record<string, string> | null | undefined)[]): Promise<void>;
}
export const EVENT_PUBLISHER = Symbol('EVENT_PUBLISHER');

/** CONFIRM_WINDOW — publishes in flight before waiting for confirms (≈ 10× awaiting each one; see bench). */
export const CONFIRM_WINDOW = 100;
/** A publish whose confirm has not arrived by then fails (a black-holed link must not hold the relay forever). */
export const CONFIRM_TIMEOUT_MS = 15_000;

/**
 * AmqpEventPublisher — persistent CloudEvents (structured JSON) on the `nodes.events` topic exchange, routing key =
 * event type, published with a window of outstanding publisher confirms. A nack or a lost channel rejects the
 * whole call so the outbox keeps the rows for the next attempt (a redelivery is harmless: consumers dedupe on id).
 */
export class AmqpEventPublisher implements EventPublisher {
  constructor(private readonly connection: AmqpConnection) {}

  async publish(events: readonly CloudEvent[], traces?: readonly (Record<string, string> | null | undefined)[]): Promise<void> {
    if (events.length === 0) return;
    const ch = await this.connection.channel();
    // A sliding window: at most CONFIRM_WINDOW publishes await their confirm at any time; the first failure rejects.
    let inFlight = 0;
    let failed: Error | undefined;
    let wake: (() => void) | undefined;
    const settled = () => {
      inFlight--;
      wake?.();
    };
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        failed ??= new Error(`broker did not confirm ${events.length} event(s) within ${CONFIRM_TIMEOUT_MS} ms`);
        wake?.();
        resolve();
      }, CONFIRM_TIMEOUT_MS);
      timer.unref();
    });
    const pending: Promise<void>[] = [];
    for (const [i, ev] of events.entries()) {
      const headers = traces?.[i];
      while (inFlight >= CONFIRM_WINDOW && !failed) await new Promise<void>((r) => (wake = r));
      if (failed) break;
      inFlight++;
      pending.push(
        new Promise<void>((resolve) => {
          ch.publish(
            EVENTS_EXCHANGE,
            ev.type,
            Buffer.from(JSON.stringify(ev)),
            {
              persistent: true,
              contentType: 'application/cloudevents+json',
              messageId: ev.id,
              type: ev.type,
              appId: ev.source,
              timestamp: Math.floor(new Date(ev.time).getTime() / 1000),
              ...(headers ? { headers } : {}),
            },
            (err) => {
              if (err) failed ??= new Error(`broker refused event ${ev.id}`);
              settled();
              resolve();
            },
          );
        }),
      );
    }
    await Promise.race([Promise.all(pending), timedOut]);
    clearTimeout(timer);
    if (failed) throw failed;
  }
}
