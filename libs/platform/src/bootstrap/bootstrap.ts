import 'reflect-metadata';
import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ServiceName } from '@nodes-manager/contracts';
import { ConfigError, redactConfig } from '../config/config.js';
import { SchemaCheckError } from '../database/self-check.js';
import { HealthController } from '../health/health.js';
import { JsonLogger, type LogLevel } from '../logging/logger.js';
import { rmqServerOptions } from '../messaging/commands.js';
import { createRuntime, RuntimeModule, type Runtime } from '../runtime/runtime.js';

export interface SplitServiceOptions {
  service: ServiceName;
  module: DynamicModule;
  runtime?: Runtime;
  rabbitmqUrl: string;
  port: number;
  host?: string;
  logLevel?: string;
  /** The gateway brings its own HTTP controllers (health included) and consumes no command queue. */
  http?: 'health' | 'own';
  /** Called after the app is created and before it listens (e.g. the gateway's OpenAPI routes). */
  configure?: (app: INestApplication) => void | Promise<void>;
}

/**
 * startSplitService — one service as its own process (split mode, docs/design.md#two-ways-to-run): its module, the RMQ command transport on
 * `nodes-manager.<service>` (not for the gateway), and an HTTP server for health and metrics (or the gateway's API).
 */
export async function startSplitService(opts: SplitServiceOptions): Promise<INestApplication> {
  const level = (opts.logLevel as LogLevel | undefined) ?? 'info';
  const runtime = opts.runtime ?? createRuntime({ mode: 'split', rabbitmqUrl: opts.rabbitmqUrl, logLevel: level });
  const logger = new JsonLogger(opts.service, level);
  @Module({
    imports: [RuntimeModule.forRoot(runtime), opts.module],
    controllers: opts.http === 'own' ? [] : [HealthController],
  })
  class SplitRoot {}
  const app = await NestFactory.create(SplitRoot, { logger, abortOnError: false, bufferLogs: false });
  app.enableShutdownHooks();
  if (opts.service !== 'api-gateway') {
    app.connectMicroservice(rmqServerOptions(opts.service, opts.rabbitmqUrl), { inheritAppConfig: true });
    await app.startAllMicroservices();
  }
  await opts.configure?.(app);
  await app.listen(opts.port, opts.host ?? '0.0.0.0');
  logger.info('service started', { port: opts.port, mode: 'split' });
  return app;
}

/**
 * runMain — the body of every `main.ts`: load config (all problems in one message), start, and on a refused start
 * print why and exit non-zero. The config is printed with secrets redacted.
 */
export async function runMain<C extends Record<string, unknown>>(
  service: ServiceName,
  loadConfig: () => C,
  secrets: readonly string[],
  start: (config: C) => Promise<unknown>,
): Promise<void> {
  let config: C;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(((err as Error).message ?? String(err)) + '\n');
    process.exit(78); // EX_CONFIG
  }
  for (const s of secrets) JsonLogger.registerSecret(config[s] as string | undefined);
  const logger = new JsonLogger(service, (config['LOG_LEVEL'] as LogLevel) ?? 'info');
  logger.info('configuration', { config: redactConfig(config, secrets) });
  try {
    await start(config);
  } catch (err) {
    const refused = err instanceof ConfigError || err instanceof SchemaCheckError;
    process.stderr.write(`${service}: ${refused ? '' : 'failed to start: '}${(err as Error).message}\n`);
    process.exit(refused ? 78 : 1);
  }
}
