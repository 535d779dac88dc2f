import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRuntime } from '@nodes-manager/platform';
import { createTestDatabase, TEST_JWT_SECRET, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from '../../all-in-one/src/all-in-one.js';
import { aKubeNode } from '@nodes-manager/kube/testing';

/**
 * scheduler-scoring's simulate on spot-advisor's EC2 instance catalog, in the all-in-one process. EC2 is the
 * simulator behind a proxy that offers only {@link OFFERED} in DescribeInstanceTypes (an instance-type filter
 * added to each request, so paging stays the simulator's): a proposal of one of those types — more expensive
 * than the bundled catalog's best fit — can only come from the EC2 catalog. The fallback with no spot-advisor
 * is in services/scheduler-scoring/test/scheduler-scoring.int.ts.
 */
const OFFERED = ['m5.4xlarge', 'c5.4xlarge'];

/** narrowingProxy — forwards every EC2 call to `target`, DescribeInstanceTypes narrowed to `types`. */
async function narrowingProxy(target: string, types: readonly string[]): Promise<{ url: string; server: Server }> {
  const filter = ['Filter.1.Name=instance-type', ...types.map((t, i) => `Filter.1.Value.${i + 1}=${encodeURIComponent(t)}`)].join('&');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks).toString('utf8');
      if (/(^|&)Action=DescribeInstanceTypes(&|$)/.test(body) && !body.includes('Filter.')) body = `${body}&${filter}`;
      fetch(target + (req.url ?? '/'), {
        method: req.method ?? 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/x-www-form-urlencoded' },
        ...(req.method === 'GET' ? {} : { body }),
      }).then(
        async (r) => {
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/xml', 'x-amzn-requestid': r.headers.get('x-amzn-requestid') ?? '' });
          res.end(await r.text());
        },
        (e: Error) => {
          res.writeHead(502);
          res.end(e.message);
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let proxy: { url: string; server: Server };
let system: AllInOne;
let savedEndpoint: string | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ podTerminationMs: 50 });
  // One empty m5.xlarge (16 GiB): the simulated 28 GiB pod fits no existing node.
  kube.load({ nodes: [aKubeNode('only-node')], pods: [] } as never);
  ec2 = await startEc2Sim({ region: 'us-east-1' });
  proxy = await narrowingProxy(ec2.url, OFFERED);
  // The SDK reads its endpoint from the process environment, not from the env handed to the services.
  savedEndpoint = process.env['AWS_ENDPOINT_URL_EC2'];
  process.env['AWS_ENDPOINT_URL_EC2'] = proxy.url;
  system = await startAllInOne({
    runtime: createRuntime({ mode: 'all-in-one', logLevel: 'error' }),
    env: {
      DATABASE_URL: db.url,
      AUTH_JWT_ACCESS_SECRET: TEST_JWT_SECRET,
      SCAN_INTERVAL_SECONDS: '3',
      LOG_LEVEL: 'error',
      APP_PORT: '0',
      KUBECONFIG: kube.kubeconfigPath,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
      AWS_ENDPOINT_URL_EC2: proxy.url,
      OPTIMIZE_MODE: 'off',
    },
  });
}, 120_000);

afterAll(async () => {
  await system?.close();
  await new Promise((resolve) => proxy?.server.close(resolve));
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
  if (savedEndpoint === undefined) delete process.env['AWS_ENDPOINT_URL_EC2'];
  else process.env['AWS_ENDPOINT_URL_EC2'] = savedEndpoint;
});

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(system.url + path, {
    ...init,
    headers: { authorization: `Bearer ${testToken('nodes:read nodes:write', 'erin')}`, 'content-type': 'application/json', ...init.headers },
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('all-in-one: simulate buys from spot-advisor’s EC2 instance catalog', () => {
  it('reports catalogSource spot-advisor and proposes only types EC2 offers', async () => {
    const body = await waitFor(
      async () => {
        const r = await api('/api/v1/simulate', { method: 'POST', body: JSON.stringify({ pods: [{ name: 'big', count: 1, cpu: '3', memory: '28Gi' }] }) });
        return r.status === 200 && r.body.catalogSource === 'spot-advisor' && r.body.priceSource === 'spot-advisor' ? r.body : undefined;
      },
      'simulate on spot-advisor’s catalog and prices',
      60_000,
      1000,
    );
    expect(body.catalogTypes).toBe(OFFERED.length);
    expect(body.catalogSourceDetail).toBeUndefined();
    expect(body.newNodes).toBe(1);
    expect(body.unschedulable).toEqual([]);
    // The bundled catalog's cheapest fit is an r5/r6i.xlarge; only EC2's narrowed catalog makes it one of these.
    for (const a of body.additions as { instanceType: string }[]) expect(OFFERED).toContain(a.instanceType);
    expect(ec2.calls().some((c) => c.action === 'DescribeInstanceTypes' && c.status === 200)).toBe(true);
  }, 90_000);

  it('a trigger’s scale-up says it used the EC2 catalog', async () => {
    const r = await api('/api/v1/optimize/trigger', { method: 'POST', body: JSON.stringify({ dryRun: true }) });
    expect(r.status).toBe(202);
    expect(r.body.catalogSource).toBe('spot-advisor');
  });
});
