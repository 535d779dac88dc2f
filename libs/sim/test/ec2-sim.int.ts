import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DescribeInstancesCommand,
  DescribeInstanceTypesCommand,
  DescribeSpotPriceHistoryCommand,
  EC2Client,
  paginateDescribeInstanceTypes,
  paginateDescribeSpotPriceHistory,
  RunInstancesCommand,
  TerminateInstancesCommand,
  type DescribeSpotPriceHistoryCommandInput,
  type SpotPrice,
} from '@aws-sdk/client-ec2';
import { INSTANCE_TYPES } from '@nodes-manager/contracts';
import { startEc2Sim, type Ec2Sim } from '@nodes-manager/sim';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

const NOW = new Date('2026-03-10T12:00:00Z');
const HOUR = 3_600_000;

function clientFor(sim: Ec2Sim): EC2Client {
  return new EC2Client({
    region: 'us-east-1',
    endpoint: sim.url,
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 1,
  });
}

describe('EC2 simulator through @aws-sdk/client-ec2', () => {
  let sim: Ec2Sim;
  let ec2: EC2Client;
  beforeAll(async () => {
    sim = await startEc2Sim({ clock: () => NOW, seed: 7 });
    ec2 = clientFor(sim);
  });
  afterAll(async () => {
    ec2.destroy();
    await sim.stop();
  });

  it('DescribeSpotPriceHistory parses into typed SpotPrice records within the window, newest first', async () => {
    const out = await ec2.send(
      new DescribeSpotPriceHistoryCommand({
        InstanceTypes: ['m5.large'],
        ProductDescriptions: ['Linux/UNIX'],
        StartTime: new Date(NOW.getTime() - 24 * HOUR),
        EndTime: NOW,
      }),
    );
    const prices = out.SpotPriceHistory ?? [];
    expect(prices.length).toBeGreaterThan(3);
    for (const p of prices) {
      expect(p.InstanceType).toBe('m5.large');
      expect(p.ProductDescription).toBe('Linux/UNIX');
      expect(p.AvailabilityZone).toMatch(/^us-east-1[abc]$/);
      expect(p.Timestamp).toBeInstanceOf(Date);
      expect(p.Timestamp!.getTime()).toBeLessThanOrEqual(NOW.getTime());
      expect(Number(p.SpotPrice)).toBeGreaterThan(0);
    }
    const times = prices.map((p) => p.Timestamp!.getTime());
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(out.NextToken ?? '').toBe('');
  });

  it('includes, for each type and zone, the last price recorded before StartTime', async () => {
    const start = new Date(NOW.getTime() - 2 * HOUR);
    const out = await ec2.send(
      new DescribeSpotPriceHistoryCommand({ InstanceTypes: ['c5.large', 'r5.large'], ProductDescriptions: ['Linux/UNIX'], StartTime: start, EndTime: NOW }),
    );
    const prices = out.SpotPriceHistory ?? [];
    for (const type of ['c5.large', 'r5.large']) {
      for (const zone of sim.zones) {
        const before = prices.filter((p) => p.InstanceType === type && p.AvailabilityZone === zone && p.Timestamp! < start);
        expect(before).toHaveLength(1);
      }
    }
  });

  it('keeps Spot prices mostly between 30% and 70% of On-Demand, and a few changes a day', async () => {
    const prices: SpotPrice[] = [];
    for await (const page of paginateDescribeSpotPriceHistory(
      { client: ec2, pageSize: 1000 },
      { ProductDescriptions: ['Linux/UNIX'], StartTime: new Date(NOW.getTime() - 7 * 24 * HOUR), EndTime: NOW },
    )) {
      prices.push(...(page.SpotPriceHistory ?? []));
    }
    const od = new Map(INSTANCE_TYPES.map((t) => [t.name, t.onDemandUsdPerHour]));
    const ratios = prices.map((p) => Number(p.SpotPrice) / od.get(p.InstanceType!)!);
    const within = ratios.filter((r) => r >= 0.25 && r <= 0.75).length / ratios.length;
    expect(within).toBeGreaterThan(0.85);
    expect(Math.max(...ratios)).toBeLessThan(1);
    const seriesCount = INSTANCE_TYPES.length * sim.zones.length;
    const changesPerDay = prices.length / seriesCount / 7;
    expect(changesPerDay).toBeGreaterThan(1);
    expect(changesPerDay).toBeLessThan(10);
  });

  it('is deterministic: the same seed and instant give the same prices', async () => {
    const other = await startEc2Sim({ clock: () => NOW, seed: 7 });
    const otherClient = clientFor(other);
    const input: DescribeSpotPriceHistoryCommandInput = { InstanceTypes: ['g5.xlarge'], StartTime: new Date(NOW.getTime() - 48 * HOUR), EndTime: NOW };
    try {
      const a = await ec2.send(new DescribeSpotPriceHistoryCommand(input));
      const b = await otherClient.send(new DescribeSpotPriceHistoryCommand(input));
      expect(b.SpotPriceHistory).toEqual(a.SpotPriceHistory);
    } finally {
      otherClient.destroy();
      await other.stop();
    }
  });

  it('pages with MaxResults and NextToken, and the paginator visits every page exactly once', async () => {
    const input: DescribeSpotPriceHistoryCommandInput = { InstanceTypes: ['m5.large', 'c5.large'], StartTime: new Date(NOW.getTime() - 3 * 24 * HOUR), EndTime: NOW };
    const whole = (await ec2.send(new DescribeSpotPriceHistoryCommand(input))).SpotPriceHistory ?? [];
    sim.resetCalls();
    const pages: SpotPrice[][] = [];
    for await (const page of paginateDescribeSpotPriceHistory({ client: ec2, pageSize: 10 }, input)) {
      pages.push(page.SpotPriceHistory ?? []);
    }
    expect(pages.length).toBe(Math.ceil(whole.length / 10));
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.flat()).toEqual(whole);
    expect(sim.calls().filter((c) => c.action === 'DescribeSpotPriceHistory')).toHaveLength(pages.length);
  });

  it('keeps pages consistent while the simulator clock moves between them', async () => {
    let now = NOW;
    const moving = await startEc2Sim({ clock: () => now, seed: 7 });
    const client = clientFor(moving);
    try {
      const input: DescribeSpotPriceHistoryCommandInput = { InstanceTypes: ['m5.large'], StartTime: new Date(NOW.getTime() - 3 * 24 * HOUR), MaxResults: 5 };
      const first = await client.send(new DescribeSpotPriceHistoryCommand(input));
      now = new Date(NOW.getTime() + 6 * HOUR);
      const second = await client.send(new DescribeSpotPriceHistoryCommand({ ...input, NextToken: first.NextToken }));
      const all = (await ec2.send(new DescribeSpotPriceHistoryCommand({ ...input, MaxResults: 10, EndTime: NOW }))).SpotPriceHistory;
      expect([...(first.SpotPriceHistory ?? []), ...(second.SpotPriceHistory ?? [])]).toEqual(all);
    } finally {
      client.destroy();
      await moving.stop();
    }
  });

  it.each([
    ['InstanceType.N', { InstanceTypes: ['t3.large'] }, (p: SpotPrice) => p.InstanceType === 't3.large'],
    ['AvailabilityZone', { AvailabilityZone: 'us-east-1b' }, (p: SpotPrice) => p.AvailabilityZone === 'us-east-1b'],
    ['ProductDescription.N', { ProductDescriptions: ['Windows'] }, (p: SpotPrice) => p.ProductDescription === 'Windows'],
    [
      'an availability-zone filter',
      { Filters: [{ Name: 'availability-zone', Values: ['us-east-1a', 'us-east-1c'] }] },
      (p: SpotPrice) => p.AvailabilityZone === 'us-east-1a' || p.AvailabilityZone === 'us-east-1c',
    ],
    [
      'an instance-type filter with a wildcard',
      { Filters: [{ Name: 'instance-type', Values: ['r6i.*'] }] },
      (p: SpotPrice) => p.InstanceType!.startsWith('r6i.'),
    ],
    [
      'a product-description filter',
      { Filters: [{ Name: 'product-description', Values: ['Linux/UNIX'] }] },
      (p: SpotPrice) => p.ProductDescription === 'Linux/UNIX',
    ],
  ] as [string, DescribeSpotPriceHistoryCommandInput, (p: SpotPrice) => boolean][])('filters by %s', async (_name, filter, predicate) => {
    const out = await ec2.send(
      new DescribeSpotPriceHistoryCommand({ StartTime: new Date(NOW.getTime() - 6 * HOUR), EndTime: NOW, ...filter }),
    );
    const prices = out.SpotPriceHistory ?? [];
    expect(prices.length).toBeGreaterThan(0);
    expect(prices.every(predicate)).toBe(true);
  });

  it('never returns prices after the simulator clock, even when EndTime is later', async () => {
    const out = await ec2.send(
      new DescribeSpotPriceHistoryCommand({ InstanceTypes: ['m6i.large'], StartTime: new Date(NOW.getTime() - HOUR), EndTime: new Date(NOW.getTime() + 48 * HOUR) }),
    );
    expect((out.SpotPriceHistory ?? []).every((p) => p.Timestamp!.getTime() <= NOW.getTime())).toBe(true);
  });

  it('DescribeInstanceTypes reports vCPU, memory, GPUs and architectures from the catalog', async () => {
    const out = await ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: ['g5.xlarge', 'm6g.large', 'inf2.xlarge'] }));
    const byName = new Map((out.InstanceTypes ?? []).map((t) => [t.InstanceType, t]));
    expect(byName.get('g5.xlarge')).toMatchObject({
      VCpuInfo: { DefaultVCpus: 4 },
      MemoryInfo: { SizeInMiB: 16384 },
      GpuInfo: { Gpus: [{ Count: 1, Manufacturer: 'NVIDIA', Name: 'A10G' }] },
      ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
      SupportedUsageClasses: ['on-demand', 'spot'],
    });
    expect(byName.get('m6g.large')).toMatchObject({ ProcessorInfo: { SupportedArchitectures: ['arm64'] }, VCpuInfo: { DefaultVCpus: 2 } });
    expect(byName.get('m6g.large')!.GpuInfo).toBeUndefined();
    expect(byName.get('inf2.xlarge')!.NeuronInfo?.NeuronDevices?.[0]?.Count).toBe(1);
  });

  it('DescribeInstanceTypes pages through the whole catalog', async () => {
    const names: string[] = [];
    let pages = 0;
    for await (const page of paginateDescribeInstanceTypes({ client: ec2, pageSize: 5 }, {})) {
      pages++;
      names.push(...(page.InstanceTypes ?? []).map((t) => t.InstanceType!));
    }
    expect(pages).toBe(Math.ceil(INSTANCE_TYPES.length / 5));
    expect(names.sort()).toEqual(INSTANCE_TYPES.map((t) => t.name).sort());
  });

  it('RunInstances launches tagged instances that DescribeInstances finds by id and tag, and TerminateInstances ends', async () => {
    const run = await ec2.send(
      new RunInstancesCommand({
        ImageId: 'ami-0123456789abcdef0',
        InstanceType: 'm5.large',
        MinCount: 2,
        MaxCount: 2,
        SubnetId: 'subnet-0abc',
        SecurityGroupIds: ['sg-1', 'sg-2'],
        TagSpecifications: [{ ResourceType: 'instance', Tags: [{ Key: 'team', Value: 'platform' }] }],
      }),
    );
    const launched = run.Instances ?? [];
    expect(launched).toHaveLength(2);
    expect(run.ReservationId).toMatch(/^r-/);
    expect(launched[0]).toMatchObject({
      InstanceType: 'm5.large',
      ImageId: 'ami-0123456789abcdef0',
      SubnetId: 'subnet-0abc',
      State: { Name: 'pending', Code: 0 },
      Tags: [{ Key: 'team', Value: 'platform' }],
      SecurityGroups: [{ GroupId: 'sg-1' }, { GroupId: 'sg-2' }],
    });
    const ids = launched.map((i) => i.InstanceId!);

    const byId = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [ids[0]!] }));
    expect(byId.Reservations?.flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId)).toEqual([ids[0]]);
    const byTag = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'tag:team', Values: ['platform'] }] }));
    expect(byTag.Reservations?.flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId).sort()).toEqual([...ids].sort());
    const byIdFilter = await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'instance-id', Values: [ids[1]!] }] }));
    expect(byIdFilter.Reservations?.[0]?.Instances?.[0]?.InstanceId).toBe(ids[1]);

    const term = await ec2.send(new TerminateInstancesCommand({ InstanceIds: ids }));
    expect(term.TerminatingInstances?.map((i) => [i.PreviousState?.Name, i.CurrentState?.Name])).toEqual([
      ['pending', 'shutting-down'],
      ['pending', 'shutting-down'],
    ]);
    expect(sim.instances().filter((i) => ids.includes(i.instanceId)).map((i) => i.state)).toEqual(['shutting-down', 'shutting-down']);
  });

  it('RunInstances from a launch template needs no ImageId', async () => {
    const run = await ec2.send(
      new RunInstancesCommand({ LaunchTemplate: { LaunchTemplateName: 'nodes', Version: '$Latest' }, InstanceType: 'c6g.large', MinCount: 1, MaxCount: 1 }),
    );
    expect(run.Instances?.[0]).toMatchObject({ InstanceType: 'c6g.large', Architecture: 'arm64' });
    expect(run.Instances?.[0]?.ImageId).toMatch(/^ami-/);
  });
});
