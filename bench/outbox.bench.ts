/**
 * Outbox relay benchmark: publishing persistent 1 KiB CloudEvents to `nodes.events` on the real broker, awaiting each
 * publisher confirm (baseline) versus a window of CONFIRM_WINDOW outstanding confirms (what AmqpEventPublisher does),
 * and the whole relay (outbox rows → broker → marked sent) on the real database. Prints JSON.
 *
 *   npm run build && node dist/bench/outbox.bench.js [--events 5000]
 */
import amqp from 'amqplib';
import {
  AmqpConnection,
  AmqpEventPublisher,
  CONFIRM_WINDOW,
  createDataSource,
  makeEvent,
  Outbox,
  OutboxRelay,
  runMigrations,
  SystemClock,
} from '@nodes-manager/platform';
import { createTestDatabase, TEST_RABBITMQ_URL } from '@nodes-manager/platform/testing';
import { EVENTS_EXCHANGE, type CloudEvent } from '@nodes-manager/contracts';
import { migrations as uncordonMigrations } from '../migrations/uncordon/index.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('events', 5000);
const payload = 'x'.repeat(900);
const events = (n: number): CloudEvent[] =>
  Array.from({ length: n }, (_, i) => makeEvent('uncordon', 'node.uncordoned', { node: `n-${i}`, pad: payload }, new Date(), { actor: 'bench' }));

async function main() {
  const results: Record<string, unknown> = { events: N, confirmWindow: CONFIRM_WINDOW };
  // A throwaway queue bound to a key nobody else uses keeps the broker honest (messages are routed and stored).
  const conn = await amqp.connect(TEST_RABBITMQ_URL);
  const ch = await conn.createConfirmChannel();
  await ch.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
  const { queue } = await ch.assertQueue('', { exclusive: true });
  await ch.bindQueue(queue, EVENTS_EXCHANGE, 'node.uncordoned');

  const baseline = events(Math.min(N, 2000));
  let t = process.hrtime.bigint();
  for (const ev of baseline) {
    await new Promise<void>((res, rej) =>
      ch.publish(EVENTS_EXCHANGE, ev.type, Buffer.from(JSON.stringify(ev)), { persistent: true }, (err) => (err ? rej(err) : res())),
    );
  }
  const awaitEachPerSec = baseline.length / (Number(process.hrtime.bigint() - t) / 1e9);

  const amqpConn = new AmqpConnection(TEST_RABBITMQ_URL, 'bench');
  const publisher = new AmqpEventPublisher(amqpConn);
  const windowed = events(N);
  await publisher.publish(windowed.slice(0, 10));
  t = process.hrtime.bigint();
  await publisher.publish(windowed);
  const windowPerSec = N / (Number(process.hrtime.bigint() - t) / 1e9);
  results['awaitEachConfirmPerSec'] = Math.round(awaitEachPerSec);
  results['windowedConfirmsPerSec'] = Math.round(windowPerSec);
  results['windowedVsAwaitEach'] = Number((windowPerSec / awaitEachPerSec).toFixed(1));

  // The relay end to end: N committed outbox rows → published with confirms → marked sent.
  const db = await createTestDatabase('nm_bench');
  const spec = { service: 'uncordon', url: db.url, entities: [], migrations: uncordonMigrations };
  const ds = createDataSource(spec);
  await ds.initialize();
  await runMigrations(ds, spec);
  const outbox = new Outbox('uncordon');
  await ds.transaction((tx) => outbox.add(tx, events(N)));
  const relay = new OutboxRelay(ds, outbox, publisher, new SystemClock(), undefined, { batchSize: 500 });
  t = process.hrtime.bigint();
  while ((await relay.relayOnce()) > 0) {
    /* drain */
  }
  const relayPerSec = N / (Number(process.hrtime.bigint() - t) / 1e9);
  results['relayEndToEndPerSec'] = Math.round(relayPerSec);
  results['pendingAfter'] = (await relay.backlog()).pending;

  await ds.destroy();
  await db.drop();
  await amqpConn.close();
  await conn.close();
  process.stdout.write(JSON.stringify({ bench: 'outbox', ...results }, null, 2) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err) + '\n');
  process.exit(1);
});
