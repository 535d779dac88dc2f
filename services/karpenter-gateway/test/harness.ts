import type { INestApplication, Provider } from '@nestjs/common';
import { FakePauseOwner } from '../../../test/support/fake-pause.js';
import { Payload } from '@nestjs/microservices';
import { Commands, type CloudEvent, type CommandRequest, type OptimizeReplaceRequest, type OptimizeReplaceResult } from '@nodes-manager/contracts';
import { CommandController, createRuntime, type Clock, type Runtime, CommandHandler } from '@nodes-manager/platform';
import { createTestDatabase, TcpProxy, testEnv, type TestDatabase } from '@nodes-manager/platform/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { startBehindGateway } from '../../../test/support/gateway.js';
import { loadKarpenterGatewayConfig } from '../src/config.js';
import { KarpenterGatewayModule } from '../src/karpenter-gateway.module.js';
import { ConsolidationApprovalsController } from '../src/consolidation-approvals.controller.js';
import { STEERING_SOURCES, type SteeringSources } from '../src/steering/steering-sources.adapter.js';

/**
 * FakeScheduler — a hand-written stand-in for scheduler-scoring's `optimize.plan` and `optimize.replace`: answers
 * what the test set, records every request, and fails loudly when the test set no plan. `optimize.replace` answers by
 * `replaceOutcome` (default: the first node accepted — a budget of one — and the others queued).
 */
export class FakeScheduler {
  readonly calls: CommandRequest<{ nodePool?: string }>[] = [];
  readonly replaceCalls: CommandRequest<OptimizeReplaceRequest>[] = [];
  reply?: (req: CommandRequest<{ nodePool?: string }>) => unknown;
  replaceOutcome = (node: string, i: number): OptimizeReplaceResult['results'][number]['outcome'] => (i === 0 ? 'accepted' : 'queued');
  replace(req: CommandRequest<OptimizeReplaceRequest>): OptimizeReplaceResult {
    this.replaceCalls.push(req);
    const results = req.data.nodes.map((node, i) => {
      const outcome = this.replaceOutcome(node, i);
      return outcome === 'accepted'
        ? { node, outcome, reason: 'drain_started', detail: 'drain running', operationId: `op-${this.replaceCalls.length}-${i}` }
        : { node, outcome, reason: outcome === 'queued' ? 'max_disruptions' : 'node_gone', detail: outcome };
    });
    return { requestId: `00000000-0000-4000-8000-${String(this.replaceCalls.length).padStart(12, '0')}`, nodePool: req.data.nodePool, action: 'drain', detail: 'fake', results };
  }
  planRemoving(nodes: string[], reason = 'underutilized'): void {
    this.reply = () => ({ remove: nodes.map((node) => ({ node, reason, utilization: 0.1, pods: [], savingsUsdPerHour: 0.05, priceKnown: true })), blocked: [], pdbImpact: [], hourlySavingsUsd: 0, monthlySavingsUsd: 0 });
  }
}
const scheduler = { current: undefined as FakeScheduler | undefined };

@CommandController()
class FakeSchedulerCommands {
  @CommandHandler(Commands.optimizePlan)
  plan(@Payload() req: CommandRequest<{ nodePool?: string }>) {
    const s = scheduler.current;
    if (!s?.reply) throw new Error('FakeScheduler: optimize.plan called but no plan was configured');
    s.calls.push(req);
    return s.reply(req);
  }

  @CommandHandler(Commands.optimizeReplace)
  replace(@Payload() req: CommandRequest<OptimizeReplaceRequest>) {
    if (!scheduler.current) throw new Error('FakeScheduler: optimize.replace called but no fake is installed');
    return scheduler.current.replace(req);
  }
}

export interface Harness {
  url: string;
  sim: KubeSim;
  db: TestDatabase;
  runtime: Runtime;
  app: INestApplication;
  events: CloudEvent[];
  scheduler: FakeScheduler;
  /** With `proxyDatabase`: the fault proxy between karpenter-gateway and Postgres. */
  dbLink?: TcpProxy;
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  writesSeen(): number;
  /** controllersSettled — resolves once the service's controllers have nothing queued or reconciling (timers aside). */
  controllersSettled(): Promise<void>;
  stop(): Promise<void>;
}

export const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * startHarness — the gateway and karpenter-gateway in ONE all-in-one process (in-process commands, so parallel
 * test runs never share RabbitMQ queues), real Postgres, the Kubernetes simulator over HTTP, and a fake
 * scheduler-scoring. Discovery is cached for 1 s.
 */
export async function startHarness(opts: {
  karpenter: boolean;
  clock?: Clock;
  commandTimeoutMs?: number;
  env?: Record<string, string>;
  steeringSources?: SteeringSources;
  providers?: Provider[];
  proxyDatabase?: boolean;
  /** Another harness's database and simulator: a second replica of karpenter-gateway (its stop leaves them to their owner). */
  shared?: Pick<Harness, 'db' | 'sim'>;
}): Promise<Harness> {
  const db = opts.shared?.db ?? (await createTestDatabase('nm_karpenter'));
  const dbLink = opts.proxyDatabase ? await TcpProxy.forUrl(db.url) : undefined;
  const sim = opts.shared?.sim ?? (await startKubeSim({ karpenter: opts.karpenter }));
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'warn', ...(opts.clock ? { clock: opts.clock } : {}) });
  const cfg = loadKarpenterGatewayConfig(
    // Steering reads uncordon and spot-advisor, which this harness does not run: off unless a test turns it on.
    testEnv(dbLink ? dbLink.url(db.url) : db.url, { KUBECONFIG: sim.kubeconfigPath, KARPENTER_DISCOVERY_CACHE_SECONDS: '1', COMMAND_TIMEOUT_MS: String(opts.commandTimeoutMs ?? 10_000), STEERING_MODE: 'off', ...opts.env }),
  );
  const fake = new FakeScheduler();
  scheduler.current = fake;
  const { app, url, events, call } = await startBehindGateway({
    databaseUrl: db.url,
    runtime,
    modules: [KarpenterGatewayModule.forRoot(cfg, { ...(opts.steeringSources ? { steeringSources: { provide: STEERING_SOURCES, useValue: opts.steeringSources } } : {}), providers: opts.providers ?? [] })],
    controllers: [FakeSchedulerCommands, FakePauseOwner],
  });
  return {
    url,
    sim,
    db,
    runtime,
    app,
    events,
    scheduler: fake,
    ...(dbLink ? { dbLink } : {}),
    call,
    controllersSettled: () => app.get(ConsolidationApprovalsController, { strict: false }).approvals.controller.settled(),
    writesSeen() {
      const s = sim.stats().byVerb;
      return WRITE_VERBS.reduce((n, v) => n + (s[v] ?? 0), 0);
    },
    async stop() {
      dbLink?.restore();
      await app.close();
      await dbLink?.stop();
      if (opts.shared) return;
      await sim.stop();
      await db.drop();
    },
  };
}

/** aNode — a Ready node of a Karpenter pool, as the simulator stores it. */
export function aNode(name: string, pool: string, annotations: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'karpenter.sh/nodepool': pool, 'kubernetes.io/hostname': name }, annotations },
    spec: { providerID: `aws:///us-east-1a/i-${name}` },
    status: {
      capacity: { cpu: '2', memory: '8Gi', pods: '29' },
      allocatable: { cpu: '1930m', memory: '7Gi', pods: '29' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: '', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' }],
    },
  };
}
