import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { ServiceNames, type ServiceName } from '@nodes-manager/contracts';

export const DIST = 'dist/services';

/** freePort — a port the OS says is free right now (another process may take it before ours binds it: see startService). */
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

/** portVariable — the variable a service's HTTP port (the gateway's API, every other service's health) is set by. */
export const portVariable = (service: ServiceName): 'APP_PORT' | 'HEALTH_PORT' => (service === 'api-gateway' ? 'APP_PORT' : 'HEALTH_PORT');

export interface ServiceProcess {
  service: ServiceName;
  port: number;
  child: ChildProcess;
  output: string[];
}

export function assertBuilt(): void {
  if (!existsSync(`${DIST}/api-gateway/src/main.js`)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
}

/** spawnMain — a service's main.js from the build, with only PATH of this process's environment. */
function spawnMain(service: ServiceName, env: NodeJS.ProcessEnv, dist: string): ChildProcess {
  return spawn(process.execPath, [`${dist}/${service}/src/main.js`], {
    env: { PATH: process.env['PATH'], AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** spawnService — one service from the build, as production runs it, listening on `port`; does not wait for it. */
export function spawnService(service: ServiceName, env: NodeJS.ProcessEnv, port: number, dist = DIST): ServiceProcess {
  const child = spawnMain(service, { ...env, [portVariable(service)]: String(port) }, dist);
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  return { service, port, child, output };
}

/** outputTail — the last lines a process printed, for an error message. */
export const outputTail = (p: ServiceProcess, chars = 3000): string => p.output.join('').slice(-chars).trimEnd() || '(it printed nothing)';

/** ServiceExited — the process ended before it was up; `portInUse` when its port was taken first. */
export class ServiceExited extends Error {
  readonly portInUse: boolean;
  constructor(name: string, p: ServiceProcess) {
    const how = p.child.signalCode ? `on ${p.child.signalCode}` : `with code ${p.child.exitCode}`;
    super(`${name} exited ${how} before it was up; its last output:\n${outputTail(p)}`);
    this.portInUse = p.output.join('').includes('EADDRINUSE');
  }
}

const exited = (p: ServiceProcess): boolean => p.child.exitCode !== null || p.child.signalCode !== null;
const LOUD_LEVELS = new Set(['trace', 'debug', 'info', undefined]);

/**
 * untilUp — resolves once the process has said `service started` (it logs that after binding its port, so the port
 * answering is this process and not another that took it) and answers /healthz. Fails at once when the process
 * exits first, naming it and showing the tail of its output; past `timeoutMs`, with the same tail. `logLevel` is the
 * process's LOG_LEVEL: above info it does not log its start, and /healthz alone says it is up.
 */
export async function untilUp(p: ServiceProcess, o: { logLevel?: string | undefined; timeoutMs?: number | undefined; name?: string | undefined } = {}): Promise<void> {
  const { timeoutMs = 90_000, name = p.service } = o;
  const announces = LOUD_LEVELS.has(o.logLevel);
  let onExit = (): void => undefined;
  const exit = new Promise<void>((resolve) => {
    onExit = resolve;
    p.child.once('exit', onExit);
  });
  const deadline = performance.now() + timeoutMs;
  try {
    for (;;) {
      if (exited(p)) throw new ServiceExited(name, p);
      if (!announces || p.output.some((chunk) => chunk.includes('"msg":"service started"'))) {
        const ok = await fetch(`http://127.0.0.1:${p.port}/healthz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
        if (ok && !exited(p)) return;
      }
      if (performance.now() > deadline) throw new Error(`${name} was not up within ${timeoutMs} ms; its last output:\n${outputTail(p)}`);
      await Promise.race([exit, new Promise((r) => setTimeout(r, 250))]);
    }
  } finally {
    p.child.off('exit', onExit);
  }
}

export interface StartOptions {
  dist?: string;
  /** How the errors name it (default: the service). */
  name?: string;
  timeoutMs?: number;
  /** Called with every process spawned, also one that then fails to start. */
  onSpawn?: (p: ServiceProcess) => void;
}

/** How many ports a start tries when another process took the one picked before this one bound it. */
const PORT_ATTEMPTS = 4;

/**
 * startService — {@link spawnService} on a free port and {@link untilUp}. When another process took the port between
 * {@link freePort} and the bind (EADDRINUSE), it starts again on another port; any other early exit fails at once.
 */
export async function startService(service: ServiceName, env: NodeJS.ProcessEnv, o: StartOptions = {}): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    const p = spawnService(service, env, await freePort(), o.dist);
    o.onSpawn?.(p);
    try {
      await untilUp(p, { logLevel: env['LOG_LEVEL'], timeoutMs: o.timeoutMs, name: o.name });
      return p;
    } catch (err) {
      if (!(err instanceof ServiceExited && err.portInUse && attempt < PORT_ATTEMPTS)) {
        if (!exited(p)) await stopProcess(p);
        throw err;
      }
    }
  }
}

/** stopProcess — SIGTERM (and SIGCONT, should it be stopped), SIGKILL after `graceMs`; resolves once it exited. */
export function stopProcess(p: ServiceProcess, graceMs = 10_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (exited(p)) return resolve();
    p.child.once('exit', () => resolve());
    p.child.kill('SIGCONT');
    p.child.kill('SIGTERM');
    setTimeout(() => p.child.kill('SIGKILL'), graceMs).unref();
  });
}

/**
 * startTogether — several {@link startService}s at once; when one fails, every other is stopped and its error is the
 * answer (no process is left running behind a failed start).
 */
export async function startTogether(specs: readonly { service: ServiceName; env: NodeJS.ProcessEnv; name?: string }[], o: Omit<StartOptions, 'name'> = {}): Promise<ServiceProcess[]> {
  const spawned: ServiceProcess[] = [];
  const starts = specs.map((s) => startService(s.service, s.env, { ...o, ...(s.name ? { name: s.name } : {}), onSpawn: (p) => (spawned.push(p), o.onSpawn?.(p)) }));
  try {
    return await Promise.all(starts);
  } catch (err) {
    await Promise.all(spawned.map((p) => stopProcess(p)));
    await Promise.allSettled(starts);
    await Promise.all(spawned.map((p) => stopProcess(p))); // one that was starting again on another port meanwhile
    throw err;
  }
}

export interface SplitSystem {
  gatewayUrl: string;
  processes: Map<ServiceName, ServiceProcess>;
  stop(): Promise<void>;
}

/**
 * startSplitSystem — the six services as separate processes against the real broker and database (split mode,
 * docs/design.md#two-ways-to-run), each on its own port; resolves once every one is up. `env` is every process's
 * environment (test/support/split-system.ts), `perService` adds to one service's; `timeoutMs` bounds each start (90 s).
 */
export async function startSplitSystem(opts: { env: Record<string, string>; perService?: Partial<Record<ServiceName, Record<string, string>>>; timeoutMs?: number }): Promise<SplitSystem> {
  assertBuilt();
  const started = await startTogether(ServiceNames.map((service) => ({ service, env: { ...opts.env, ...opts.perService?.[service] } })), opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {});
  const processes = new Map(started.map((p) => [p.service, p] as const));
  return {
    gatewayUrl: `http://127.0.0.1:${processes.get('api-gateway')!.port}`,
    processes,
    async stop() {
      await Promise.all([...processes.values()].map((p) => stopProcess(p)));
    },
  };
}

/** runToExit — a service process expected to refuse to start: its exit code and what it printed. */
export function runToExit(service: ServiceName, env: NodeJS.ProcessEnv, dist = DIST): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawnMain(service, { [portVariable(service)]: '0', ...env }, dist);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, output });
    });
  });
}
