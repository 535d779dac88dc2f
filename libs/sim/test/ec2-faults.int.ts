import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  DescribeInstancesCommand,
  DescribeInstanceTypesCommand,
  DescribeSpotPriceHistoryCommand,
  EC2Client,
  EC2ServiceException,
  RunInstancesCommand,
  type RunInstancesCommandInput,
} from '@aws-sdk/client-ec2';
import { startEc2Sim, type Ec2Sim } from '@nodes-manager/sim';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';

const NOW = new Date('2026-03-10T12:00:00Z');

/** failureOf — the SDK exception a promise rejects with (fails the test when it resolves). */
async function failureOf(p: Promise<unknown>): Promise<EC2ServiceException> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(EC2ServiceException);
    return e as EC2ServiceException;
  }
  throw new Error('expected the call to fail');
}

const aRun = (over: Partial<RunInstancesCommandInput> = {}): RunInstancesCommandInput => ({
  ImageId: 'ami-0123456789abcdef0',
  InstanceType: 'm5.large',
  MinCount: 1,
  MaxCount: 1,
  ...over,
});

describe('EC2 simulator errors and faults', () => {
  let sim: Ec2Sim;
  let ec2: EC2Client;
  beforeAll(async () => {
    sim = await startEc2Sim({ clock: () => NOW, seed: 3 });
    ec2 = new EC2Client({ region: 'us-east-1', endpoint: sim.url, credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });
  });
  afterEach(() => sim.faults.clear());
  afterAll(async () => {
    ec2.destroy();
    await sim.stop();
  });

  it('throttleNext(n) answers RequestLimitExceeded (503) to exactly the next n calls', async () => {
    sim.faults.throttleNext(2);
    for (let i = 0; i < 2; i++) {
      const e = await failureOf(ec2.send(new DescribeInstanceTypesCommand({})));
      expect(e.name).toBe('RequestLimitExceeded');
      expect(e.$metadata.httpStatusCode).toBe(503);
      expect(e.message).toBe('Request limit exceeded.');
    }
    await expect(ec2.send(new DescribeInstanceTypesCommand({}))).resolves.toBeDefined();
  });

  it('the SDK’s own retries ride out a short throttle', async () => {
    const retrying = new EC2Client({ region: 'us-east-1', endpoint: sim.url, credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 3 });
    try {
      sim.resetCalls();
      sim.faults.throttleNext(1);
      await expect(retrying.send(new DescribeInstanceTypesCommand({ InstanceTypes: ['m5.large'] }))).resolves.toBeDefined();
      expect(sim.calls().map((c) => c.status)).toEqual([503, 200]);
    } finally {
      retrying.destroy();
    }
  });

  it('throttleRate(r) throttles about that share of calls', async () => {
    sim.faults.throttleRate(0.5);
    sim.resetCalls();
    const results = await Promise.allSettled(Array.from({ length: 60 }, () => ec2.send(new DescribeInstanceTypesCommand({ InstanceTypes: ['m5.large'] }))));
    const throttled = results.filter((r) => r.status === 'rejected').length;
    expect(throttled).toBeGreaterThan(15);
    expect(throttled).toBeLessThan(45);
    expect(sim.calls().filter((c) => c.error === 'RequestLimitExceeded')).toHaveLength(throttled);
  });

  it('unauthorized(action) answers UnauthorizedOperation (403) for that action only', async () => {
    sim.faults.unauthorized('RunInstances');
    const e = await failureOf(ec2.send(new RunInstancesCommand(aRun())));
    expect(e.name).toBe('UnauthorizedOperation');
    expect(e.$metadata.httpStatusCode).toBe(403);
    await expect(ec2.send(new DescribeInstancesCommand({}))).resolves.toBeDefined();
  });

  it('DryRun answers DryRunOperation with status 412 and starts nothing', async () => {
    const before = sim.instances().length;
    const e = await failureOf(ec2.send(new RunInstancesCommand(aRun({ DryRun: true }))));
    expect(e.name).toBe('DryRunOperation');
    expect(e.$metadata.httpStatusCode).toBe(412);
    expect(sim.instances()).toHaveLength(before);
  });

  it('DryRun without permission answers UnauthorizedOperation, as EC2 does', async () => {
    sim.faults.unauthorized('RunInstances');
    const e = await failureOf(ec2.send(new RunInstancesCommand(aRun({ DryRun: true }))));
    expect(e.name).toBe('UnauthorizedOperation');
  });

  it('the same ClientToken returns the same reservation and never starts a second instance', async () => {
    const first = await ec2.send(new RunInstancesCommand(aRun({ ClientToken: 'token-same' })));
    const again = await ec2.send(new RunInstancesCommand(aRun({ ClientToken: 'token-same' })));
    expect(again.ReservationId).toBe(first.ReservationId);
    expect(again.Instances?.map((i) => i.InstanceId)).toEqual(first.Instances?.map((i) => i.InstanceId));
    expect(sim.instances().filter((i) => i.clientToken === 'token-same')).toHaveLength(1);
  });

  it('a different request with a used ClientToken is IdempotentParameterMismatch', async () => {
    await ec2.send(new RunInstancesCommand(aRun({ ClientToken: 'token-mismatch' })));
    const e = await failureOf(ec2.send(new RunInstancesCommand(aRun({ ClientToken: 'token-mismatch', InstanceType: 'c5.large' }))));
    expect(e.name).toBe('IdempotentParameterMismatch');
    expect(e.$metadata.httpStatusCode).toBe(400);
    expect(sim.instances().filter((i) => i.clientToken === 'token-mismatch')).toHaveLength(1);
  });

  it.each([
    ['an unknown instance type', 'InvalidParameterValue', aRun({ InstanceType: 'x9.huge' as never })],
    ['no ImageId and no launch template', 'MissingParameter', aRun({ ImageId: undefined })],
    ['a malformed ImageId', 'InvalidAMIID.Malformed', aRun({ ImageId: 'image-1' })],
    ['MinCount above MaxCount', 'InvalidParameterValue', aRun({ MinCount: 3, MaxCount: 2 })],
  ])('RunInstances with %s is refused with %s', async (_what, code, input) => {
    const e = await failureOf(ec2.send(new RunInstancesCommand(input)));
    expect(e.name).toBe(code);
    expect(e.$metadata.httpStatusCode).toBe(400);
  });

  it('an unknown instance id is InvalidInstanceID.NotFound', async () => {
    const e = await failureOf(ec2.send(new DescribeInstancesCommand({ InstanceIds: ['i-0000000000000dead'] })));
    expect(e.name).toBe('InvalidInstanceID.NotFound');
  });

  it('a forged NextToken is InvalidNextToken', async () => {
    const e = await failureOf(ec2.send(new DescribeSpotPriceHistoryCommand({ NextToken: 'not-a-token' })));
    expect(e.name).toBe('InvalidNextToken');
  });

  it('the SDK finds the simulator through AWS_ENDPOINT_URL_EC2 with no endpoint in code', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ENDPOINT_URL_EC2: sim.url, AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y', AWS_REGION: 'us-east-1' });
    const fromEnv = new EC2Client({});
    try {
      sim.resetCalls();
      const out = await fromEnv.send(new DescribeInstanceTypesCommand({ InstanceTypes: ['t3.medium'] }));
      expect(out.InstanceTypes?.[0]?.InstanceType).toBe('t3.medium');
      expect(sim.calls().map((c) => c.action)).toEqual(['DescribeInstanceTypes']);
    } finally {
      fromEnv.destroy();
      for (const k of ['AWS_ENDPOINT_URL_EC2', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('offers the same controls as JSON over HTTP under /_sim for other processes', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/_sim/faults/throttle-next', { n: 1 })).status).toBe(200);
    expect((await failureOf(ec2.send(new DescribeInstanceTypesCommand({})))).name).toBe('RequestLimitExceeded');
    expect((await post('/_sim/faults/unauthorized', { action: 'DescribeInstances' })).status).toBe(200);
    expect((await failureOf(ec2.send(new DescribeInstancesCommand({})))).name).toBe('UnauthorizedOperation');
    expect((await fetch(`${sim.url}/_sim/faults`, { method: 'DELETE' })).status).toBe(200);
    await expect(ec2.send(new DescribeInstancesCommand({}))).resolves.toBeDefined();
    expect((await post('/_sim/faults/throttle-rate', { rate: 2 })).status).toBe(400);

    const calls = (await (await fetch(`${sim.url}/_sim/calls`)).json()) as { calls: { action: string }[] };
    expect(calls.calls.at(-1)?.action).toBe('DescribeInstances');
    const instances = (await (await fetch(`${sim.url}/_sim/instances`)).json()) as { instances: unknown[] };
    expect(instances.instances).toHaveLength(sim.instances().length);
  });
});
