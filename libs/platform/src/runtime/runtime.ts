import { Global, Module, type DynamicModule } from '@nestjs/common';
import { SystemClock, CLOCK, type Clock } from '../clock/clock.js';
import { HealthRegistry, HEALTH_REGISTRY, METRICS_REGISTRY } from '../health/health.js';
import { Metrics } from '../health/metrics.js';
import { InProcessEventBus } from '../messaging/in-process-bus.js';
import { InProcessRegistry } from '../messaging/in-process-commands.js';
import type { JsonLogger, LogLevel } from '../logging/logger.js';
import { AmqpConnection } from '../messaging/amqp-connection.js';
import { registerDependency } from '../errors/coded-error.js';
import { METRICS, RUNTIME } from './tokens.js';

export { METRICS, RUNTIME } from './tokens.js';

/**
 * Runtime — what the way of running (split or all-in-one) decides, shared by every service module in the process:
 * the clock, the broker URL or the in-process bus and command registry, health checks and metrics. Service modules
 * are the same in both modes; only this object differs (docs/design.md#two-ways-to-run).
 */
export interface Runtime {
  mode: 'split' | 'all-in-one';
  clock: Clock;
  rabbitmqUrl?: string;
  /** In-process event bus: all-in-one mode without RABBITMQ_URL. */
  eventBus?: InProcessEventBus;
  /** In-process command handlers: all-in-one mode. */
  commands?: InProcessRegistry;
  health: HealthRegistry;
  metrics: Metrics;
  logLevel: LogLevel;
  /** Faster loops for tests: scales relay polls and leader retries. */
  leaderRetryMs?: number;
  /** The process's one broker connection, made by {@link processBroker} on first use. */
  broker?: AmqpConnection;
}

/**
 * processBroker — the one broker connection of the process, shared by events, subscriptions and the command bus
 * (docs/reliability.md); made on first use and retained for the caller, who closes it once when done.
 */
export function processBroker(rt: Runtime, url: string, service: string, logger?: JsonLogger): AmqpConnection {
  if (rt.broker && rt.broker.url === url) return rt.broker.retain();
  const name = rt.mode === 'all-in-one' ? 'nodes-manager/all-in-one' : `nodes-manager/${service}`;
  const conn = new AmqpConnection(url, name, logger).retain();
  rt.broker ??= conn;
  return conn;
}

export function createRuntime(opts: Partial<Runtime> & Pick<Runtime, 'mode'>): Runtime {
  const allInOne = opts.mode === 'all-in-one';
  registerDependency('message broker', opts.rabbitmqUrl, 5672);
  return {
    clock: new SystemClock(),
    health: new HealthRegistry(),
    metrics: new Metrics(),
    logLevel: 'info',
    ...(allInOne ? { commands: new InProcessRegistry() } : {}),
    ...(allInOne && !opts.rabbitmqUrl ? { eventBus: new InProcessEventBus() } : {}),
    ...opts,
  };
}

@Global()
@Module({})
export class RuntimeModule {
  static forRoot(runtime: Runtime): DynamicModule {
    return {
      module: RuntimeModule,
      global: true,
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: CLOCK, useValue: runtime.clock },
        { provide: HEALTH_REGISTRY, useValue: runtime.health },
        { provide: METRICS, useValue: runtime.metrics },
        { provide: METRICS_REGISTRY, useValue: runtime.metrics.registry },
      ],
      exports: [RUNTIME, CLOCK, HEALTH_REGISTRY, METRICS, METRICS_REGISTRY],
    };
  }
}
