import { COMMON_SECRETS, ConfigError, JsonLogger, loadWithTracing, onTermination, redactConfig, startTracing, type LogLevel, type TracingSettings } from '@nodes-manager/platform';
import { loadAllConfigs, startAllInOne } from './all-in-one.js';

/**
 * The all-in-one process as production runs it (deploy/overlays/all-in-one, docs/deploy.md): every service module in
 * one process against the configured database, broker and Kubernetes API — no simulator, no embedded database (those
 * are the demo's, all-in-one/src/demo.ts). A bad configuration is refused with every problem listed (exit 78); SIGTERM
 * shuts it down like a split service.
 */
let configs: ReturnType<typeof loadAllConfigs>;
let tracing: TracingSettings;
try {
  ({ config: configs, tracing } = loadWithTracing('all-in-one', () => loadAllConfigs(process.env)));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(err instanceof ConfigError ? 78 : 1);
}
for (const c of Object.values(configs)) for (const s of [...COMMON_SECRETS, 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) JsonLogger.registerSecret((c as Record<string, unknown>)[s] as string | undefined);
const level = (configs.gateway.LOG_LEVEL as LogLevel) ?? 'info';
const logger = new JsonLogger('all-in-one', level);
logger.info('configuration', { config: redactConfig(configs.gateway, [...COMMON_SECRETS]) });
try {
  await startTracing('nodes-manager', tracing);
  logger.info(tracing.enabled ? 'tracing on' : 'tracing off', { why: tracing.why });
  const system = await startAllInOne({ env: process.env, host: '0.0.0.0' });
  onTermination(system.app, logger);
  logger.info('service started', { port: configs.gateway.APP_PORT, mode: 'all-in-one' });
} catch (err) {
  process.stderr.write(`all-in-one: failed to start: ${(err as Error).message}\n`);
  process.exit(err instanceof ConfigError ? 78 : 1);
}
