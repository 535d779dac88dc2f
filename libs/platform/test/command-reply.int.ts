import { describe, expect, it } from '@jest/globals';
import { RmqContext } from '@nestjs/microservices';
import amqp from 'amqplib';
import { serviceQueue } from '@nodes-manager/contracts';
import { TcpProxy, TEST_RABBITMQ_URL, waitFor } from '@nodes-manager/platform/testing';
import { rmqServer } from '../src/messaging/commands.js';

/**
 * A command's reply is published on Nest's confirm channel and nobody waits for it; a broker connection reset before
 * its confirm used to reject that publish unhandled, which ends a process ("channel closed"). Now it is logged.
 */
describe("a command's reply lost with the broker connection", () => {
  it('does not leave a rejected publish behind', async () => {
    const proxy = await TcpProxy.forUrl(TEST_RABBITMQ_URL);
    const server = rmqServer('spot-advisor', proxy.url(TEST_RABBITMQ_URL));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await new Promise<void>((resolve, reject) => server.listen((err?: unknown) => (err ? reject(err) : resolve())));
      await waitFor(() => proxy.open > 0 || undefined, 'the server connected');
      await new Promise((r) => setTimeout(r, 1_000)); // its channel set up (queue, prefetch, consumer)
      // The broker's confirms now take long: the reply below is still unconfirmed when the connection is reset.
      proxy.delay(400);
      await new Promise((r) => setTimeout(r, 100));
      server.sendMessage({ response: { ok: true }, isDisposed: true }, 'nodes-manager.reply-test', 'c-1', new RmqContext([{}, {}, 'p']));
      await new Promise((r) => setTimeout(r, 50));
      proxy.reset();
      await new Promise((r) => setTimeout(r, 1_000));
      expect(unhandled.map((e) => String(e))).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await server.close();
      await proxy.stop();
    }
  }, 30_000);
});

/**
 * The command server's channel is set up by Nest's connection manager: a broker connection reset while that setup
 * waits on the broker (the queue asserted, the consumer started) fails it with "Channel ended, no reply will be
 * forthcoming", and the manager's channel wrapper emits that as `error` — with nobody listening, the process ended
 * (seen in the fault suite's broker resets). Now it is logged and the channel is set up on the next connection.
 */
describe("the command server's channel setup cut by a broker reset", () => {
  it('leaves nothing unhandled and consumes again once the broker is back', async () => {
    const proxy = await TcpProxy.forUrl(TEST_RABBITMQ_URL);
    const server = rmqServer('spot-advisor', proxy.url(TEST_RABBITMQ_URL));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    const probe = await amqp.connect(TEST_RABBITMQ_URL);
    try {
      // Every round trip to the broker takes 400 ms, so the setup is still waiting on it when the link is reset.
      proxy.delay(200);
      const listening = new Promise<void>((resolve, reject) => server.listen((err?: unknown) => (err ? reject(err) : resolve())));
      // The setup has begun once the server holds its raw channel (DrainableServerRmq.setupChannel).
      await waitFor(() => (server as unknown as { raw?: unknown }).raw, 'the channel setup to begin', 20_000, 20);
      proxy.reset();
      proxy.delay(0);
      await listening;
      const ch = await probe.createChannel();
      await waitFor(async () => ((await ch.checkQueue(serviceQueue('spot-advisor'))).consumerCount > 0) || undefined, 'the server to consume again', 20_000);
      expect(unhandled.map((e) => String(e))).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      process.off('uncaughtException', onUnhandled);
      await probe.close();
      await server.close();
      await proxy.stop();
    }
  }, 60_000);
});
