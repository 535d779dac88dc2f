/**
 * Read-path benchmark: `GET /api/v1/nodes` through the gateway against a direct SQL read of the same page, under the
 * same concurrent load. node-sync and the api-gateway run as production runs them (each its own process from dist/,
 * commands over RabbitMQ in a vhost of their own), node-sync synced from a simulated fleet (`--nodes`, default 2,000).
 * Then, in turn and `--rounds` times (default 3, interleaved), `--clients` concurrent callers (default 16) each read
 * the first page of `--limit` nodes (default 100) as fast as they get answers for `--seconds` (default 10, after a 2 s
 * warm-up):
 *  - the baseline: node-sync's own repository query (`NodeSyncRepository.list`) on a pool of node-sync's size, in this
 *    process — the same SQL, rows and mapping, without HTTP, authentication, the bus or the checks;
 *  - the gateway: the HTTP request with a bearer token.
 * Reports each one's requests per second, p50 and p99, and the gateway's p99 as a multiple of the baseline's (the
 * figure docs/benchmarks.md keeps: under 2×). `--profile DIR` runs both services under `node --cpu-prof` into DIR;
 * `--dist DIR` runs the services of another build (the baseline stays this one's).
 * Needs Postgres at TEST_PG_ADMIN_URL and RabbitMQ at TEST_RABBITMQ_URL (a vhost is made through `rabbitmqctl` or the
 * management API, and removed at the end).
 *   npm run build && node dist/bench/read-path.bench.js [--nodes 2000] [--clients 16] [--limit 100] [--seconds 10] [--rounds 3]
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@nodes-manager/platform';
import { createTestDatabase, TEST_JWT_SECRET, TEST_RABBITMQ_URL, testToken } from '@nodes-manager/platform/testing';
import { generateFleet, startKubeSim } from '@nodes-manager/sim';
import { migrations } from '../migrations/node-sync/index.js';
import { entities } from '../services/node-sync/src/adapters/outbound/node-sync.entities.js';
import { NodeSyncRepository } from '../services/node-sync/src/adapters/outbound/node-sync.repository.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const stringArg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const NODES = arg('nodes', 2_000);
const CLIENTS = arg('clients', 16);
const LIMIT = arg('limit', 100);
const SECONDS = arg('seconds', 10);
const ROUNDS = arg('rounds', 3);
const WARMUP_SECONDS = 2;
const PROFILE = stringArg('profile');
/** The build whose services run (another checkout's dist/, to compare two builds' ratios on one machine). */
const DIST = stringArg('dist') ?? 'dist';
/** node-sync's pool: DATABASE_POOL_SIZE's default, so the baseline reads on as many connections as the service. */
const POOL = 10;
const run = promisify(execFile);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A vhost of the bench's own (the services' queue names are global within one), made and removed by rabbitmqctl or the management API. */
async function vhost(): Promise<{ url: string; remove(): Promise<void> }> {
  const name = `nm_bench_read_${randomBytes(4).toString('hex')}`;
  const base = new URL(TEST_RABBITMQ_URL);
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(base.username || 'guest')}:${decodeURIComponent(base.password || 'guest')}`).toString('base64')}`;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`http://${base.hostname}:15672/api${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}), signal: AbortSignal.timeout(10_000) });
  let remove: () => Promise<void>;
  if (await api('GET', '/overview').then((r) => r.ok, () => false)) {
    await api('PUT', `/vhosts/${name}`, {});
    await api('PUT', `/permissions/${name}/${decodeURIComponent(base.username || 'guest')}`, { configure: '.*', write: '.*', read: '.*' });
    remove = async () => void (await api('DELETE', `/vhosts/${name}`));
  } else {
    await run('rabbitmqctl', ['add_vhost', name]);
    await run('rabbitmqctl', ['set_permissions', '-p', name, decodeURIComponent(base.username || 'guest'), '.*', '.*', '.*']);
    remove = async () => void (await run('rabbitmqctl', ['delete_vhost', name]));
  }
  const u = new URL(TEST_RABBITMQ_URL);
  u.pathname = `/${name}`;
  return { url: u.toString(), remove };
}

/** start — a service's main.js from dist/ on `port`, resolved once its /healthz answers. */
async function start(service: 'node-sync' | 'api-gateway', env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []), `${DIST}/services/${service}/src/main.js`], {
    env: { PATH: process.env['PATH'], AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env, [service === 'api-gateway' ? 'APP_PORT' : 'HEALTH_PORT']: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = performance.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}`);
    if (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false)) return { child, port };
    if (performance.now() > deadline) throw new Error(`${service} was not up within 120 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

interface Load {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** summary — requests per second, p50 and p99 of the times of `ROUNDS` loads. */
function summary(times: number[]): Load {
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 100) / 100;
  return { requests: times.length, perSecond: Math.round(times.length / (ROUNDS * SECONDS)), p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** load — `CLIENTS` callers of `read` back to back: a warm-up, then `SECONDS` measured; each call's time (ms). */
async function load(read: () => Promise<void>): Promise<number[]> {
  const until = async (ms: number, into?: number[]) => {
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < end) {
          const t = performance.now();
          await read();
          into?.push(performance.now() - t);
        }
      }),
    );
  };
  await until(WARMUP_SECONDS * 1000);
  const times: number[] = [];
  await until(SECONDS * 1000, times);
  return times;
}

async function main(): Promise<void> {
  const sim = await startKubeSim({ bookmarkIntervalMs: 60_000 });
  sim.load(generateFleet({ seed: 42, nodes: NODES, podsPerNode: 3 }));
  const db = await createTestDatabase('nm_bench_read');
  const mq = await vhost();
  const common = { DATABASE_URL: db.url, RABBITMQ_URL: mq.url, AUTH_JWT_ACCESS_SECRET: TEST_JWT_SECRET, SCAN_INTERVAL_SECONDS: '60', LOG_LEVEL: 'info' };
  const services: ChildProcess[] = [];
  const ds: DataSource = createDataSource({ service: 'node-sync', url: db.url, entities, migrations, poolSize: POOL });
  try {
    const nodeSync = await start('node-sync', { ...common, KUBECONFIG: sim.kubeconfigPath });
    services.push(nodeSync.child);
    const gateway = await start('api-gateway', common);
    services.push(gateway.child);
    await ds.initialize();
    for (let synced = 0; synced < NODES; ) {
      await new Promise((r) => setTimeout(r, 500));
      synced = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM nodes.nodes'))[0]!.n);
    }

    const repo = new NodeSyncRepository(ds);
    const query = { limit: LIMIT, sort: 'name', includeDeleted: false } as const;
    const first = await repo.list(query);
    const url = `http://127.0.0.1:${gateway.port}/api/v1/nodes?limit=${LIMIT}`;
    const headers = { authorization: `Bearer ${testToken('nodes:read', 'bench')}` };
    const viaGateway = async () => {
      const res = await fetch(url, { headers });
      const body = (await res.json()) as { items: unknown[] };
      if (res.status !== 200 || body.items.length !== first.items.length) throw new Error(`the gateway answered ${res.status} with ${body.items?.length} items`);
    };
    await viaGateway();

    // Interleaved rounds, so that a machine whose load moves meanwhile weighs on both alike.
    const baselineTimes: number[] = [];
    const gatewayTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      baselineTimes.push(...(await load(async () => void (await repo.list(query)))));
      gatewayTimes.push(...(await load(viaGateway)));
    }
    const baseline = summary(baselineTimes);
    const gatewayLoad = summary(gatewayTimes);
    const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    process.stdout.write(
      `${JSON.stringify(
        {
          nodes: NODES,
          clients: CLIENTS,
          pageSize: LIMIT,
          services: DIST,
          seconds: SECONDS,
          rounds: ROUNDS,
          loadAverage: (await import('node:os')).loadavg().map((l) => Math.round(l * 10) / 10),
          baselineDirectSql: baseline,
          gateway: gatewayLoad,
          gatewayP99OverBaseline: ratio(gatewayLoad.p99Ms, baseline.p99Ms),
          gatewayP50OverBaseline: ratio(gatewayLoad.p50Ms, baseline.p50Ms),
          goal: 'gateway p99 under 2x the direct SQL read',
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await Promise.all(services.map(stop));
    if (ds.isInitialized) await ds.destroy();
    await sim.stop();
    await db.drop();
    await mq.remove().catch(() => undefined);
  }
}

await main();
