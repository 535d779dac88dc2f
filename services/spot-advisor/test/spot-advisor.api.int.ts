import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { INSTANCE_TYPES, type CloudEvent } from '@nodes-manager/contracts';
import { createRuntime, FakeClock, InProcessCommandBus, type Runtime } from '@nodes-manager/platform';
import { createTestDatabase, startTestApp, testEnv, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { startEc2Sim, type Ec2Sim } from '@nodes-manager/sim';
import { testGatewayModule } from '../../../test/support/gateway.js';
import { loadSpotAdvisorConfig } from '../src/config.js';
import { SpotAdvisorModule } from '../src/spot-advisor.module.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

const TTL_SECONDS = 300;
const SEC = 1000;

interface Harness {
  app: INestApplication;
  runtime: Runtime;
  url: string;
  db: TestDatabase;
  events: CloudEvent[];
}

/** startAllInOne — the gateway and spot-advisor in one process (in-process commands and events), on a fresh database. */
async function startAllInOne(clock: FakeClock, env: Record<string, string>, ec2?: { endpoint: string }): Promise<Harness> {
  const db = await createTestDatabase('nm_spot');
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'warn', clock });
  const cfg = loadSpotAdvisorConfig(testEnv(db.url, env));
  @Module({})
  class Root {}
  const module: DynamicModule = {
    module: Root,
    imports: [testGatewayModule(db.url), SpotAdvisorModule.forRoot(cfg, ec2 ? { ec2: { ...ec2, maxAttempts: 1 } } : {})],
  };
  const { app, url } = await startTestApp({ service: 'api-gateway', module, runtime, transport: 'in-process', httpPort: 0 });
  const events: CloudEvent[] = [];
  runtime.eventBus!.tap((e) => events.push(e));
  return { app, runtime, url: url!, db, events };
}

