import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { createRuntime, JsonLogger, loadConfig } from '@nodes-manager/platform';
import { createTestDatabase, startTestApp, TcpProxy, testEnv, testToken, type TestDatabase } from '@nodes-manager/platform/testing';
import { ApiGatewayModule } from '../src/api-gateway.module.js';
import { apiGatewayConfigSpec } from '../src/config.js';

/**
 * Two gateway replicas share one count per actor (docs/api.md#rate-limits): the write budget holds across them,
 * whichever replica a request lands on. With the shared store unreachable, each replica counts on its own — the
 * limit still holds per replica, and no request fails because of the store.
 */
const LIMIT = 4;
let db: TestDatabase;
let link: TcpProxy;
const replicas: { app: INestApplication; url: string }[] = [];
const logged: string[] = [];
let untap: () => void;

beforeAll(async () => {
  db = await createTestDatabase();
  link = await TcpProxy.forUrl(db.url);
  untap = JsonLogger.tap((line) => logged.push(line));
  for (let i = 0; i < 2; i++) {
    const config = loadConfig(
      apiGatewayConfigSpec,
      testEnv('postgres://unused@127.0.0.1/unused', { RATE_LIMIT_DATABASE_URL: link.url(db.url), RATE_LIMIT_WRITES: String(LIMIT), RATE_LIMIT_EXPENSIVE: '100000', RATE_LIMIT_WINDOW_SECONDS: '60', LOG_LEVEL: 'warn' }),
    );
    @Module({ imports: [ApiGatewayModule.forRoot(config)] })
    class Root {}
    const { app, url } = await startTestApp({ service: 'api-gateway', module: { module: Root }, runtime: createRuntime({ mode: 'all-in-one', logLevel: 'error' }), transport: 'in-process', httpPort: 0 });
    replicas.push({ app, url: url! });
  }
}, 60_000);
afterAll(async () => {
  untap?.();
  link?.restore();
  for (const r of replicas) await r.app.close();
  await link?.stop();
  await db?.drop();
});

/** A write (it needs the write scope, so it spends the write budget); its body is refused after the rate limit. */
const write = async (replica: number, actor: string) => {
  const res = await fetch(`${replicas[replica]!.url}/api/v1/optimize/trigger`, {
    method: 'POST',
    headers: { authorization: `Bearer ${testToken('nodes:read nodes:write', actor)}`, 'content-type': 'application/json' },
    body: '{"dryRun":"maybe"}',
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { code: string; details?: unknown } };
};

describe('rate limits shared by the gateway replicas', () => {
  it(`${LIMIT} writes spread over two replicas spend one budget: the next is 429 on either replica`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await write(i % 2, 'alternating')).status);
    expect(statuses).toEqual(Array(LIMIT).fill(400));
    for (const replica of [0, 1]) {
      const limited = await write(replica, 'alternating');
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', details: { limit: LIMIT, windowSeconds: 60 } });
      expect(Number(limited.retryAfter)).toBeGreaterThan(0);
      expect(Number(limited.retryAfter)).toBeLessThanOrEqual(60);
    }
    // Another actor has a budget of its own.
    expect((await write(1, 'someone-else')).status).toBe(400);
    const [row] = await db.query<{ hits: number }>(`SELECT hits FROM nodes.rate_limit_windows WHERE key LIKE '%' || $1 || '%'`, ['write']);
    expect(row).toBeDefined();
  });

  it('concurrent writes on both replicas never let more than the limit through', async () => {
    const answers = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => write(i % 2, 'burst')));
    expect(answers.filter((a) => a.status === 400)).toHaveLength(LIMIT);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(2 * LIMIT);
  });

  it('with the store unreachable each replica counts on its own: the limit holds per replica, nothing fails, and it says so', async () => {
    link.cut();
    try {
      for (const replica of [0, 1]) {
        const statuses: number[] = [];
        for (let i = 0; i <= LIMIT; i++) statuses.push((await write(replica, 'offline')).status);
        expect(statuses).toEqual([...Array(LIMIT).fill(400), 429]);
      }
      expect(logged.some((l) => l.includes('rate-limit store unreachable: each replica counts on its own'))).toBe(true);
      expect(logged.join('\n')).not.toMatch(/"level":"error".*rate/);
    } finally {
      link.restore();
    }
  });
});
