import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  AmqpConnection,
  AmqpEventPublisher,
  consumeEvents,
  createDataSource,
  makeEvent,
  Outbox,
  OutboxRelay,
  runMigrations,
  SystemClock,
  type ServiceDatabaseSpec,
} from '@nodes-manager/platform';
import { createTestDatabase, EventCollector, TcpProxy, TEST_RABBITMQ_URL, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { migrations as uncordonMigrations } from '../../../migrations/uncordon/index.js';

/** A state table beside uncordon's real schema (its outbox among it), as every service changes state and outbox together. */
class OutboxTestWidgets1799999999001 implements MigrationInterface {
  name = 'OutboxTestWidgets1799999999001';
  async up(q: QueryRunner) {
    await q.query(`CREATE TABLE nodes.widgets (id int PRIMARY KEY, label text NOT NULL)`);
  }
  async down() {}
}

let db: TestDatabase;
let ds: DataSource;
let spec: ServiceDatabaseSpec;

beforeAll(async () => {
  db = await createTestDatabase();
  spec = { service: 'uncordon', url: db.url, entities: [], migrations: [...uncordonMigrations, OutboxTestWidgets1799999999001] };
  ds = createDataSource(spec);
  await ds.initialize();
  await runMigrations(ds, spec);
});
afterAll(async () => {
  await ds.destroy();
  await db.drop();
});

/** changeState — the pattern every service follows: the row and its event commit together. */
async function changeState(outbox: Outbox, id: number, runId: string) {
  const ev = makeEvent('uncordon', 'node.uncordoned', { node: `n-${id}`, runId }, new Date(), { actor: 'test' });
  await ds.transaction(async (tx) => {
    await tx.query(`INSERT INTO nodes.widgets (id, label) VALUES ($1, $2)`, [id, runId]);
    await outbox.add(tx, [ev]);
  });
  outbox.added();
  return ev;
}

describe('Outbox.add', () => {
  it('writes many events in bounded statements, in order, in the caller\'s transaction', async () => {
    const outbox = new Outbox('uncordon', { statementEvents: 4 });
    const runId = `bounded-${Math.random().toString(36).slice(2)}`;
    const events = Array.from({ length: 10 }, (_, i) => makeEvent('uncordon', 'node.uncordoned', { node: `n-${i}`, runId }, new Date(), { subject: `n-${i}` }));
    const inserts: number[] = [];
    await ds.transaction(async (tx) => {
      // The real transaction, with each statement's event count noted as it passes.
      const counting = { query: (sql: string, params?: unknown[]) => (inserts.push((params?.[0] as unknown[]).length), tx.query(sql, params)) };
      await outbox.add(counting, events);
    });
    expect(inserts).toEqual([4, 4, 2]);
    const rows = await db.query<{ subject: string }>(`SELECT payload->>'subject' AS subject FROM nodes.outbox_uncordon WHERE payload->'data'->>'runId' = $1 ORDER BY seq`, [runId]);
    expect(rows.map((r) => r.subject)).toEqual(events.map((e) => e.subject));
  });

  it('stamps every stored event with the cluster it was written in (CloudEvents extensions clusterid, clustername)', async () => {
    const arn = 'arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu-1';
    const outbox = new Outbox('uncordon', { cluster: { id: arn, name: 'prod-eu-1' } });
    const runId = `cluster-${Math.random().toString(36).slice(2)}`;
    await ds.transaction((tx) => outbox.add(tx, [makeEvent('uncordon', 'node.uncordoned', { node: 'n-0', runId }, new Date())]));
    const rows = await db.query<{ id: string; name: string }>(`SELECT payload->>'clusterid' AS id, payload->>'clustername' AS name FROM nodes.outbox_uncordon WHERE payload->'data'->>'runId' = $1`, [runId]);
    expect(rows).toEqual([{ id: arn, name: 'prod-eu-1' }]);
  });

  it('a failed statement rolls back every event of the call with the transaction', async () => {
    const outbox = new Outbox('uncordon', { statementEvents: 2 });
    const runId = `rolled-back-${Math.random().toString(36).slice(2)}`;
    const good = Array.from({ length: 3 }, (_, i) => makeEvent('uncordon', 'node.uncordoned', { node: `n-${i}`, runId }, new Date()));
    // The fourth event reuses the first's id: its statement (the second) fails on the primary key.
    const events = [...good, { ...good[0]! }];
    await expect(ds.transaction((tx) => outbox.add(tx, events))).rejects.toThrow();
    const rows = await db.query(`SELECT 1 FROM nodes.outbox_uncordon WHERE payload->'data'->>'runId' = $1`, [runId]);
    expect(rows).toEqual([]);
  });
});

describe('outbox and relay against the real broker', () => {
  it('with the broker unreachable, state changes commit and events wait; when it returns each event is delivered once', async () => {
    const runId = `run-${Math.random().toString(36).slice(2)}`;
    const collector = await EventCollector.start(['#']);
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(TEST_RABBITMQ_URL).port || 5672));
    const conn = new AmqpConnection(proxy.url(TEST_RABBITMQ_URL), 'outbox-test');
    const outbox = new Outbox('uncordon');
    const relay = new OutboxRelay(ds, outbox, new AmqpEventPublisher(conn), new SystemClock(), undefined, { pollMs: 100, maxBackoffMs: 300 });
    relay.start();
    try {
      const first = await changeState(outbox, 1, runId);
      await collector.waitFor((e) => e.id === first.id, 'the first event while the broker is up');

      proxy.cut();
      const during = [];
      for (let i = 2; i <= 21; i++) during.push(await changeState(outbox, i, runId));
      // Every state change committed although nothing could be published.
      expect((await db.query(`SELECT count(*)::int AS n FROM nodes.widgets WHERE label = $1`, [runId]))[0]).toEqual({ n: 21 });
      await new Promise((r) => setTimeout(r, 800));
      const backlog = await relay.backlog();
      expect(backlog.pending).toBe(20);
      expect(collector.events.filter((e) => (e.data as { runId?: string }).runId === runId)).toHaveLength(1);

      proxy.restore();
      await waitFor(
        () => collector.events.filter((e) => (e.data as { runId?: string }).runId === runId).length >= 21,
        'all 21 events after the broker returns',
        20_000,
      );
      await new Promise((r) => setTimeout(r, 500));
      const mine = collector.events.filter((e) => (e.data as { runId?: string }).runId === runId);
      const ids = mine.map((e) => e.id);
      expect(new Set(ids).size).toBe(21);
      expect(ids.length).toBe(21);
      expect(new Set(ids)).toEqual(new Set([first, ...during].map((e) => e.id)));
      expect((await relay.backlog()).pending).toBe(0);
      // CloudEvents 1.0 structured mode, routed by type.
      expect(mine[0]).toMatchObject({ specversion: '1.0', source: 'nodes-manager/uncordon', type: 'node.uncordoned', datacontenttype: 'application/json', actor: 'test' });
    } finally {
      await relay.stop();
      await conn.close();
      await proxy.stop();
      await collector.close();
    }
  }, 60_000);

  /**
   * twoReplicas — replica A relays through its own pool behind a fault proxy (its database link can be cut), replica
   * B through the suite's pool; both publish to the real broker, and a plain consumer records what arrives of `runId`.
   */
  async function twoReplicas(runId: string) {
    const collector = await EventCollector.start(['#']);
    const pg = await TcpProxy.forUrl(db.url);
    const dsA = createDataSource({ ...spec, url: pg.url(db.url) });
    await dsA.initialize();
    const conn = new AmqpConnection(TEST_RABBITMQ_URL, `outbox-replicas-${runId}`);
    return {
      pg,
      dsA,
      broker: new AmqpEventPublisher(conn),
      relayB: new OutboxRelay(ds, new Outbox('uncordon'), new AmqpEventPublisher(conn), new SystemClock()),
      seen: () => collector.events.filter((e) => (e.data as { runId?: string }).runId === runId),
      async close() {
        await dsA.destroy().catch(() => undefined);
        await conn.close();
        await pg.stop();
        await collector.close();
      },
    };
  }

  it('two replicas relay one outbox: when the first loses its database right after the broker confirmed a batch, the other republishes nothing and the first marks it sent once back', async () => {
    const runId = `claim-${Math.random().toString(36).slice(2)}`;
    const r = await twoReplicas(runId);
    // Replica A's publisher is the real one; its database link goes the instant the broker has confirmed.
    let cutAfterConfirm = true;
    const publisherA = {
      publish: async (events: Parameters<AmqpEventPublisher['publish']>[0]) => {
        await r.broker.publish(events);
        if (cutAfterConfirm && events.length > 0) r.pg.cut();
        cutAfterConfirm = false;
      },
    };
    const relayA = new OutboxRelay(r.dsA, new Outbox('uncordon'), publisherA, new SystemClock());
    try {
      const outbox = new Outbox('uncordon');
      const made = [];
      for (let i = 101; i <= 105; i++) made.push(await changeState(outbox, i, runId));
      await expect(relayA.relayOnce()).rejects.toThrow();
      await waitFor(() => r.seen().length === 5 || undefined, 'the five confirmed events');
      // The rows are A's claim: B, whose database is fine, leaves them alone.
      expect(await r.relayB.relayOnce()).toBe(0);
      const [claim] = await db.query<{ n: number; by: string }>(`SELECT count(*)::int AS n, min(claimed_by) AS by FROM nodes.outbox_uncordon WHERE sent_at IS NULL`);
      expect(claim).toEqual({ n: 5, by: relayA.relayId });
      r.pg.restore();
      expect(await relayA.relayOnce()).toBe(5);
      expect(relayA.stats).toMatchObject({ published: 5, duplicatesAvoided: 5 });
      await new Promise((res) => setTimeout(res, 500));
      expect(r.seen().map((e) => e.id)).toEqual(made.map((e) => e.id));
      expect((await r.relayB.backlog()).pending).toBe(0);
    } finally {
      await r.close();
    }
  }, 60_000);

  it('a claim lapses: rows claimed by a relay that never came back are published by another once the claim is over', async () => {
    const runId = `lapse-${Math.random().toString(36).slice(2)}`;
    const r = await twoReplicas(runId);
    // Replica A claims a batch, then loses its database and never publishes (as a process that died would).
    const dying = {
      publish: async () => {
        r.pg.cut();
        throw new Error('gone');
      },
    };
    const relayA = new OutboxRelay(r.dsA, new Outbox('uncordon'), dying, new SystemClock(), undefined, { claimMs: 1_500 });
    try {
      const outbox = new Outbox('uncordon');
      const made = [];
      for (let i = 201; i <= 203; i++) made.push(await changeState(outbox, i, runId));
      await expect(relayA.relayOnce()).rejects.toThrow('gone');
      expect(await r.relayB.relayOnce()).toBe(0);
      await new Promise((res) => setTimeout(res, 1_700));
      expect(await r.relayB.relayOnce()).toBe(3);
      await waitFor(() => r.seen().length === 3 || undefined, 'the three events from B');
      expect(r.seen().map((e) => e.id).sort()).toEqual(made.map((e) => e.id).sort());
    } finally {
      await r.close();
    }
  }, 60_000);

  it('the event consumer consumes again after its broker connection is cut and restored', async () => {
    const tag = `consume-${Math.random().toString(36).slice(2)}`;
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(TEST_RABBITMQ_URL).port || 5672));
    const consumerConn = new AmqpConnection(proxy.url(TEST_RABBITMQ_URL), 'consume-test');
    const pubConn = new AmqpConnection(TEST_RABBITMQ_URL, 'consume-test-publisher');
    const publisher = new AmqpEventPublisher(pubConn);
    const seen: string[] = [];
    const consumer = await consumeEvents(consumerConn, [`test.${tag}.#`], (ev) => void seen.push(ev.id));
    try {
      const before = makeEvent('uncordon', `test.${tag}.a` as never, { n: 1 }, new Date());
      await publisher.publish([before]);
      await waitFor(() => seen.includes(before.id), 'the event before the cut');

      proxy.cut();
      await waitFor(() => !consumerConn.connected || undefined, 'the consumer to notice the cut');
      proxy.restore();
      // A new exclusive queue is declared on the next channel: what is published once it is bound arrives.
      const after = makeEvent('uncordon', `test.${tag}.c` as never, { n: 3 }, new Date());
      await waitFor(async () => {
        if (!consumerConn.connected) return undefined;
        await publisher.publish([after]);
        return seen.includes(after.id) || undefined;
      }, 'an event published after the restore', 20_000, 500);
      expect(seen[0]).toBe(before.id);
      expect(seen.filter((id) => id !== before.id && id !== after.id)).toEqual([]);
    } finally {
      await consumer.close();
      await consumerConn.close();
      await pubConn.close();
      await proxy.stop();
    }
  }, 60_000);
});
