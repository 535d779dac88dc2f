import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import type { Clock } from '@nodes-manager/platform';
import { createRuntime, type Runtime } from '@nodes-manager/platform';
import { startTestApp, testEnv, testToken, waitFor } from '@nodes-manager/platform/testing';
import { testGatewayModule } from '../../../test/support/gateway.js';
import { loadUncordonConfig } from '../src/config.js';
import { UncordonModule } from '../src/uncordon.module.js';
import { UncordonService } from '../src/auto-uncordon/uncordon.service.js';
import { UNCORDON_LEADER } from '../src/tokens.js';
import type { LeaderElector } from '@nodes-manager/platform';

export interface UncordonApp {
  app: INestApplication;
  runtime: Runtime;
  url?: string;
  service: UncordonService;
  leader: LeaderElector;
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

export const becomesLeader = (a: UncordonApp): Promise<true> => waitFor(() => a.leader.isLeader || undefined, 'leadership', 10_000) as Promise<true>;

/** getNode — a raw GET of a node from the simulator (JSON, no client). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function getNode(sim: { url: string }, name: string): Promise<any> {
  const res = await fetch(`${sim.url}/api/v1/nodes/${name}`);
  return res.json();
}
