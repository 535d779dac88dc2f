import { describe, expect, it } from '@jest/globals';
import { FakeClock } from '../src/clock/fake-clock.js';
import { AmqpConnection } from '../src/messaging/amqp-connection.js';
import { rmqServer } from '../src/messaging/commands.js';
import { RmqCommandBus } from '../src/messaging/rmq-command-bus.js';
import { TEST_RABBITMQ_URL } from '@nodes-manager/platform/testing';

/**
 * Whether a service is there is asked of the broker (its queue's consumers) before each command. A service that
 * started a moment after its caller's first ask was reported down until the answer aged out (2 s): a caller's first
 * disruptive action after a start was refused as "pause state unknown" (seen in the least-privilege e2e). A
 * consumer seen is remembered for `presenceTtlMs`; an absence is not remembered at all.
 */
describe('RmqCommandBus: is the service there', () => {
  it('sees a service from the moment it consumes, and remembers a consumer seen for the TTL only', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const conn = new AmqpConnection(TEST_RABBITMQ_URL, 'presence-test');
    const bus = new RmqCommandBus(conn, 5_000, clock, undefined, 2_000);
    let server: ReturnType<typeof rmqServer> | undefined = rmqServer('spot-advisor', TEST_RABBITMQ_URL);
    try {
      expect(await bus.consumers('spot-advisor')).toBe(0);
      await new Promise<void>((resolve, reject) => server!.listen((err?: unknown) => (err ? reject(err) : resolve())));
      // The same instant on the clock: an absence seen a moment ago does not hide the consumer.
      expect(await bus.consumers('spot-advisor')).toBe(1);
      await server.close();
      server = undefined;
      // A consumer seen is remembered until the TTL is over, then asked again.
      expect(await bus.consumers('spot-advisor')).toBe(1);
      clock.advance(2_000);
      expect(await bus.consumers('spot-advisor')).toBe(0);
    } finally {
      await server?.close();
      await conn.close();
    }
  }, 30_000);
});
