import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import type { Clock } from '@nodes-manager/platform';
import { createRuntime, type Runtime } from '@nodes-manager/platform';
import { startTestApp, testEnv, testToken, waitFor } from '@nodes-manager/platform/testing';
import { testGatewayModule } from '../../../test/support/gateway.js';
import { loadUncordonConfig } from '../src/config.js';
import { UncordonModule } from '../src/uncordon.module.js';
import { UncordonService, type CycleResult } from '../src/auto-uncordon/uncordon.service.js';
import { AutoUncordonController } from '../src/auto-uncordon/auto-uncordon.controller.js';
import { DrainController } from '../src/drain/drain.controller.js';
import { FencingController } from '../src/fencing/fencing.controller.js';
import { PressureController } from '../src/pressure/pressure.controller.js';
import { RebalanceLedgerController } from '../src/rebalance-ledger/rebalance-ledger.controller.js';
import { UNCORDON_LEADER } from '../src/tokens.js';
import type { LeaderElector } from '@nodes-manager/platform';

export interface UncordonApp {
  app: INestApplication;
  runtime: Runtime;
  url?: string;
  service: UncordonService;
  leader: LeaderElector;
  /** cycle — an auto-uncordon pass that starts after this call (none, empty, in a replica that does not lead). */
  cycle(): Promise<CycleResult>;
  /** drains — the drain controller: `enqueue(id)` carries an operation on, as the `node.drain` command does. */
  drains: DrainController;
  /** settled — resolves once no controller of the service has a key queued or reconciling (timers for later aside). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * startUncordon — the uncordon module (and, with `gateway`, the api-gateway in the same process over the
 * in-process transport), pointed at a simulator's kubeconfig and a test database.
 */
export async function startUncordon(o: {
  databaseUrl: string;
  kubeconfig: string;
  env?: Record<string, string>;
  clock?: Clock;
  gateway?: boolean;
  rabbitmqUrl?: string;
}): Promise<UncordonApp> {
  const config = loadUncordonConfig(testEnv(o.databaseUrl, { KUBECONFIG: o.kubeconfig, SCAN_INTERVAL_SECONDS: '1', ...o.env }));
  const runtime = createRuntime({
    mode: 'all-in-one',
    logLevel: 'warn',
    leaderRetryMs: 200,
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.rabbitmqUrl ? { rabbitmqUrl: o.rabbitmqUrl } : {}),
  });
  const imports: DynamicModule[] = [UncordonModule.forRoot(config)];
  if (o.gateway) imports.push(testGatewayModule(o.databaseUrl, { APP_PORT: '0' }));
  @Module({ imports })
  class UncordonTestRoot {}
  const started = await startTestApp({
    service: o.gateway ? 'api-gateway' : 'uncordon',
    module: { module: UncordonTestRoot },
    runtime,
    transport: 'in-process',
    ...(o.gateway ? { httpPort: 0 } : {}),
  });
  const leader = started.app.get<LeaderElector>(UNCORDON_LEADER);
  return {
    ...started,
    service: started.app.get(UncordonService),
    leader,
    cycle: () => started.app.get(AutoUncordonController).runPass(),
    drains: started.app.get(DrainController),
    settled: async () => {
      const { evaluation, fences } = started.app.get(FencingController);
      const all = [started.app.get(AutoUncordonController).controller, started.app.get(RebalanceLedgerController).controller, started.app.get(DrainController).controller, evaluation, fences, started.app.get(PressureController).controller];
      // Twice: one controller's reconcile may enqueue another's key (a pass enqueues the ledger's).
      for (let i = 0; i < 2; i++) for (const c of all) await c.settled();
    },
    close: () => started.app.close(),
  };
}

/** api — GET/POST through the gateway with a read-write token. */
export async function api<T = any>(url: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${testToken()}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** becomesLeader — waits until `a` leads and its controllers have done what becoming leader set off (their first passes). */
export async function becomesLeader(a: UncordonApp): Promise<true> {
  await waitFor(() => a.leader.isLeader || undefined, 'leadership', 10_000);
  await a.settled();
  return true;
}

/** getNode — a raw GET of a node from the simulator (JSON, no client). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function getNode(sim: { url: string }, name: string): Promise<any> {
  const res = await fetch(`${sim.url}/api/v1/nodes/${name}`);
  return res.json();
}
