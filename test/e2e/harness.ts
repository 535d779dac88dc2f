import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { ServiceNames, type ServiceName } from '@nodes-manager/contracts';
import { TEST_JWT_SECRET, TEST_RABBITMQ_URL, waitFor } from '@nodes-manager/platform/testing';

export const DIST = 'dist/services';

/** freePort — a port the OS says is free right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  service: ServiceName;
  port: number;
  child: ChildProcess;
  output: string[];
}

export function assertBuilt(): void {
  if (!existsSync(`${DIST}/api-gateway/src/main.js`)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
}

/** spawnService — one service from the build, as production runs it. */
export function spawnService(service: ServiceName, env: NodeJS.ProcessEnv, port: number, dist = DIST): ServiceProcess {
  const child = spawn(process.execPath, [`${dist}/${service}/src/main.js`], {
    env: { PATH: process.env['PATH'], AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  return { service, port, child, output };
}

export interface SplitSystem {
  gatewayUrl: string;
  processes: Map<ServiceName, ServiceProcess>;
  stop(): Promise<void>;
}

/**
 * startSplitSystem — the six services as separate processes against the real broker and database (split mode, docs/design.md#two-ways-to-run;
 * split mode), each on its own port; resolves once every one answers /healthz.
 */
export async function startSplitSystem(opts: { databaseUrl: string; env?: Record<string, string>; perService?: Partial<Record<ServiceName, Record<string, string>>> }): Promise<SplitSystem> {
  assertBuilt();
  const processes = new Map<ServiceName, ServiceProcess>();
  for (const service of ServiceNames) {
    const port = await freePort();
    const env: Record<string, string> = {
      DATABASE_URL: opts.databaseUrl,
      RABBITMQ_URL: TEST_RABBITMQ_URL,
      AUTH_JWT_ACCESS_SECRET: TEST_JWT_SECRET,
      SCAN_INTERVAL_SECONDS: '2',
      LOG_LEVEL: 'info',
      ...(service === 'api-gateway' ? { APP_PORT: String(port) } : { HEALTH_PORT: String(port) }),
      ...opts.env,
      ...opts.perService?.[service],
    };
    processes.set(service, spawnService(service, env, port));
  }
  const system: SplitSystem = {
    gatewayUrl: `http://127.0.0.1:${processes.get('api-gateway')!.port}`,
    processes,
    async stop() {
      await Promise.all(
        [...processes.values()].map(
          (p) =>
            new Promise<void>((resolve) => {
              if (p.child.exitCode !== null || p.child.signalCode) return resolve();
              p.child.once('exit', () => resolve());
              p.child.kill('SIGCONT');
              p.child.kill('SIGTERM');
              setTimeout(() => p.child.kill('SIGKILL'), 10_000).unref();
            }),
        ),
      );
    },
  };
  try {
    for (const p of processes.values()) {
      await waitFor(
        async () => {
          if (p.child.exitCode !== null) throw new Error(`${p.service} exited: ${p.output.join('').slice(-2000)}`);
          return (await fetch(`http://127.0.0.1:${p.port}/healthz`)).ok;
        },
        `${p.service} to start`,
        90_000,
        250,
      );
    }
  } catch (err) {
    await system.stop();
    throw err;
  }
  return system;
}

/** runToExit — a service process expected to refuse to start: its exit code and what it printed. */
export function runToExit(service: ServiceName, env: NodeJS.ProcessEnv, dist = DIST): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`${dist}/${service}/src/main.js`], { env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, output });
    });
  });
}
