import type { INestApplication, Provider } from '@nestjs/common';
import { FakePauseOwner } from '../../../test/support/fake-pause.js';
import { Payload } from '@nestjs/microservices';
import * as k8s from '@kubernetes/client-node';
import { Commands, DEFAULT_DRAIN_OPTIONS, type CloudEvent, type CommandRequest, type DrainOperation, type DrainRequest, type DrainStatus } from '@nodes-manager/contracts';
import { CodedError, CommandController, createRuntime, type Clock, type Runtime, CommandHandler } from '@nodes-manager/platform';
import { createTestDatabase, testEnv, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { aKubeNode, aKubePod } from '@nodes-manager/kube/testing';
import { startBehindGateway } from '../../../test/support/gateway.js';
import { loadSchedulerScoringConfig } from '../src/config.js';
import { SchedulerScoringModule } from '../src/scheduler-scoring.module.js';
import { OptimizeController } from '../src/optimize.controller.js';

/**
 * FakeUncordon — a hand-written stand-in for the uncordon service's `node.drain` / `drain.get`: records every
 * request and really drains through the simulator (cordon with a merge patch, then one policy/v1 Eviction per
 * pod that is not a DaemonSet or mirror pod). An eviction the simulator refuses (a PodDisruptionBudget's 429)
 * is recorded, not retried, so a test sees whether the plan respected the budgets.
 */
/** drainId — the id FakeUncordon gives its n-th drain (1-based): a uuid, as the uncordon service's are. */
/**
 * busyPair — the fleet's two busy m5.2xlarge nodes (`busy-a`, `busy-b` in us-east-1b), each with nine 500m/1Gi `core`
 * pods (≈ 57% cpu): where the plans of these tests move the idle nodes' pods.
 */
export function busyPair(): { nodes: object[]; pods: object[] } {
  const busy = (node: string) => Array.from({ length: 9 }, (_, i) => aKubePod(`core-${node}-${i}`, node, { app: 'core', cpu: '500m', memory: '1Gi' }));
  return {
    nodes: [aKubeNode('busy-a', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi' }), aKubeNode('busy-b', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi', zone: 'us-east-1b' })],
    pods: [...busy('busy-a'), ...busy('busy-b')],
  };
}

export const drainId = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A drain operation as the uncordon service answers it (its reply schema in libs/contracts). */
const operation = (id: string, node: string, status: DrainStatus, actor: string): DrainOperation => ({
  id,
  node,
  status,
  actor,
  options: { ...DEFAULT_DRAIN_OPTIONS },
  progress: {},
  startedAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

export class FakeUncordon {
  readonly drains: CommandRequest<DrainRequest>[] = [];
  readonly evictions: { node: string; pod: string; status: number }[] = [];
  /** Called as each drain ends (before it answers), e.g. to look at what was recorded or to inject a fault. */
  afterDrain?: (node: string, n: number) => Promise<void> | void;
  constructor(private readonly kc: k8s.KubeConfig) {}
  async drain(req: CommandRequest<DrainRequest>) {
    this.drains.push(req);
    const core = this.kc.makeApiClient(k8s.CoreV1Api);
    const name = req.data.node;
    await core.patchNode({ name, body: { spec: { unschedulable: true } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    const pods = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${name}` });
    for (const p of pods.items) {
      const owner = p.metadata?.ownerReferences?.find((o) => o.controller);
      if (owner?.kind === 'DaemonSet' || owner?.kind === 'Node') continue;
      const pod = `${p.metadata!.namespace}/${p.metadata!.name}`;
      try {
        await core.createNamespacedPodEviction({
          name: p.metadata!.name!,
          namespace: p.metadata!.namespace!,
          body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: p.metadata!.name!, namespace: p.metadata!.namespace! } },
        });
        this.evictions.push({ node: name, pod, status: 201 });
      } catch (err) {
        this.evictions.push({ node: name, pod, status: (err as { code?: number }).code ?? 0 });
      }
    }
    const n = this.drains.length;
    await this.afterDrain?.(name, n);
    return operation(drainId(n), name, 'running', req.meta.actor);
  }
  get(id: string) {
    const i = [...this.drains.keys()].find((k) => drainId(k + 1) === id);
    const d = i === undefined ? undefined : this.drains[i];
    if (!d) throw new CodedError('NOT_FOUND', `drain operation ${id} not found`);
    return operation(id, d.data.node, 'completed', d.meta.actor);
  }
}
const uncordon = { current: undefined as FakeUncordon | undefined };

@CommandController()
class FakeUncordonCommands {
  @CommandHandler(Commands.nodeDrain)
  drain(@Payload() req: CommandRequest<DrainRequest>) {
    if (!uncordon.current) throw new Error('FakeUncordon: node.drain called but no fake is installed');
    return uncordon.current.drain(req);
  }
  @CommandHandler(Commands.drainGet)
  get(@Payload() req: CommandRequest<{ id: string }>) {
    if (!uncordon.current) throw new Error('FakeUncordon: drain.get called but no fake is installed');
    return uncordon.current.get(req.data.id);
  }
}

export interface Harness {
  url: string;
  sim: KubeSim;
  db: TestDatabase;
  runtime: Runtime;
  app: INestApplication;
  events: CloudEvent[];
  uncordon: FakeUncordon;
  /** The optimisation controller: `settled()` after becoming leader or the cache's sync, which are not timers. */
  optimize: OptimizeController;
  /** relayed — waits until the outbox relay has published every event committed so far (it runs on real time). */
  relayed(): Promise<void>;
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * startHarness — the gateway and scheduler-scoring in ONE all-in-one process (in-process commands, so parallel
 * test runs never share RabbitMQ queues), real Postgres with the real migrations, the Kubernetes simulator over
 * HTTP loaded with `fleet`, and a fake uncordon service. No spot-advisor: prices fall back to the bundled table.
 */
export async function startHarness(fleet: { nodes: object[]; pods: object[]; pdbs?: object[] }, env: Record<string, string> = {}, opts: { clock?: Clock; providers?: Provider[] } = {}): Promise<Harness> {
  const db = await createTestDatabase('nm_scheduler');
  const sim = await startKubeSim({ podTerminationMs: 50 });
  sim.load(fleet as never);
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'warn', ...(opts.clock ? { clock: opts.clock } : {}) });
  const cfg = loadSchedulerScoringConfig(testEnv(db.url, { KUBECONFIG: sim.kubeconfigPath, ...env }));
  const fake = new FakeUncordon(sim.kubeConfig('test-fake-uncordon'));
  uncordon.current = fake;
  const { app, url, events, call } = await startBehindGateway({
    databaseUrl: db.url,
    runtime,
    modules: [SchedulerScoringModule.forRoot(cfg, { providers: opts.providers ?? [] })],
    controllers: [FakeUncordonCommands, FakePauseOwner],
  });
  return {
    url,
    sim,
    db,
    runtime,
    app,
    events,
    uncordon: fake,
    optimize: app.get(OptimizeController, { strict: false }),
    async relayed() {
      const unsent = async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM nodes.outbox_scheduler_scoring WHERE sent_at IS NULL`))[0]!.n;
      await waitFor(async () => (await unsent()) === 0, 'the outbox relay to publish every event');
    },
    call,
    async stop() {
      await app.close();
      await sim.stop();
      await db.drop();
    },
  };
}
