import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import jwt from 'jsonwebtoken';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, createRuntime, loadConfig, CommandHandler } from '@nodes-manager/platform';
import { startTestApp, TEST_JWT_SECRET, testEnv, testToken } from '@nodes-manager/platform/testing';
import { ApiGatewayModule } from '../src/api-gateway.module.js';
import { apiGatewayConfigSpec } from '../src/config.js';

/** A hand-written stand-in for the services behind the gateway: records who asked, answers fixed data. */
const seen: CommandRequest[] = [];
@CommandController()
class RecordingServices {
  @CommandHandler(Commands.nodesList)
  list(@Payload() req: CommandRequest) {
    seen.push(req);
    return { items: [] };
  }
  @CommandHandler(Commands.nodeGet)
  get(@Payload() req: CommandRequest<{ id: string }>) {
    seen.push(req);
    return { id: req.data.id, name: 'ip-10-0-0-1.ec2.internal', pods: [] };
  }
  @CommandHandler(Commands.nodeDrain)
  drain(@Payload() req: CommandRequest) {
    seen.push(req);
    return { id: '00000000-0000-4000-8000-000000000000', status: 'pending' };
  }
}
@Module({ controllers: [RecordingServices] })
class RecordingServicesModule {}

let app: INestApplication;
let url: string;

beforeAll(async () => {
  const config = loadConfig(apiGatewayConfigSpec, testEnv('postgres://unused@127.0.0.1/unused'));
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'error' });
  @Module({ imports: [ApiGatewayModule.forRoot(config), RecordingServicesModule] })
  class Root {}
  const started = await startTestApp({ service: 'api-gateway', module: { module: Root }, runtime, transport: 'in-process', httpPort: 0 });
  app = started.app;
  url = started.url!;
});
afterAll(async () => {
  await app.close();
});

const get = (path: string, token?: string) =>
  fetch(url + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const post = (path: string, token: string, body: unknown = {}) =>
  fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

const now = () => Math.floor(Date.now() / 1000);
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('JWT authentication at the gateway', () => {
  it.each([
    ['no token', undefined],
    ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'mallory', scope: 'nodes:read nodes:write', exp: now() + 600 })}.`],
    ['the wrong secret', jwt.sign({ sub: 'mallory', scope: 'nodes:read' }, 'not-the-secret', { algorithm: 'HS256', expiresIn: 600 })],
    ['HS512 with the right secret', jwt.sign({ sub: 'mallory', scope: 'nodes:read' }, TEST_JWT_SECRET, { algorithm: 'HS512', expiresIn: 600 })],
    ['an expired token (beyond the clock tolerance)', jwt.sign({ sub: 'alice', scope: 'nodes:read', exp: now() - 120 }, TEST_JWT_SECRET, { algorithm: 'HS256' })],
    ['a token without exp', jwt.sign({ sub: 'alice', scope: 'nodes:read' }, TEST_JWT_SECRET, { algorithm: 'HS256' })],
    ['a token without sub', jwt.sign({ scope: 'nodes:read' }, TEST_JWT_SECRET, { algorithm: 'HS256', expiresIn: 600 })],
    ['a malformed token', 'not.a.token'],
  ])('refuses %s with 401 and a JSON error', async (_, token) => {
    const res = await get('/api/v1/nodes', token);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('passes a valid read token on a read route and carries its sub as the actor', async () => {
    seen.length = 0;
    const res = await get('/api/v1/nodes', testToken('nodes:read', 'alice'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ items: [] });
    expect(seen[0]!.meta.actor).toBe('alice');
    expect(seen[0]!.data).toMatchObject({ limit: 50, sort: 'name', includeDeleted: false });
  });

  it('accepts scopes from a `scopes` or `roles` array', async () => {
    const token = jwt.sign({ sub: 'bob', roles: ['nodes:read', 'nodes:write'] }, TEST_JWT_SECRET, { algorithm: 'HS256', expiresIn: 600 });
    expect((await post('/api/v1/nodes/n1/drain', token)).status).toBe(202);
  });

  it('refuses a mutating route without the write scope with 403', async () => {
    seen.length = 0;
    const res = await post('/api/v1/nodes/n1/drain', testToken('nodes:read', 'carol'));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('nodes:write') });
    expect(seen).toHaveLength(0);
  });

  it('records the write-scoped caller as the actor of a drain', async () => {
    seen.length = 0;
    const res = await post('/api/v1/nodes/n1/drain', testToken('nodes:read nodes:write', 'dave'), { force: true });
    expect(res.status).toBe(202);
    expect(seen[0]).toMatchObject({ meta: { actor: 'dave' }, data: { node: 'n1', force: true, deleteEmptyDirData: false } });
    expect((seen[0]!.data as { timeoutSeconds?: number }).timeoutSeconds).toBeUndefined();
  });

  it('drains a node addressed by its id: the id is resolved to the name first', async () => {
    seen.length = 0;
    const id = '3f1c1e9a-2b4d-4c6e-8f00-123456789abc';
    const res = await post(`/api/v1/nodes/${id}/drain`, testToken('nodes:read nodes:write', 'dave'), {});
    expect(res.status).toBe(202);
    expect(seen.map((r) => r.data)).toEqual([{ id }, expect.objectContaining({ node: 'ip-10-0-0-1.ec2.internal' })]);
  });

  it('answers /healthz without a token', async () => {
    expect((await get('/healthz')).status).toBe(200);
  });

  it('answers 400 naming each bad parameter, and forwards nothing', async () => {
    seen.length = 0;
    const res = await get('/api/v1/nodes?limit=0&capacityType=reserved&bogus=1', testToken());
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.message).toContain('limit: must be at least 1');
    expect(body.message).toContain('capacityType: must be one of spot, on-demand');
    expect(body.message).toContain('bogus: is not a known field');
    expect(seen).toHaveLength(0);
  });

  it('answers 503 with a coded body when the owning service is not running', async () => {
    const res = await get('/api/v1/cordons', testToken());
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
