import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import amqp from 'amqplib';
import { EVENTS_EXCHANGE, type CloudEvent } from '@nodes-manager/contracts';
import { createRuntime, loadConfig, signToken } from '@nodes-manager/platform';
import { startTestApp, TEST_JWT_SECRET, TEST_RABBITMQ_URL, testEnv, testToken, waitFor } from '@nodes-manager/platform/testing';
import { EventStreamClient, sseParser, type StreamEvent, type StreamStatus } from '../../../console/src/stream.js';
import { ApiGatewayModule } from '../src/api-gateway.module.js';
import { apiGatewayConfigSpec } from '../src/config.js';
import { OPENAPI_PATH, setupOpenApi } from '../src/openapi.js';

/**
 * `GET /api/v1/stream` in split mode: the gateway's own exclusive queue on the real `nodes.events` exchange
 * (RabbitMQ), read by the console's own stream client (console/src/stream.ts, fetch-based) — auth, order, replay,
 * and reconnecting by itself across a gateway restart on the same address.
 */
let app: INestApplication | undefined;
let port = 0;
let conn: amqp.ChannelModel;
let ch: amqp.ConfirmChannel;
const base = () => `http://127.0.0.1:${port}`;

async function startGateway(onPort = 0): Promise<void> {
  const config = loadConfig(apiGatewayConfigSpec, testEnv('postgres://unused@127.0.0.1/unused', { RABBITMQ_URL: TEST_RABBITMQ_URL, LOG_LEVEL: 'error' }));
  const runtime = createRuntime({ mode: 'split', logLevel: 'error', rabbitmqUrl: TEST_RABBITMQ_URL });
  const started = await startTestApp({ service: 'api-gateway', module: ApiGatewayModule.forRoot(config), runtime, transport: 'none', httpPort: onPort, configure: (a) => void setupOpenApi(a) });
  app = started.app;
  port = Number(new URL(started.url!).port);
}

/** publish — events on nodes.events the way the services' relays publish them (persistent, confirmed). */
async function publish(events: CloudEvent[]): Promise<void> {
  for (const e of events) ch.publish(EVENTS_EXCHANGE, e.type, Buffer.from(JSON.stringify(e)), { persistent: true, contentType: 'application/cloudevents+json' });
  await ch.waitForConfirms();
}

const event = (type: string, n: number, subject = `node-${n}`): CloudEvent =>
  ({ specversion: '1.0', id: randomUUID(), source: 'nodes-manager/node-sync', type, time: new Date().toISOString(), datacontenttype: 'application/json', subject, data: { n } }) as CloudEvent;

/** rawStream — the stream as plain text messages (for the protocol itself: hello, ids, replay, reset, expiry). */
async function rawStream(headers: Record<string, string>, query = '') {
  const ac = new AbortController();
  const res = await fetch(`${base()}/api/v1/stream${query}`, { headers, signal: ac.signal });
  const messages: { event: string; data: string; id?: string }[] = [];
  let ended = false;
  if (res.ok && res.body) {
    const feed = sseParser((m) => messages.push(m));
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) feed(decoder.decode(chunk, { stream: true }));
      } catch {
        /* aborted */
      }
      ended = true;
    })();
  }
  return { res, messages, ended: () => ended, close: () => ac.abort() };
}

beforeAll(async () => {
  conn = await amqp.connect(TEST_RABBITMQ_URL);
  ch = await conn.createConfirmChannel();
  await ch.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
  await startGateway();
});

afterAll(async () => {
  await app?.close();
  await conn?.close();
});

describe('GET /api/v1/stream: who may listen', () => {
  it.each([
    ['no token', {}],
    ['a token signed with another secret', { authorization: `Bearer ${signToken('another-secret-0123456789abcdefgh', { sub: 'mallory' })}` }],
    ['an expired token', { authorization: `Bearer ${signToken(TEST_JWT_SECRET, { sub: 'rita' }, -120)}` }],
    ['a token in the query string instead of the header', {}, `?access_token=${testToken()}`],
  ])('refuses %s with a coded 401', async (_what, headers, query = '') => {
    const res = await fetch(`${base()}/api/v1/stream${query}`, { headers: headers as Record<string, string> });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('opens for a read-only token: text/event-stream, not cached, starting with hello', async () => {
    const s = await rawStream({ authorization: `Bearer ${testToken('nodes:read', 'rita')}` });
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.res.headers.get('cache-control')).toBe('no-cache, no-transform');
    await waitFor(() => s.messages.find((m) => m.event === 'hello'), 'the hello message');
    s.close();
  });

  it('is documented in the OpenAPI document as a text/event-stream behind bearer auth', async () => {
    const doc = (await (await fetch(`${base()}/${OPENAPI_PATH}-json`)).json()) as { paths: Record<string, Record<string, { security?: unknown; responses: Record<string, { content?: Record<string, unknown> }> }>> };
    const op = doc.paths['/api/v1/stream']!['get']!;
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(op.responses['200']!.content ?? {})).toContain('text/event-stream');
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/') && !['/healthz', '/readyz', '/metrics'].includes(p))).toEqual([]);
  });

  it('refuses a bad types filter with VALIDATION_FAILED naming the field', async () => {
    const res = await fetch(`${base()}/api/v1/stream?types=NODE!`, { headers: { authorization: `Bearer ${testToken()}` } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('types') });
  });

  it('ends the stream when the token expires', async () => {
    const token = signToken(TEST_JWT_SECRET, { sub: 'rita' }, 2);
    const s = await rawStream({ authorization: `Bearer ${token}` });
    expect(s.res.status).toBe(200);
    await waitFor(() => s.messages.find((m) => m.event === 'expired'), 'the expired message', 10_000);
    await waitFor(() => s.ended(), 'the stream to end', 5000);
  });
});

