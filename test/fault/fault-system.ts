import { readFileSync, writeFileSync } from 'node:fs';
import { ServiceNames, type ServiceName } from '@nodes-manager/contracts';
import { assertBuilt, DIST, startService, startTogether, stopProcess, type ServiceProcess } from '../e2e/harness.js';

/** The services that run loops under a leader lock; the fault suite runs two replicas of each. */
export const LOOPING: readonly ServiceName[] = ['node-sync', 'uncordon', 'scheduler-scoring', 'karpenter-gateway', 'spot-advisor'];

export interface Replica extends ServiceProcess {
  replica: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null; at: number };
}

/**
 * FaultSystem — the six services as separate processes (two replicas of every looping service) from the build,
 * as production runs them, with their links to Postgres, RabbitMQ and the Kubernetes API through fault proxies.
 * `env` is every process's environment (test/support/split-system.ts). Set FAULT_DIST to run the suite against
 * another build (e.g. an older one, to see it fail there).
 */
export class FaultSystem {
  readonly replicas: Replica[] = [];
  /** Processes that ended without the test asking them to (once up: a failed start fails the start instead). */
  readonly unexpectedExits: Replica[] = [];
  private readonly expected = new Set<Replica>();

  private constructor(
    private readonly env: Record<string, string>,
    readonly dist: string,
  ) {}

  static async start(env: Record<string, string>, replicas = 2): Promise<FaultSystem> {
    const dist = process.env['FAULT_DIST'] ?? DIST;
    if (dist === DIST) assertBuilt();
    const sys = new FaultSystem(env, dist);
    const specs = ServiceNames.flatMap((service) => Array.from({ length: LOOPING.includes(service) ? replicas : 1 }, (_, replica) => ({ service, replica })));
    const started = await startTogether(
      specs.map(({ service, replica }) => ({ service, env, name: `${service}#${replica}` })),
      { dist, timeoutMs: 120_000 },
    );
    started.forEach((p, i) => sys.track(p, specs[i]!.replica));
    return sys;
  }

  get gateway(): Replica {
    return this.replicas.find((r) => r.service === 'api-gateway')!;
  }

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.gateway.port}`;
  }

  running(service?: ServiceName): Replica[] {
    return this.replicas.filter((r) => !r.exit && (!service || r.service === service));
  }

  /** track — a replica that is up, from now on watched for exits. */
  private track(p: ServiceProcess, replica: number): Replica {
    const r = Object.assign(p, { replica }) as Replica;
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      r.exit = { code, signal, at: Date.now() };
      if (!this.expected.has(r)) this.unexpectedExits.push(r);
    };
    if (r.child.exitCode !== null || r.child.signalCode !== null) onExit(r.child.exitCode, r.child.signalCode);
    else r.child.on('exit', onExit);
    this.replicas.push(r);
    return r;
  }

  /** leader — the replica holding `lock` now, from the services' own log lines ("became leader"/"lost leadership"). */
  leader(lock: string): Replica | undefined {
    return this.running().find((r) => isLeader(r, lock));
  }

  /** kill — ends a replica on purpose (the suite does not count it as a crash); resolves with how it ended. */
  async kill(p: Replica, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    this.expected.add(p);
    const t0 = Date.now();
    if (!p.exit) {
      await new Promise<void>((resolve) => {
        p.child.once('exit', () => resolve());
        p.child.kill(signal);
      });
    }
    return { code: p.exit!.code, signal: p.exit!.signal, ms: p.exit!.at - t0 };
  }

  /** replace — a new replica in place of one that ended (what a Deployment does), once it is up. */
  async replace(p: Replica): Promise<Replica> {
    const next = await startService(p.service, this.env, { dist: this.dist, name: `${p.service}#${p.replica}`, timeoutMs: 120_000 });
    return this.track(next, p.replica);
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.running().map((p) => {
        this.expected.add(p);
        return stopProcess(p, 20_000);
      }),
    );
  }
}

/** isLeader — whether the replica's last leadership line for `lock` says it leads. */
export function isLeader(p: ServiceProcess, lock: string): boolean {
  const lines = p.output.join('').split('\n').filter((l) => l.includes(`"lock":"${lock}"`));
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i]!.includes('became leader')) return true;
    if (lines[i]!.includes('lost leadership')) return false;
  }
  return false;
}

/** proxiedKubeconfig — a copy of the simulator's kubeconfig whose server is the fault proxy in front of it. */
export function proxiedKubeconfig(path: string, simUrl: string, proxyUrl: string): string {
  const out = path.replace(/\.kubeconfig$/, '') + '-proxied.kubeconfig';
  writeFileSync(out, readFileSync(path, 'utf8').split(simUrl.replace(/\/$/, '')).join(proxyUrl.replace(/\/$/, '')));
  return out;
}

/** Figures — what the suite measured, printed at the end and copied into docs/reliability.md. */
export const figures: Record<string, string | number> = {};
export function figure(name: string, value: string | number): void {
  figures[name] = value;
  process.stdout.write(`fault figure: ${name} = ${value}\n`);
}
