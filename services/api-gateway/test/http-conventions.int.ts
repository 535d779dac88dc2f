import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import pg from 'pg';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, createRuntime, JsonLogger, loadConfig, LOGGER, registerDependency, CommandHandler } from '@nodes-manager/platform';
import { startTestApp, testEnv, testToken } from '@nodes-manager/platform/testing';
import { ApiGatewayModule } from '../src/api-gateway.module.js';
import { apiGatewayConfigSpec } from '../src/config.js';

/** A port where nothing listens: a real "connection refused". */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const SECRET_TEXT = 'relation "nodes.node_secret" does not exist';
let deadDatabaseUrl: string;

/** Stand-ins for the services behind the gateway: they record what arrives; some fail the way real code fails. */
const seen: CommandRequest[] = [];
@CommandController()
class RecordingServices {
  @CommandHandler(Commands.nodesList)
  list(@Payload() req: CommandRequest) {
    seen.push(req);
    throw new Error(`${SECRET_TEXT} at 10.1.2.3:5432`); // a bug: an error nobody mapped
  }
  @CommandHandler(Commands.cordonsList)
  async cordons(@Payload() req: CommandRequest) {
    seen.push(req);
    const client = new pg.Client({ connectionString: deadDatabaseUrl });
    client.on('error', () => undefined);
    await client.connect(); // the database is down
    return { items: [] };
  }
  @CommandHandler(Commands.nodeDrain)
  drain(@Payload() req: CommandRequest) {
    seen.push(req);
    return { id: '00000000-0000-4000-8000-000000000000', status: 'pending' };
  }
  @CommandHandler(Commands.nodepoolUpdate)
  update(@Payload() req: CommandRequest) {
    seen.push(req);
    return { metadata: { name: (req.data as { name: string }).name } };
  }
}
@Module({ controllers: [RecordingServices], providers: [{ provide: LOGGER, useValue: new JsonLogger('recording-services', 'error') }] })
class RecordingServicesModule {}

let app: INestApplication;
let url: string;
const logged: string[] = [];
let untap: () => void;

beforeAll(async () => {
  const port = await closedPort();
  deadDatabaseUrl = `postgres://postgres@127.0.0.1:${port}/nodes`;
  registerDependency('database', deadDatabaseUrl);
  untap = JsonLogger.tap((line) => logged.push(line));
  const config = loadConfig(apiGatewayConfigSpec, testEnv('postgres://unused@127.0.0.1/unused', { RATE_LIMIT_EXPENSIVE: '3', RATE_LIMIT_WINDOW_SECONDS: '60', LOG_LEVEL: 'error' }));
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'error' });
  @Module({ imports: [ApiGatewayModule.forRoot(config), RecordingServicesModule] })
  class Root {}
  ({ app, url } = (await startTestApp({ service: 'api-gateway', module: { module: Root }, runtime, transport: 'in-process', httpPort: 0 })) as { app: INestApplication; url: string });
});
afterAll(async () => {
  untap();
  await app.close();
});
afterEach(() => {
  seen.length = 0;
});

const auth = (scope = 'nodes:read nodes:write', sub = 'alice') => ({ authorization: `Bearer ${testToken(scope, sub)}` });
const call = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(url + path, { ...init, headers: { ...auth(), ...init.headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as { code: string; message: string; details?: { errors?: { in: string; field: string; message: string }[] }; requestId?: string }) : undefined };
};