describe('GET /api/v1/stream: events in order', () => {
  it('hands every event to the console’s client in the order the broker delivered them, with increasing ids', async () => {
    const got: { e: StreamEvent; id: string }[] = [];
    const statuses: StreamStatus[] = [];
    const client = new EventStreamClient({ url: `${base()}/api/v1/stream`, token: () => testToken('nodes:read'), onEvent: (e, id) => got.push({ e, id }), onStatus: (s) => statuses.push(s) });
    client.start();
    await waitFor(() => statuses.includes('open'), 'the client to connect');
    const sent = Array.from({ length: 300 }, (_, i) => event(i % 3 === 0 ? 'node.changed' : i % 3 === 1 ? 'node.uncordoned' : 'optimize.planned', i));
    await publish(sent);
    await waitFor(() => got.length >= sent.length || undefined, `${sent.length} events on the stream`, 15_000);
    client.stop();
    const ours = got.filter((g) => sent.some((s) => s.id === g.e.id));
    expect(ours.map((g) => g.e.id)).toEqual(sent.map((s) => s.id));
    const seqs = ours.map((g) => Number(g.id.split('.')[1]));
    expect(seqs.every((s, i) => i === 0 || s > seqs[i - 1]!)).toBe(true);
  });

  it('narrows the stream with types patterns', async () => {
    const s = await rawStream({ authorization: `Bearer ${testToken()}` }, '?types=node.uncordoned,nodepool.%23');
    await waitFor(() => s.messages.find((m) => m.event === 'hello'), 'hello');
    const sent = [event('node.changed', 1), event('node.uncordoned', 2), event('nodepool.updated', 3), event('optimize.planned', 4)];
    await publish(sent);
    await waitFor(() => (s.messages.filter((m) => m.event === 'message').length >= 2 ? true : undefined), 'the two matching events');
    await new Promise((r) => setTimeout(r, 300));
    s.close();
    expect(s.messages.filter((m) => m.event === 'message').map((m) => (JSON.parse(m.data) as CloudEvent).type)).toEqual(['node.uncordoned', 'nodepool.updated']);
  });

  it('replays what a client missed when it comes back with Last-Event-ID, in order, and nothing twice', async () => {
    const auth = { authorization: `Bearer ${testToken()}` };
    const first = await rawStream(auth);
    await waitFor(() => first.messages.find((m) => m.event === 'hello'), 'hello');
    const before = [event('node.changed', 1), event('node.changed', 2)];
    await publish(before);
    await waitFor(() => (first.messages.filter((m) => m.event === 'message').length >= 2 ? true : undefined), 'the first two events');
    const lastId = first.messages.filter((m) => m.event === 'message').at(-1)!.id!;
    first.close();
    const missed = [event('node.changed', 3), event('node.uncordoned', 4), event('node.changed', 5)];
    await publish(missed);
    await new Promise((r) => setTimeout(r, 300)); // the gateway has them; nobody listens
    const second = await rawStream({ ...auth, 'last-event-id': lastId });
    await waitFor(() => (second.messages.filter((m) => m.event === 'message').length >= 3 ? true : undefined), 'the replayed events');
    const after = [event('node.changed', 6)];
    await publish(after);
    await waitFor(() => (second.messages.filter((m) => m.event === 'message').length >= 4 ? true : undefined), 'the live event after the replay');
    second.close();
    const ids = second.messages.filter((m) => m.event === 'message').map((m) => (JSON.parse(m.data) as CloudEvent).id);
    expect(ids).toEqual([...missed, ...after].map((e) => e.id));
    expect(second.messages.some((m) => m.event === 'reset')).toBe(false);
  });
});

describe('GET /api/v1/stream: a gateway restart', () => {
  it('the client reconnects by itself to the new gateway, is told events may be lost (reset), and receives what comes next', async () => {
    const got: StreamEvent[] = [];
    const resets: string[] = [];
    const statuses: StreamStatus[] = [];
    const client = new EventStreamClient({
      url: `${base()}/api/v1/stream`,
      token: () => testToken('nodes:read'),
      onEvent: (e) => got.push(e),
      onReset: (r) => resets.push(r),
      onStatus: (s) => statuses.push(s),
      minRetryMs: 200,
      maxRetryMs: 1000,
    });
    client.start();
    await waitFor(() => statuses.includes('open'), 'the client to connect');
    const before = event('node.changed', 1);
    await publish([before]);
    await waitFor(() => got.find((e) => e.id === before.id), 'the event before the restart');

    const samePort = port;
    await app!.close();
    // (the open stream is ended first, or the HTTP server would wait for it)
    app = undefined;
    await waitFor(() => statuses.includes('retrying'), 'the client to notice the gateway is gone', 10_000);
    await new Promise((r) => setTimeout(r, 500)); // a retry or two against the closed port
    await startGateway(samePort);
    await waitFor(() => (statuses.lastIndexOf('open') > statuses.indexOf('retrying') ? true : undefined), 'the client to reconnect', 15_000);
    expect(resets).toEqual(['gateway_restarted']);
    const after = [event('node.uncordoned', 2), event('node.changed', 3)];
    await publish(after);
    await waitFor(() => (after.every((a) => got.some((e) => e.id === a.id)) ? true : undefined), 'the events after the restart', 15_000);
    client.stop();
    expect(got.filter((e) => [before, ...after].some((s) => s.id === e.id)).map((e) => e.id)).toEqual([before, ...after].map((e) => e.id));
  }, 60_000);
});
