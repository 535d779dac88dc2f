import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import { startEc2Sim, type Ec2Sim } from '@nodes-manager/sim';
import { Ec2Adapter, Ec2Error, type RunInstancesRequest } from '../src/adapters/outbound/ec2.adapter.js';
import { FakeClock } from '@nodes-manager/platform';
import { PriceCache } from '../src/adapters/outbound/price.cache.js';
import type { SpotPriceSample } from '../src/domain/spot-price.js';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIN = 60_000;

/** TestClock — the fake clock, from the test's start time. */
class TestClock extends FakeClock {
  constructor() {
    super('2026-03-10T12:00:00Z');
  }
}

async function codeOf(p: Promise<unknown>): Promise<Ec2Error> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(Ec2Error);
    return e as Ec2Error;
  }
  throw new Error('expected an Ec2Error');
}

const aRequest = (over: Partial<RunInstancesRequest> = {}): RunInstancesRequest =>
  ({
    clientToken: 'tok-default',
    dryRun: false,
    instanceType: 'm5.large',
    count: 1,
    requestedBy: 'alice',
    imageId: 'ami-0123456789abcdef0',
    subnetId: 'subnet-0abc',
    securityGroupIds: ['sg-1'],
    ...over,
  }) as RunInstancesRequest;

describe('Ec2Adapter against the EC2 simulator', () => {
  const clock = new TestClock();
  let sim: Ec2Sim;
  let ec2: Ec2Adapter;
  beforeAll(async () => {
    sim = await startEc2Sim({ clock: () => clock.now(), seed: 11 });
    ec2 = new Ec2Adapter({ region: 'us-east-1', endpoint: sim.url, credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
  });
  afterEach(() => {
    sim.faults.clear();
    sim.resetCalls();
  });
  afterAll(async () => {
    ec2.destroy();
    await sim.stop();
  });

  const lastWeek = (): { start: Date; end: Date } => ({ start: new Date(clock.now().getTime() - 7 * DAY), end: clock.now() });

  it('reads the whole price history across several pages', async () => {
    const samples = await ec2.describeSpotPriceHistory(lastWeek());
    const pages = sim.calls().filter((c) => c.action === 'DescribeSpotPriceHistory').length;
    expect(pages).toBeGreaterThan(2);
    expect(samples.length).toBeGreaterThan(1000 * (pages - 1));
    expect(samples.length).toBeLessThanOrEqual(1000 * pages);
    expect(new Set(samples.map((s) => `${s.instanceType}|${s.availabilityZone}|${s.timestamp.toISOString()}`)).size).toBe(samples.length);
    expect(new Set(samples.map((s) => s.instanceType)).size).toBe(INSTANCE_TYPES.length);
    expect(samples.every((s) => s.productDescription === 'Linux/UNIX' && s.usdPerHour > 0)).toBe(true);
  });

  it('narrows by instance type and zone', async () => {
    const samples = await ec2.describeSpotPriceHistory({ ...lastWeek(), instanceTypes: ['c5.large'], zones: ['us-east-1b'] });
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.every((s) => s.instanceType === 'c5.large' && s.availabilityZone === 'us-east-1b')).toBe(true);
  });

  it('lists every instance type across pages', async () => {
    const types = await ec2.describeInstanceTypes();
    expect(types.map((t) => t.name).sort()).toEqual(INSTANCE_TYPES.map((t) => t.name).sort());
    expect(types.find((t) => t.name === 'g5.xlarge')).toMatchObject({ vcpu: 4, memoryMiB: 16384, gpus: 1, architectures: ['x86_64'], supportsSpot: true });
  });

  describe('behind the price cache', () => {
    const cacheOver = (instanceTypes?: string[]) =>
      new PriceCache<SpotPriceSample[]>(() => ec2.describeSpotPriceHistory({ ...lastWeek(), ...(instanceTypes ? { instanceTypes } : {}) }), clock);

    it('serves a second request without an EC2 call and refetches after the TTL', async () => {
      const cache = cacheOver(['m5.large']);
      await cache.get('us-east-1');
      expect(sim.calls()).toHaveLength(1);
      clock.advance(2 * MIN);
      expect((await cache.get('us-east-1')).ageMs).toBe(2 * MIN);
      expect(sim.calls()).toHaveLength(1);
      clock.advance(3 * MIN);
      expect((await cache.get('us-east-1')).ageMs).toBe(0);
      expect(sim.calls()).toHaveLength(2);
    });

    it('makes one fetch for ten concurrent cold requests', async () => {
      const cache = cacheOver(['m5.large']);
      const all = await Promise.all(Array.from({ length: 10 }, () => cache.get('us-east-1')));
      expect(sim.calls()).toHaveLength(1);
      expect(new Set(all.map((v) => v.data)).size).toBe(1);
    });

    it('serves the last good prices marked stale when EC2 throttles the refresh', async () => {
      const cache = cacheOver(['m5.large']);
      const fresh = await cache.get('us-east-1');
      clock.advance(6 * MIN);
      sim.faults.throttleRate(1);
      const served = await cache.get('us-east-1');
      expect(served).toMatchObject({ stale: true, ageMs: 6 * MIN, refreshError: { code: 'EC2_THROTTLED' } });
      expect(served.data).toBe(fresh.data);
      expect(sim.calls().map((c) => c.error)).toEqual([undefined, 'RequestLimitExceeded']);
    });
  });

  it('starts one instance for two RunInstances with one client token, tagged as ours', async () => {
    const first = await ec2.runInstances(aRequest({ clientToken: 'tok-twice', tags: { team: 'data' } }));
    const second = await ec2.runInstances(aRequest({ clientToken: 'tok-twice', tags: { team: 'data' } }));
    expect(second).toEqual(first);
    const started = sim.instances().filter((i) => i.clientToken === 'tok-twice');
    expect(started).toHaveLength(1);
    expect(started[0]!.tags).toEqual(
      expect.arrayContaining([
        { key: 'team', value: 'data' },
        { key: 'nodes-manager/managed', value: 'true' },
        { key: 'nodes-manager/requested-by', value: 'alice' },
      ]),
    );
  });

  it('does not let caller tags impersonate the managed tags', async () => {
    await ec2.runInstances(aRequest({ clientToken: 'tok-tags', tags: { 'nodes-manager/requested-by': 'mallory' } }));
    const tags = sim.instances().find((i) => i.clientToken === 'tok-tags')!.tags;
    expect(tags.filter((t) => t.key === 'nodes-manager/requested-by')).toEqual([{ key: 'nodes-manager/requested-by', value: 'alice' }]);
  });

  it('launches from a launch template', async () => {
    const out = await ec2.runInstances({ ...aRequest({ clientToken: 'tok-lt', count: 2 }), launchTemplate: { name: 'workers', version: '$Default' } } as never);
    expect(out).toMatchObject({ dryRun: false, instances: [{ instanceType: 'm5.large' }, { instanceType: 'm5.large' }] });
  });

  it('answers a dry run with wouldSucceed and starts nothing', async () => {
    const before = sim.instances().length;
    expect(await ec2.runInstances(aRequest({ clientToken: 'tok-dry', dryRun: true }))).toEqual({ dryRun: true, wouldSucceed: true });
    expect(sim.instances()).toHaveLength(before);
  });

  it.each([
    ['UnauthorizedOperation becomes EC2_UNAUTHORIZED', () => sim.faults.unauthorized('RunInstances'), aRequest({ clientToken: 'tok-403' }), 'EC2_UNAUTHORIZED'],
    ['a dry run without permission is EC2_UNAUTHORIZED too', () => sim.faults.unauthorized('RunInstances'), aRequest({ clientToken: 'tok-403d', dryRun: true }), 'EC2_UNAUTHORIZED'],
    ['RequestLimitExceeded becomes EC2_THROTTLED', () => sim.faults.throttleNext(1), aRequest({ clientToken: 'tok-503' }), 'EC2_THROTTLED'],
    ['an unknown instance type is VALIDATION_FAILED', () => undefined, aRequest({ clientToken: 'tok-400', instanceType: 'x9.huge' }), 'VALIDATION_FAILED'],
  ] as [string, () => void, RunInstancesRequest, string][])('%s', async (_what, arrange, request, code) => {
    arrange();
    const e = await codeOf(ec2.runInstances(request));
    expect(e.code).toBe(code);
    expect(e.details).toMatchObject({ action: 'RunInstances' });
  });

  it('reports a reused client token with different arguments as CONFLICT', async () => {
    await ec2.runInstances(aRequest({ clientToken: 'tok-conflict' }));
    const e = await codeOf(ec2.runInstances(aRequest({ clientToken: 'tok-conflict', count: 3 })));
    expect(e).toMatchObject({ code: 'CONFLICT', details: { ec2Code: 'IdempotentParameterMismatch', httpStatus: 400 } });
  });

  it('throttled price reads become EC2_THROTTLED', async () => {
    sim.faults.throttleNext(1);
    expect((await codeOf(ec2.describeSpotPriceHistory(lastWeek()))).code).toBe('EC2_THROTTLED');
  });

  it('without a region fails with AWS_NOT_CONFIGURED naming AWS_REGION, and calls nothing', async () => {
    const unconfigured = new Ec2Adapter({ endpoint: sim.url });
    for (const call of [
      () => unconfigured.describeSpotPriceHistory(lastWeek()),
      () => unconfigured.describeInstanceTypes(),
      () => unconfigured.runInstances(aRequest()),
    ]) {
      const e = await codeOf(call());
      expect(e).toMatchObject({ code: 'AWS_NOT_CONFIGURED', details: { missing: ['AWS_REGION'] } });
      expect(e.message).toContain('AWS_REGION');
    }
    expect(sim.calls()).toHaveLength(0);
  });
});