async function call(h: Harness, method: 'GET' | 'POST', path: string, body?: unknown, token = testToken()) {
  const res = await fetch(h.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('spot-advisor through the gateway, against the EC2 simulator', () => {
  const clock = new FakeClock('2026-03-10T12:00:00Z');
  let sim: Ec2Sim;
  let h: Harness;
  const priceCalls = () => sim.calls().filter((c) => c.action === 'DescribeSpotPriceHistory');
  /** Pages of one full-region price read, measured by the first test. */
  let pagesPerFetch = 0;

  beforeAll(async () => {
    sim = await startEc2Sim({ clock: () => clock.now(), seed: 5 });
    h = await startAllInOne(
      clock,
      {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret-example',
        SPOT_PRICE_CACHE_SECONDS: String(TTL_SECONDS),
        PROVISION_IMAGE_ID: 'ami-0123456789abcdef0',
        PROVISION_SUBNET_ID: 'subnet-0abc',
        PROVISION_SECURITY_GROUP_IDS: 'sg-1,sg-2',
      },
      { endpoint: sim.url },
    );
  });
  afterAll(async () => {
    await h?.app.close();
    await h?.db.drop();
    await sim?.stop();
  });

  it('answers the market for every type and zone, read across several EC2 pages', async () => {
    sim.resetCalls();
    const { status, body } = await call(h, 'GET', '/api/v1/spot/market');
    expect(status).toBe(200);
    pagesPerFetch = priceCalls().length;
    expect(pagesPerFetch).toBeGreaterThan(1);
    expect(body).toMatchObject({
      region: 'us-east-1',
      fetchedAt: clock.now().toISOString(),
      stale: false,
      ageSeconds: 0,
      window: { hours: 168 },
      onDemand: { pricedRegion: 'us-east-1', appliesToRegion: true },
    });
    expect(body['items']).toHaveLength(INSTANCE_TYPES.length * 3);
    const m5a = body['items'].find((e: any) => e.instanceType === 'm5.large' && e.availabilityZone === 'us-east-1a');
    expect(m5a).toMatchObject({ onDemandUsdPerHour: 0.096, onDemandKnown: true, interruption: { basis: expect.any(String) } });
    expect(m5a.spotUsdPerHour).toBeGreaterThan(0);
    expect(m5a.spotUsdPerHour).toBeLessThan(0.096);
    expect(m5a.savingsPct).toBeCloseTo((1 - m5a.spotUsdPerHour / 0.096) * 100, 0);
    expect(['rising', 'falling', 'flat']).toContain(m5a.trend.direction);
    expect(typeof m5a.trend.changePct).toBe('number');
    expect(m5a.interruption.bucket).toEqual(expect.any(String));
  });

  it('filters by type and zone from the cache, without an EC2 call, and names what it has no price for', async () => {
    sim.resetCalls();
    clock.advance(10 * SEC);
    const { status, body } = await call(h, 'GET', '/api/v1/spot/market?instanceTypes=m5.large,c5.large,x9.huge&zones=us-east-1b');
    expect(status).toBe(200);
    expect(sim.calls()).toHaveLength(0);
    expect(body['items'].map((e: any) => `${e.instanceType}@${e.availabilityZone}`)).toEqual(['c5.large@us-east-1b', 'm5.large@us-east-1b']);
    expect(body).toMatchObject({ ageSeconds: 10, stale: false, unmatched: { instanceTypes: ['x9.huge'], zones: [] } });
  });

  it('refetches once the TTL has passed, not before', async () => {
    sim.resetCalls();
    const first = await call(h, 'GET', '/api/v1/spot/market?instanceTypes=m5.large');
    const age = first.body['ageSeconds'] as number;
    clock.advance((TTL_SECONDS - age - 1) * SEC);
    expect((await call(h, 'GET', '/api/v1/spot/market?instanceTypes=m5.large')).body['ageSeconds']).toBe(TTL_SECONDS - 1);
    expect(priceCalls()).toHaveLength(0);
    clock.advance(1 * SEC);
    const refreshed = await call(h, 'GET', '/api/v1/spot/market?instanceTypes=m5.large');
    expect(refreshed.body).toMatchObject({ ageSeconds: 0, stale: false, fetchedAt: clock.now().toISOString() });
    expect(priceCalls()).toHaveLength(pagesPerFetch);
  });

  it('makes one fetch for ten concurrent cold requests (a region never asked about; no On-Demand table there)', async () => {
    sim.resetCalls();
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(h, 'GET', '/api/v1/spot/market?region=us-west-2&instanceTypes=m5.large')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(priceCalls().length).toBeGreaterThan(0);
    expect(priceCalls().length).toBeLessThanOrEqual(pagesPerFetch);
    expect(new Set(answers.map((a) => a.body['fetchedAt'])).size).toBe(1);
    expect(answers[0]!.body['items'][0]).toMatchObject({ onDemandUsdPerHour: null, onDemandKnown: false, savingsPct: null });
  });

  it('serves the last good prices marked stale when EC2 throttles the refresh', async () => {
    const fresh = await call(h, 'GET', '/api/v1/spot/market?instanceTypes=m5.large&zones=us-east-1a');
    clock.advance((TTL_SECONDS + 60) * SEC);
    sim.resetCalls();
    sim.faults.throttleRate(1);
    try {
      const served = await call(h, 'GET', '/api/v1/spot/market?instanceTypes=m5.large&zones=us-east-1a');
      expect(served.status).toBe(200);
      expect(served.body).toMatchObject({
        stale: true,
        fetchedAt: fresh.body['fetchedAt'],
        ageSeconds: fresh.body['ageSeconds'] + TTL_SECONDS + 60,
        refreshError: { code: 'EC2_THROTTLED' },
        items: fresh.body['items'],
      });
      expect(sim.calls().map((c) => c.error)).toEqual(['RequestLimitExceeded']);
    } finally {
      sim.faults.clear();
    }
  });

  it('records every refresh in spot_price_samples and publishes spot.prices.refreshed with what was new', async () => {
    clock.advance(31 * SEC); // past the stale-after-error back-off
    const before = h.events.length;
    const { body } = await call(h, 'GET', '/api/v1/spot/market?instanceTypes=m5.large');
    expect(body['stale']).toBe(false);
    // This refresh's event: one of an earlier test's refreshes (another region) can still be on its way out of the outbox.
    const ev = await waitFor(
      () => h.events.slice(before).find((e) => e.type === 'spot.prices.refreshed' && (e.data as { fetchedAt?: string }).fetchedAt === body['fetchedAt']),
      'spot.prices.refreshed of this refresh',
    );
    expect(ev).toMatchObject({ source: 'nodes-manager/spot-advisor', subject: 'us-east-1', data: { region: 'us-east-1', fetchedAt: body['fetchedAt'] } });
    const data = ev.data as { samples: number; inserted: number; pools: number };
    expect(data.pools).toBe(INSTANCE_TYPES.length * 3);
    expect(data.inserted).toBeGreaterThan(0);
    expect(data.inserted).toBeLessThan(data.samples); // most of the window was recorded by the earlier refreshes
    const [rows] = await h.db.query<{ n: number; fetched: number; dupes: number }>(
      `SELECT count(*)::int AS n,
              count(*) FILTER (WHERE fetched_at = $1)::int AS fetched,
              (SELECT count(*)::int FROM (SELECT 1 FROM nodes.spot_price_samples
                 GROUP BY region, instance_type, zone, product_description, sampled_at HAVING count(*) > 1) d) AS dupes
         FROM nodes.spot_price_samples WHERE region = 'us-east-1'`,
      [body['fetchedAt']],
    );
    expect(rows!.fetched).toBe(data.inserted);
    expect(rows!.n).toBeGreaterThanOrEqual(data.samples);
    expect(rows!.dupes).toBe(0);
    const [outbox] = await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM nodes.outbox_spot_advisor WHERE type = 'spot.prices.refreshed'`);
    expect(outbox!.n).toBeGreaterThanOrEqual(3);
  });

  it('answers spot.prices with PriceInfo per (type, zone) for scheduler-scoring', async () => {
    const bus = new InProcessCommandBus(h.runtime.commands!, 5000);
    const out = await bus.send('spot.prices', { instanceTypes: ['m5.large', 'g5.xlarge'] }, { actor: 'system:scheduler-scoring', correlationId: 'c1' });
    expect(out.prices).toHaveLength(6);
    expect(out.prices.find((p) => p.instanceType === 'm5.large' && p.zone === 'us-east-1c')).toEqual({
      instanceType: 'm5.large',
      zone: 'us-east-1c',
      spotUsdPerHour: expect.any(Number),
      onDemandUsdPerHour: 0.096,
      interruptionBucket: expect.stringMatching(/%/),
    });
    await expect(bus.send('spot.prices', { region: 'nowhere' }, { actor: 'x', correlationId: 'c2' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('lists instance types (DescribeInstanceTypes, paged and cached) with On-Demand prices from the catalog', async () => {
    sim.resetCalls();
    const bus = new InProcessCommandBus(h.runtime.commands!, 5000);
    const meta = { actor: 'system:scheduler-scoring', correlationId: 'c3' };
    const all = await bus.send('instancetypes.list', {}, meta);
    const pages = sim.calls().filter((c) => c.action === 'DescribeInstanceTypes').length;
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(all.items.map((t) => t.name).sort()).toEqual(INSTANCE_TYPES.map((t) => t.name).sort());
    expect(all.items.find((t) => t.name === 'g5.xlarge')).toMatchObject({ vcpu: 4, memoryMiB: 16384, gpus: 1, architectures: ['x86_64'], onDemandKnown: true });
    const some = await bus.send('instancetypes.list', { instanceTypes: ['m5.large', 'x9.huge'] }, meta);
    expect(some.items.map((t) => t.name)).toEqual(['m5.large']);
    expect(some.unknown).toEqual(['x9.huge']);
    expect(sim.calls().filter((c) => c.action === 'DescribeInstanceTypes')).toHaveLength(pages);
  });

  describe('provisioning (POST /api/v1/instances)', () => {
    it('starts one instance for two requests with one client token, tagged as ours, recorded, one event', async () => {
      const before = h.events.length;
      const body = { instanceType: 'm5.large', count: 1, clientToken: 'tok-once', tags: { team: 'data' } };
      const first = await call(h, 'POST', '/api/v1/instances', body);
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ dryRun: false, replayed: false, clientToken: 'tok-once', requestedBy: 'test-operator', instances: [{ instanceType: 'm5.large' }] });
      const second = await call(h, 'POST', '/api/v1/instances', body);
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({ replayed: true, reservationId: first.body['reservationId'], instances: first.body['instances'] });

      const started = sim.instances().filter((i) => i.clientToken === 'tok-once');
      expect(started).toHaveLength(1);
      expect(started[0]!.tags).toEqual(
        expect.arrayContaining([
          { key: 'team', value: 'data' },
          { key: 'nodes-manager/managed', value: 'true' },
          { key: 'nodes-manager/requested-by', value: 'test-operator' },
        ]),
      );
      const rows = await h.db.query<{ status: string; instance_ids: string[]; actor: string }>(
        `SELECT status, instance_ids, actor FROM nodes.provisioning_requests WHERE client_token = 'tok-once'`,
      );
      expect(rows).toEqual([{ status: 'succeeded', instance_ids: [started[0]!.instanceId], actor: 'test-operator' }]);
      await waitFor(() => h.events.slice(before).find((e) => e.type === 'instance.provisioned'), 'instance.provisioned');
      const provisioned = h.events.slice(before).filter((e) => e.type === 'instance.provisioned');
      expect(provisioned).toHaveLength(1);
      expect(provisioned[0]).toMatchObject({ actor: 'test-operator', data: { clientToken: 'tok-once', instanceIds: [started[0]!.instanceId] } });
    });

    it('refuses a used client token for a different request (409), starting nothing', async () => {
      const before = sim.instances().length;
      const res = await call(h, 'POST', '/api/v1/instances', { instanceType: 'm5.large', count: 3, clientToken: 'tok-once', tags: { team: 'data' } });
      expect(res).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
      expect(sim.instances()).toHaveLength(before);
    });

    it('starts nothing on a dry run and says so', async () => {
      const before = sim.instances().length;
      const res = await call(h, 'POST', '/api/v1/instances', { instanceType: 'c5.large', count: 2, clientToken: 'tok-dry', dryRun: true });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ dryRun: true, wouldSucceed: true, started: 0, message: expect.stringContaining('nothing was started') });
      expect(sim.instances()).toHaveLength(before);
      const rows = await h.db.query(`SELECT status, dry_run FROM nodes.provisioning_requests WHERE client_token = 'tok-dry'`);
      expect(rows).toEqual([{ status: 'dry-run', dry_run: true }]);
    });

    it('turns UnauthorizedOperation into 403 EC2_UNAUTHORIZED, recorded as failed', async () => {
      sim.faults.unauthorized('RunInstances');
      try {
        const res = await call(h, 'POST', '/api/v1/instances', { instanceType: 'm5.large', clientToken: 'tok-403' });
        expect(res).toMatchObject({ status: 403, body: { code: 'EC2_UNAUTHORIZED', details: { ec2Code: 'UnauthorizedOperation' } } });
      } finally {
        sim.faults.clear();
      }
      const rows = await h.db.query<{ status: string; error: { code: string } }>(`SELECT status, error FROM nodes.provisioning_requests WHERE client_token = 'tok-403'`);
      expect(rows).toEqual([{ status: 'failed', error: expect.objectContaining({ code: 'EC2_UNAUTHORIZED' }) }]);
      // Once permitted, the same token goes through.
      expect((await call(h, 'POST', '/api/v1/instances', { instanceType: 'm5.large', clientToken: 'tok-403' })).status).toBe(201);
      expect(sim.instances().filter((i) => i.clientToken === 'tok-403')).toHaveLength(1);
    });

    it('needs the write scope', async () => {
      const res = await call(h, 'POST', '/api/v1/instances', { instanceType: 'm5.large', clientToken: 'tok-ro' }, testToken('nodes:read'));
      expect(res.status).toBe(403);
      expect(sim.instances().filter((i) => i.clientToken === 'tok-ro')).toHaveLength(0);
    });
  });

  it('rejects a malformed region with 400 at the gateway, before any EC2 call', async () => {
    sim.resetCalls();
    const res = await call(h, 'GET', '/api/v1/spot/market?region=Mars-1');
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: { errors: [{ in: 'query', field: 'region' }] } } });
    expect(sim.calls()).toHaveLength(0);
  });
});

describe('spot-advisor without AWS configuration', () => {
  const clock = new FakeClock('2026-03-10T12:00:00Z');
  let h: Harness;
  beforeAll(async () => {
    h = await startAllInOne(clock, {});
  });
  afterAll(async () => {
    await h?.app.close();
    await h?.db.drop();
  });

  it('starts, answers the market with 503 AWS_NOT_CONFIGURED naming AWS_REGION', async () => {
    const res = await call(h, 'GET', '/api/v1/spot/market');
    expect(res).toMatchObject({ status: 503, body: { code: 'AWS_NOT_CONFIGURED', details: { missing: ['AWS_REGION'] } } });
    expect(res.body['message']).toContain('AWS_REGION');
  });

  it('answers provisioning with 503 naming the region and the launch variables', async () => {
    const res = await call(h, 'POST', '/api/v1/instances', { instanceType: 'm5.large', clientToken: 'tok-none' });
    expect(res).toMatchObject({ status: 503, body: { code: 'AWS_NOT_CONFIGURED' } });
    expect(res.body['details'].missing).toEqual(expect.arrayContaining(['AWS_REGION', 'PROVISION_LAUNCH_TEMPLATE_ID', 'PROVISION_IMAGE_ID']));
    expect(await h.db.query(`SELECT 1 FROM nodes.provisioning_requests`)).toHaveLength(0);
  });

  it('reports itself degraded, not unready, on the gateway /readyz', async () => {
    const res = await fetch(`${h.url}/readyz`);
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.services['spot-advisor']).toMatchObject({
      ready: true,
      degraded: true,
      checks: { 'spot-advisor.aws': { ok: false, degraded: true, detail: 'AWS_REGION is not set' }, 'spot-advisor.database': { ok: true } },
    });
  });
});

describe('spot-advisor with a region but no credentials anywhere', () => {
  const clock = new FakeClock('2026-03-10T12:00:00Z');
  let h: Harness;
  const saved = { ...process.env };
  beforeAll(async () => {
    // The SDK's default chain must find nothing: no key variables, no profile, no instance metadata.
    for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI']) {
      delete process.env[k];
    }
    process.env['AWS_EC2_METADATA_DISABLED'] = 'true';
    process.env['AWS_SHARED_CREDENTIALS_FILE'] = '/nonexistent/credentials';
    process.env['AWS_CONFIG_FILE'] = '/nonexistent/config';
    // An endpoint nothing listens on: were credentials found after all, the call fails instead of reaching AWS.
    h = await startAllInOne(clock, { AWS_REGION: 'us-east-1' }, { endpoint: 'http://127.0.0.1:9' });
  });
  afterAll(async () => {
    await h?.app.close();
    await h?.db.drop();
    process.env = saved;
  });

  it('starts, reports the missing credentials as degraded and answers the market with 503 AWS_NOT_CONFIGURED', async () => {
    const readiness = await waitFor(async () => {
      const body = (await (await fetch(`${h.url}/readyz`)).json()) as any;
      return body.services['spot-advisor']?.degraded ? body.services['spot-advisor'] : undefined;
    }, 'spot-advisor degraded');
    expect(readiness).toMatchObject({ ready: true, checks: { 'spot-advisor.aws': { ok: false, degraded: true, detail: expect.stringMatching(/credentials/i) } } });
    const res = await call(h, 'GET', '/api/v1/spot/market');
    expect(res).toMatchObject({ status: 503, body: { code: 'AWS_NOT_CONFIGURED', details: { missing: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] } } });
  });
});
