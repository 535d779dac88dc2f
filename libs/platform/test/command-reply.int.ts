import { describe, expect, it } from '@jest/globals';
import { RmqContext } from '@nestjs/microservices';
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
