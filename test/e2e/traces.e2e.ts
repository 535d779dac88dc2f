import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, EventCollector, OtlpReceiver, TEST_JWT_SECRET, testToken, waitFor, type ReceivedSpan, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { splitSystemEnv } from '../support/split-system.js';
import { startService, startSplitSystem, stopProcess, type ServiceProcess, type SplitSystem } from './harness.js';

// One drain through the gateway, followed across processes by the spans the services export to a receiver of the
// test's own (docs/observability.md#the-trace-of-a-drain).
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: SplitSystem;
let events: EventCollector;
let receiver: OtlpReceiver;

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
  db = await createTestDatabase();
  kube = await startKubeSim();
  kube.load(generateFleet({ seed: 11, nodes: 6, podsPerNode: 12 }));
  ec2 = await startEc2Sim();
  events = await EventCollector.start(['node.drain.#']);
  system = await startSplitSystem({
    env: splitSystemEnv(
      { databaseUrl: db.url, kube, ec2 },
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200', COMMAND_TIMEOUT_MS: '30000' },
    ),
    timeoutMs: 240_000,
  });
}, 300_000);

afterAll(async () => {
  await system?.stop();
  await events?.close();
  await receiver?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(system.gatewayUrl + path, { ...init, headers: { authorization: `Bearer ${testToken()}`, 'content-type': 'application/json', ...init.headers } });

/** describeTree — the trace as indented `service: name` lines, for a failure message a person can read. */
function describeTree(spans: ReceivedSpan[]): string {
  const children = new Map<string, ReceivedSpan[]>();
  for (const s of spans) children.set(s.parentSpanId ?? '', [...(children.get(s.parentSpanId ?? '') ?? []), s]);
  const ids = new Set(spans.map((s) => s.spanId));
  const lines: string[] = [];
  const walk = (s: ReceivedSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${s.service}: ${s.name}`);
    for (const c of children.get(s.spanId) ?? []) walk(c, depth + 1);
  };
  for (const root of spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId))) walk(root, 0);
  return lines.join('\n');
}

describe('a drain through the gateway is one trace across the processes', () => {
  let traceId: string;
  let target: string;
  /** inTrace — waits for what `probe` finds in the trace; failing, shows the trace as it stands then. */
  const inTrace = async <T>(probe: () => T | undefined, what: string): Promise<NonNullable<T>> => {
    try {
      return await waitFor(probe, `${what} in the trace`, 20_000, 100);
    } catch (err) {
      throw new Error(`${(err as Error).message}:\n${describeTree(receiver.trace(traceId))}`);
    }
  };

  it('the drain runs, and the gateway span of POST /api/v1/nodes/{id}/drain starts its trace', async () => {
    await waitFor(async () => ((await (await api('/api/v1/nodes?limit=500')).json()) as { items: unknown[] }).items.length === 6, 'node-sync to project the fleet', 60_000, 500);
    const nodes = ((await (await api('/api/v1/nodes?limit=500&state=Ready')).json()) as { items: { name: string }[] }).items;
    target = nodes[0]!.name;
    const res = await api(`/api/v1/nodes/${target}/drain`, { method: 'POST', body: JSON.stringify({ force: true, deleteEmptyDirData: true, timeoutSeconds: 60 }) });
    expect({ status: res.status, body: res.status === 202 ? '' : await res.text() }).toEqual({ status: 202, body: '' });
    const done = await events.waitFor((e) => (e.type === 'node.drain.completed' || e.type === 'node.drain.failed') && e.subject === target, 'the drain to end', 90_000);
    expect(done.type).toBe('node.drain.completed');

    const server = await waitFor(() => receiver.spans.find((s) => s.kind === SERVER && s.service === 'api-gateway' && s.attributes['http.route'] === '/api/v1/nodes/:id/drain'), 'the gateway span', 20_000, 100);
    traceId = server.traceId;
    expect(server).toMatchObject({ name: 'POST /api/v1/nodes/{id}/drain', attributes: { 'http.request.method': 'POST', 'http.response.status_code': 202, 'url.path': `/api/v1/nodes/${target}/drain`, 'enduser.id': 'test-operator' } });
    expect(server.parentSpanId).toBeUndefined();
  });

  it('the trace holds the command sent and processed, the drain steps in uncordon, the cordon PATCH, the evictions, Postgres and the events written', async () => {
    const has = (what: string, pred: (s: ReceivedSpan) => boolean) => inTrace(() => receiver.trace(traceId).find(pred), what);
    const send = await has('the command sent', (s) => s.service === 'api-gateway' && s.kind === PRODUCER && s.name === 'send nodes-manager.uncordon');
    expect(send.attributes).toMatchObject({ 'messaging.system': 'rabbitmq', 'messaging.operation.type': 'send', 'messaging.destination.name': 'nodes-manager.uncordon', 'nodes_manager.command': 'node.drain' });
    const processed = await has('the command processed', (s) => s.service === 'uncordon' && s.kind === CONSUMER && s.name === 'process nodes-manager.uncordon');
    expect(processed.parentSpanId).toBe(send.spanId);
    await has('a drain step', (s) => s.service === 'uncordon' && s.name === 'reconcile drain');
    const cordon = await has('the cordon PATCH', (s) => s.kind === CLIENT && s.name === 'patch nodes' && s.attributes['url.path'] === `/api/v1/nodes/${target}`);
    expect(cordon.attributes).toMatchObject({ 'http.request.method': 'PATCH', 'http.response.status_code': 200, 'k8s.verb': 'patch', 'k8s.resource': 'nodes' });
    const evictions = await inTrace(() => {
      const found = receiver.trace(traceId).filter((s) => s.kind === CLIENT && s.name === 'create pods/eviction');
      return found.length > 0 ? found : undefined;
    }, 'the evictions');
    for (const e of evictions) expect(e.attributes).toMatchObject({ 'http.request.method': 'POST', 'k8s.verb': 'create' });
    await has('a Postgres query', (s) => s.service === 'uncordon' && s.kind === CLIENT && s.attributes['db.system.name'] === 'postgresql');
    for (const type of ['node.drain.started', 'node.drain.completed']) {
      await has(`the creation of ${type}`, (s) => s.kind === PRODUCER && s.name === 'create nodes.events' && s.attributes['messaging.rabbitmq.destination.routing_key'] === type);
    }
  });

  it('it is one tree: one root (the gateway span), every other span under a span of the trace', async () => {
    await new Promise((r) => setTimeout(r, 1_000)); // the last batch of every process
    const spans = receiver.trace(traceId);
    const ids = new Set(spans.map((s) => s.spanId));
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((s) => `${s.service}: ${s.name}`)).toEqual(['api-gateway: POST /api/v1/nodes/{id}/drain']);
    const orphans = spans.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => `${s.service}: ${s.name}`);
    expect({ orphans, tree: orphans.length ? describeTree(spans) : '' }).toEqual({ orphans: [], tree: '' });
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['api-gateway', 'uncordon']));
  });

  it("the node.drain.* events' publish spans link to their creation in the trace, and the messages carry that context", async () => {
    const creations = receiver.trace(traceId).filter((s) => s.name === 'create nodes.events');
    for (const type of ['node.drain.started', 'node.drain.completed']) {
      const created = creations.find((s) => s.attributes['messaging.rabbitmq.destination.routing_key'] === type)!;
      const publish = await waitFor(
        () => receiver.spans.find((s) => s.kind === PRODUCER && s.name === 'send nodes.events' && s.links.some((l) => l.spanId === created.spanId)),
        `the publish span of ${type}`,
        20_000,
        100,
      );
      expect(publish.service).toBe('uncordon');
      expect(publish.links.find((l) => l.spanId === created.spanId)).toMatchObject({ traceId, attributes: { 'messaging.message.id': created.attributes['messaging.message.id'] } });
      expect(publish.attributes).toMatchObject({ 'messaging.system': 'rabbitmq', 'messaging.destination.name': 'nodes.events', 'messaging.operation.name': 'publish' });
      const i = events.events.findIndex((e) => e.id === created.attributes['messaging.message.id']);
      expect(i).toBeGreaterThanOrEqual(0);
      expect(String(events.headers[i]!['traceparent'])).toBe(`00-${traceId}-${created.spanId}-01`);
    }
  });

  it('no secret reaches a span: no Authorization header, token, JWT secret, password or AWS secret key', () => {
    const everything = receiver.bodies.join('\n');
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of [testToken(), 'Bearer', TEST_JWT_SECRET, 'guest:guest', 'e2e-secret-key', 'authorization']) {
      expect(`${secret}: ${everything.toLowerCase().includes(secret.toLowerCase())}`).toBe(`${secret}: false`);
    }
  });
});

describe('tracing off', () => {
  it('with OTEL_SDK_DISABLED=true beside an endpoint, a gateway serves requests and exports nothing', async () => {
    const quiet = await OtlpReceiver.start();
    let gw: ServiceProcess | undefined;
    try {
      gw = await startService(
        'api-gateway',
        splitSystemEnv({ databaseUrl: db.url }, { OTEL_EXPORTER_OTLP_ENDPOINT: quiet.url, OTEL_SDK_DISABLED: 'true', OTEL_BSP_SCHEDULE_DELAY: '100', LOG_LEVEL: 'info' }),
      );
      const res = await fetch(`http://127.0.0.1:${gw.port}/api/v1/nodes?limit=1`, { headers: { authorization: `Bearer ${testToken()}` } });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(quiet.requests).toBe(0);
      expect(gw.output.join('').split('\n').find((l) => l.includes('"msg":"tracing off"'))).toContain('"why":"OTEL_SDK_DISABLED is true"');
    } finally {
      if (gw) await stopProcess(gw);
      await quiet.close();
    }
  });

  it('without OTEL variables no OpenTelemetry SDK module is loaded and nothing is started; with an endpoint the SDK is', () => {
    const probe = (env: Record<string, string>) =>
      JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', PROBE], { env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8' }),
      ) as { sdk: string[]; resources: string[] };
    const off = probe({});
    expect(off).toEqual({ sdk: [], resources: [] });
    const on = probe({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(on.sdk).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/instrumentation-pg']));
  });
});

/**
 * PROBE — a process that starts tracing as a service's main does (from the build), then prints the OpenTelemetry SDK
 * packages it loaded and the handles that appeared meanwhile (timers and sockets: a file read still closing aside).
 */
const PROBE = `
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/');
const before = new Set(process.getActiveResourcesInfo());
const { startTracing } = await import(process.cwd() + '/dist/libs/platform/src/tracing/tracing-sdk.js');
const { tracingSettings } = await import(process.cwd() + '/dist/libs/platform/src/tracing/tracing-config.js');
await startTracing('probe', tracingSettings('probe', process.env));
const sdk = [...new Set(Object.keys(require.cache).map((k) => /node_modules\\/(@opentelemetry\\/[^/]+)/.exec(k)?.[1]).filter((p) => p && p !== '@opentelemetry/api'))].sort();
const resources = process.getActiveResourcesInfo().filter((r) => !before.has(r) && /Timeout|Immediate|TCP|Pipe|UDP|Socket/.test(r));
process.stdout.write(JSON.stringify({ sdk, resources }));
process.exit(0);
`;