describe('hostile input stops at the gateway', () => {
  it('GET /api/v1/nodes/%E2%80%AE%00x answers 400 naming id, and nothing is forwarded', async () => {
    const r = await call('/api/v1/nodes/%E2%80%AE%00x');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ in: 'path', field: 'id' }] } });
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['a path parameter by its own name', '/api/v1/nodepools/Not_A_Label', 'path', 'name'],
    ['a drain id that is not a uuid', '/api/v1/drains/..%2F..%2Fetc', 'path', 'id'],
    ['a zone that is no zone', '/api/v1/nodes?zone=%27%3B%20DROP%20TABLE%20nodes%3B--', 'query', 'zone'],
    ['a limit beyond its bound', '/api/v1/nodes?limit=99999999999999999999', 'query', 'limit'],
    ['a forged cursor', '/api/v1/cordons?cursor=AAAA', 'query', 'cursor'],
  ])('names %s in one VALIDATION_FAILED shape', async (_, path, where, field) => {
    const r = await call(path);
    expect(r.status).toBe(400);
    expect(r.body!.details!.errors!.length).toBeGreaterThan(0);
    for (const e of r.body!.details!.errors!) expect(e).toMatchObject({ in: where, field });
    expect(r.body!.message).toContain(`${field}: `);
  });

  it('answers a body that is not JSON with 400 naming the body, in our words', async () => {
    const r = await call('/api/v1/nodes/n1/drain', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"force": tru' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', message: 'body: must be valid JSON', details: { errors: [{ in: 'body', field: 'body' }] } });
    expect(seen).toHaveLength(0);
  });

  it('refuses a NUL anywhere in a JSON body, naming the field', async () => {
    const r = await call('/api/v1/instances', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ instanceType: 'm5.large', clientToken: 't1', tags: { team: 'a\u0000b' } }) });
    expect(r.status).toBe(400);
    expect(r.body!.details!.errors).toEqual([{ in: 'body', field: 'tags.team', message: 'must not contain control characters' }]);
  });

  it('answers a body in another media type with 415', async () => {
    const r = await call('/api/v1/nodes/n1/drain', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'force=true' });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', details: { errors: [{ in: 'header', field: 'content-type' }] } });
    expect(seen).toHaveLength(0);
  });
});

describe('HTTP conventions', () => {
  it('takes a PATCH as application/merge-patch+json', async () => {
    const patch = { spec: { limits: { cpu: '100' } } };
    const r = await call('/api/v1/nodepools/default', { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(patch) });
    expect(r.status).toBe(200);
    expect(seen[0]!.data).toEqual({ name: 'default', patch });
  });

  it('refuses merge-patch on a POST with 415', async () => {
    const r = await call('/api/v1/nodes/n1/drain', { method: 'POST', headers: { 'content-type': 'application/merge-patch+json' }, body: '{}' });
    expect(r.status).toBe(415);
  });

  it('sends no X-Powered-By, and returns the request id it was given', async () => {
    const res = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'req-abc.123' } });
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-request-id')).toBe('req-abc.123');
    const generated = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('challenges a missing token with WWW-Authenticate: Bearer, and a bad one with error="invalid_token"', async () => {
    const none = await fetch(`${url}/api/v1/nodes`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="nodes-manager"');
    const bad = await fetch(`${url}/api/v1/nodes`, { headers: { authorization: 'Bearer not.a.token' } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer realm="nodes-manager", error="invalid_token", error_description="[^"]+"$/);
  });

  it('answers a missing write scope with 403 and error="insufficient_scope" naming the scope', async () => {
    const r = await call('/api/v1/nodes/n1/drain', { method: 'POST', headers: auth('nodes:read') });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(/error="insufficient_scope".*scope="nodes:write"/);
  });

  it('limits the expensive routes per actor: 429 with Retry-After, while another actor goes on', async () => {
    const drain = (sub: string) => call('/api/v1/nodes/n1/drain', { method: 'POST', headers: { ...auth('nodes:read nodes:write', sub), 'content-type': 'application/json' }, body: '{}' });
    for (let i = 0; i < 3; i++) expect((await drain('hasty')).status).toBe(202);
    const limited = await drain('hasty');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 3, windowSeconds: 60 } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect((await drain('patient')).status).toBe(202);
  });

  it('does not limit reads', async () => {
    for (let i = 0; i < 5; i++) expect((await call('/api/v1/nodes/Bad')).status).toBe(400);
  });
});

describe('internal errors never reach the caller', () => {
  it('answers an unexpected error with the generic body and a request id; the log holds the real error under that id', async () => {
    logged.length = 0;
    const r = await call('/api/v1/nodes', { headers: { 'x-request-id': 'forced-internal-1' } });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ code: 'INTERNAL', message: 'internal error', requestId: 'forced-internal-1' });
    expect(r.text).not.toContain('node_secret');
    expect(r.text).not.toContain('10.1.2.3');
    expect(seen[0]!.meta.requestId).toBe('forced-internal-1');
    const lines = logged
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.startsWith('{') && l.includes('forced-internal-1'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'command failed', requestId: 'forced-internal-1', err: expect.stringContaining(SECRET_TEXT) }));
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', requestId: 'forced-internal-1', path: '/api/v1/nodes' }));
  });

  it('answers a database outage with 503 "database unavailable", never its address', async () => {
    const r = await call('/api/v1/cordons');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'database unavailable', details: { dependency: 'database' } });
    expect(r.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    expect(r.body!.requestId).toEqual(r.headers.get('x-request-id'));
  });
});
