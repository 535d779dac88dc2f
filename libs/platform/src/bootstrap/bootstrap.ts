import 'reflect-metadata';
import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ServiceName } from '@nodes-manager/contracts';
import { ConfigError, maskUrlCredentials, redactConfig } from '../config/config.js';
import { SchemaCheckError } from '../database/self-check.js';
import { HealthController } from '../health/health.js';
import { JsonLogger, type LogLevel } from '../logging/logger.js';
import { commandIntake, rmqServer, type DrainableServerRmq } from '../messaging/commands.js';
import { createRuntime, RuntimeModule, type Runtime } from '../runtime/runtime.js';
import { flushTracing } from '../tracing/tracing.js';
import { startTracing } from '../tracing/tracing-sdk.js';
import { tracingSettings, type TracingSettings } from '../tracing/tracing-config.js';

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
  let server: DrainableServerRmq | undefined;
  if (opts.service !== 'api-gateway') {
    server = rmqServer(opts.service, opts.rabbitmqUrl);
    app.connectMicroservice({ strategy: server }, { inheritAppConfig: true });
    await app.startAllMicroservices();
  }
  await opts.configure?.(app);
  await app.listen(opts.port, opts.host ?? '0.0.0.0');
  onTermination(app, logger, server);
  logger.info('service started', { port: opts.port, mode: 'split' });
  return app;
}

/** How long in-flight commands may take to answer once SIGTERM stopped the intake. */
export const SHUTDOWN_INFLIGHT_MS = 5_000;
/** The whole shutdown's bound: past it the process exits 1 (Kubernetes' grace period is 30 s by default). */
export const SHUTDOWN_TIMEOUT_MS = 15_000;

/**
 * onTermination — graceful shutdown on SIGTERM/SIGINT (docs/reliability.md): stop taking commands (cancel the
 * queue's consumer; the broker gives queued ones to another replica), let those in flight answer (bounded), then
 * close the app — the service's loops stop, then the platform releases the leader locks at once, flushes the
 * outbox and closes the broker and database — and exit 0. Past {@link SHUTDOWN_TIMEOUT_MS} it exits 1.
 */
export function onTermination(app: INestApplication, logger: JsonLogger, server?: DrainableServerRmq, timeoutMs = SHUTDOWN_TIMEOUT_MS): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const started = performance.now();
    logger.info('shutting down', { signal });
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting', { timeoutMs });
      process.exit(1);
    }, timeoutMs).unref();
    try {
      await server?.stopIntake();
      const idle = await commandIntake.whenIdle(SHUTDOWN_INFLIGHT_MS);
      if (!idle) logger.warn('commands still in flight at shutdown', { inFlight: commandIntake.active });
      await app.close();
      await flushTracing();
      logger.info('stopped', { ms: Math.round(performance.now() - started) });
      process.exit(0);
    } catch (err) {
      logger.error('shutdown failed', { err: (err as Error).message });
      process.exit(1);
    }
  };
  process.once('SIGTERM', (s) => void stop(s));
  process.once('SIGINT', (s) => void stop(s));
}

/**
 * loadWithTracing — the service's configuration and its tracing settings (the standard `OTEL_*` variables,
 * tracing-config.ts), validated together: one ConfigError lists every problem of both.
 */
export function loadWithTracing<C>(service: string, loadConfig: () => C, source: NodeJS.ProcessEnv = process.env): { config: C; tracing: TracingSettings } {
  const problems: ConfigError['problems'][number][] = [];
  let config: C | undefined;
  let tracing: TracingSettings | undefined;
  let named = service;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
    named = err.service;
  }
  try {
    tracing = tracingSettings(service, source);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length) throw new ConfigError(named, problems);
  return { config: config!, tracing: tracing! };
}

/**
 * runMain — the body of every `main.ts`: load config and the tracing variables (all problems in one message), start
 * tracing when they ask for it (docs/observability.md), start, and on a refused start print why and exit non-zero.
 * The config is printed with secrets redacted.
 */
export async function runMain<C extends Record<string, unknown>>(
  service: ServiceName,
  loadConfig: () => C,
  secrets: readonly string[],
  start: (config: C) => Promise<unknown>,
): Promise<void> {
  let config: C;
  let tracing: TracingSettings;
  try {
    ({ config, tracing } = loadWithTracing(service, loadConfig));
  } catch (err) {
    process.stderr.write(((err as Error).message ?? String(err)) + '\n');
    process.exit(78); // EX_CONFIG
  }
  for (const s of secrets) JsonLogger.registerSecret(config[s] as string | undefined);
  const logger = new JsonLogger(service, (config['LOG_LEVEL'] as LogLevel) ?? 'info');
  logger.info('configuration', { config: redactConfig(config, secrets) });
  try {
    await startTracing(service, tracing);
    logger.info(tracing.enabled ? 'tracing on' : 'tracing off', { why: tracing.why, ...(tracing.enabled ? { exporters: tracing.exporters, protocol: tracing.protocol, ...(tracing.endpoint ? { endpoint: maskUrlCredentials(tracing.endpoint) } : {}) } : {}) });
    await start(config);
  } catch (err) {
    const refused = err instanceof ConfigError || err instanceof SchemaCheckError;
    process.stderr.write(`${service}: ${refused ? '' : 'failed to start: '}${(err as Error).message}\n`);
    process.exit(refused ? 78 : 1);
  }
}
