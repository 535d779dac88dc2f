import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createRuntime, InProcessTransport, JsonLogger, RuntimeModule, type LogLevel, type Runtime } from '@nodes-manager/platform';
import { ApiGatewayModule } from '../../services/api-gateway/src/api-gateway.module.js';
import { loadApiGatewayConfig } from '../../services/api-gateway/src/config.js';
import { setupOpenApi } from '../../services/api-gateway/src/openapi.js';
import { setupConsole } from '../../services/api-gateway/src/adapters/inbound/console-static.js';
import { NodeSyncModule } from '../../services/node-sync/src/node-sync.module.js';
import { loadNodeSyncConfig } from '../../services/node-sync/src/config.js';
import { UncordonModule } from '../../services/uncordon/src/uncordon.module.js';
import { loadUncordonConfig } from '../../services/uncordon/src/config.js';
import { SchedulerScoringModule } from '../../services/scheduler-scoring/src/scheduler-scoring.module.js';
import { loadSchedulerScoringConfig } from '../../services/scheduler-scoring/src/config.js';
import { KarpenterGatewayModule } from '../../services/karpenter-gateway/src/karpenter-gateway.module.js';
import { loadKarpenterGatewayConfig } from '../../services/karpenter-gateway/src/config.js';
import { SpotAdvisorModule } from '../../services/spot-advisor/src/spot-advisor.module.js';
import { loadSpotAdvisorConfig } from '../../services/spot-advisor/src/config.js';
import { ConfigError } from '@nodes-manager/platform';

export interface AllInOne {
  app: INestApplication;
  runtime: Runtime;
  url: string;
  close(): Promise<void>;
}

/**
 * loadAllConfigs — every service's own config from one environment; all problems of all services in one error.
 */
export function loadAllConfigs(env: NodeJS.ProcessEnv) {
  const problems: { variable: string; problem: string }[] = [];
  const attempt = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (err) {
      if (err instanceof ConfigError) {
        for (const p of err.problems) if (!problems.some((q) => q.variable === p.variable)) problems.push(p);
        return undefined;
      }
      throw err;
    }
  };
  const configs = {
    gateway: attempt(() => loadApiGatewayConfig(env)),
    nodeSync: attempt(() => loadNodeSyncConfig(env)),
    uncordon: attempt(() => loadUncordonConfig(env)),
    scheduler: attempt(() => loadSchedulerScoringConfig(env)),
    karpenter: attempt(() => loadKarpenterGatewayConfig(env)),
    spot: attempt(() => loadSpotAdvisorConfig(env)),
  };
  if (problems.length > 0) throw new ConfigError('nodes-manager (all-in-one)', problems);
  return configs as { [K in keyof typeof configs]: NonNullable<(typeof configs)[K]> };
}

/**
 * startAllInOne — the all-in-one mode (docs/design.md#two-ways-to-run): every service module in one process, the same modules and code paths
 * as split mode, wired with the in-process command transport (and the in-process event bus unless RABBITMQ_URL is
 * set, in which case events still go to RabbitMQ).
 */
export async function startAllInOne(opts: { env: NodeJS.ProcessEnv; runtime?: Runtime; host?: string; consoleDir?: string }): Promise<AllInOne> {
  const c = loadAllConfigs(opts.env);
  const level = (c.gateway.LOG_LEVEL as LogLevel) ?? 'info';
  const runtime =
    opts.runtime ??
    createRuntime({ mode: 'all-in-one', logLevel: level, ...(c.gateway.RABBITMQ_URL ? { rabbitmqUrl: c.gateway.RABBITMQ_URL } : {}) });
  @Module({
    imports: [
      RuntimeModule.forRoot(runtime),
      ApiGatewayModule.forRoot(c.gateway),
      NodeSyncModule.forRoot(c.nodeSync),
      UncordonModule.forRoot(c.uncordon),
      SchedulerScoringModule.forRoot(c.scheduler),
      KarpenterGatewayModule.forRoot(c.karpenter),
      SpotAdvisorModule.forRoot(c.spot),
    ],
  })
  class AllInOneRoot {}
  const app = await NestFactory.create(AllInOneRoot, { logger: new JsonLogger('all-in-one', level), abortOnError: false });
  app.connectMicroservice({ strategy: new InProcessTransport(runtime.commands!) }, { inheritAppConfig: true });
  await app.startAllMicroservices();
  setupOpenApi(app);
  setupConsole(app, opts.consoleDir);
  await app.listen(c.gateway.APP_PORT, opts.host ?? '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  return { app, runtime, url: `http://${opts.host ?? '127.0.0.1'}:${port}`, close: () => app.close() };
}
