import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { serviceStatusPattern, type ServiceName } from '@nodes-manager/contracts';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { dataSourceOptions, runMigrations, type EntityTarget, type MigrationClass } from './database/database.js';
import { assertHistory, assertSchema } from './database/self-check.js';
import { JsonLogger, type LogLevel } from './logging/logger.js';
import { brokerCheck, type AmqpConnection } from './messaging/amqp-connection.js';
import { AmqpEventPublisher, EVENT_PUBLISHER, type EventPublisher } from './messaging/event-publisher.js';
import { Outbox } from './messaging/outbox.js';
import { clusterIdentity } from './config/common.js';
import { startHeartbeat } from './messaging/heartbeat.js';
import type { TimerHandle } from './clock/clock.js';
import { OutboxRelay } from './messaging/outbox-relay.js';
import { CommandController, CommandHandler } from './messaging/commands.js';
import { LeaderElector } from './leader/leader-elector.js';
import { processBroker, RUNTIME, type Runtime } from './runtime/runtime.js';
import type { HealthRegistry } from './health/health.js';

export const SERVICE_NAME = Symbol('SERVICE_NAME');
export const SERVICE_CONFIG = Symbol('SERVICE_CONFIG');
export { CONTROLLERS, LOGGER } from './runtime/tokens.js';
import { CONTROLLERS, LOGGER } from './runtime/tokens.js';
import { Controllers } from './runtime/controllers.js';
export const DATA_SOURCE = Symbol('DATA_SOURCE');
export const OUTBOX = Symbol('OUTBOX');
export const OUTBOX_RELAY = Symbol('OUTBOX_RELAY');
export const LEADER_FACTORY = Symbol('LEADER_FACTORY');

/** The variables PlatformModule itself reads from a service's validated config. */
export interface PlatformConfig {
  DATABASE_URL: string;
  DATABASE_POOL_SIZE?: number;
  RABBITMQ_URL?: string | undefined;
  SCAN_INTERVAL_SECONDS: number;
  LOG_LEVEL?: string;
  CLUSTER_NAME?: string;
  CLUSTER_ID?: string | undefined;
}

export interface ServicePlatformSpec<C extends PlatformConfig> {
  service: ServiceName;
  config: C;
  entities: readonly EntityTarget[];
  migrations: readonly MigrationClass[];
  poolSize?: number;
}

export type LeaderFactory = (name?: string) => LeaderElector;

/** How long shutdown spends publishing what is still in the outbox before it closes the broker connection. */
export const SHUTDOWN_FLUSH_MS = 3_000;

/**
 * PlatformLifecycle — starts the outbox relay and the heartbeat, and on shutdown (after the service's own loops
 * stopped: Nest runs this module's hook last) releases the leader locks at once, flushes the outbox (bounded), then
 * closes the broker connection and the database pool, in that order (docs/reliability.md).
 */
@Injectable()
class PlatformLifecycle implements OnModuleInit, OnApplicationShutdown {
  private heartbeat?: TimerHandle;
  private readonly leaders: LeaderElector[] = [];
  constructor(
    @Inject(SERVICE_NAME) private readonly service: ServiceName,
    @Inject(SERVICE_CONFIG) private readonly config: PlatformConfig,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX_RELAY) private readonly relay: OutboxRelay,
    @Inject(EVENT_PUBLISHER) private readonly publisher: EventPublisher,
    @Inject('AMQP_CONNECTION') private readonly amqp: AmqpConnection | null,
    @Inject(LOGGER) private readonly logger: JsonLogger,
  ) {}

  track(l: LeaderElector): LeaderElector {
    this.leaders.push(l);
    return l;
  }

  onModuleInit(): void {
    this.relay.start();
    this.heartbeat = startHeartbeat({ service: this.service, cluster: clusterIdentity(this.config), mode: this.runtime.mode, clock: this.runtime.clock, publisher: this.publisher, intervalMs: this.config.SCAN_INTERVAL_SECONDS * 1000, logger: this.logger });
  }

  async onApplicationShutdown(): Promise<void> {
    this.heartbeat?.cancel();
    for (const l of this.leaders) await l.stop();
    await this.relay.flush(SHUTDOWN_FLUSH_MS);
    await this.relay.stop();
    await this.amqp?.close();
    if (this.ds.isInitialized) await this.ds.destroy();
  }
}

function statusController(service: ServiceName) {
  @CommandController()
  class ServiceStatusController {
    constructor(@Inject(RUNTIME) readonly runtime: Runtime) {}
    @CommandHandler(serviceStatusPattern(service))
    status() {
      return (this.runtime.health as HealthRegistry).run(service);
    }
  }
  return ServiceStatusController;
}

/** How many service databases this process has declared (for unique data-source names). */
let dataSources = 0;

@Module({})
export class PlatformModule {
  /**
   * forService — everything a service needs from the platform, scoped to that service: its config, logger,
   * database (migrated under the advisory lock and self-checked before anything else starts), outbox and relay,
   * event publisher (RabbitMQ or in-process), leader electors, heartbeat and status command.
   */
  static forService<C extends PlatformConfig>(spec: ServicePlatformSpec<C>): DynamicModule {
    const { service, config } = spec;
    const dbSpec = { service, url: config.DATABASE_URL, entities: spec.entities, migrations: spec.migrations, poolSize: spec.poolSize ?? config.DATABASE_POOL_SIZE };
    // Unique per module instance: two replicas of a service in one process (tests) each get their own data source.
    const dataSourceName = `${service}#${++dataSources}`;
    const providers: Provider[] = [
      { provide: SERVICE_NAME, useValue: service },
      { provide: SERVICE_CONFIG, useValue: config },
      {
        provide: LOGGER,
        inject: [RUNTIME],
        useFactory: (rt: Runtime) => new JsonLogger(service, (config.LOG_LEVEL as LogLevel | undefined) ?? rt.logLevel),
      },
      { provide: CONTROLLERS, inject: [RUNTIME, LOGGER], useFactory: (rt: Runtime, logger: JsonLogger) => new Controllers(service, rt.clock, rt.metrics, logger) },
      {
        // The DataSource TypeOrmModule made, migrated under the advisory lock and self-checked before anything that
        // injects it (every repository) is built; DATA_SOURCE is its name in this code base.
        provide: DATA_SOURCE,
        inject: [getDataSourceToken(dataSourceName), RUNTIME, LOGGER],
        useFactory: async (ds: DataSource, rt: Runtime, logger: JsonLogger) => {
          try {
            const applied = await runMigrations(ds, dbSpec, { beforePending: () => assertHistory(ds, dbSpec) });
            if (applied.length) logger.info('migrations applied', { migrations: applied });
            await assertSchema(ds, dbSpec);
          } catch (err) {
            await ds.destroy().catch(() => undefined);
            throw err;
          }
          rt.health.register(`${service}.database`, async () => {
            await ds.query('SELECT 1');
            return { ok: true };
          });
          return ds;
        },
      },
      { provide: OUTBOX, useValue: new Outbox(service, { cluster: clusterIdentity(config) }) },
      {
        provide: 'AMQP_CONNECTION',
        inject: [RUNTIME, LOGGER],
        useFactory: (rt: Runtime, logger: JsonLogger) => {
          const url = config.RABBITMQ_URL ?? rt.rabbitmqUrl;
          if (!url) return null;
          const conn = processBroker(rt, url, service, logger);
          rt.health.register(`${service}.broker`, () => brokerCheck(conn));
          return conn;
        },
      },
      {
        provide: EVENT_PUBLISHER,
        inject: [RUNTIME, 'AMQP_CONNECTION'],
        useFactory: (rt: Runtime, conn: AmqpConnection | null) => {
          if (conn) return new AmqpEventPublisher(conn);
          if (rt.eventBus) return rt.eventBus;
          throw new Error(`${service}: RABBITMQ_URL is required in split mode`);
        },
      },
      {
        provide: OUTBOX_RELAY,
        inject: [RUNTIME, DATA_SOURCE, OUTBOX, EVENT_PUBLISHER, LOGGER, 'AMQP_CONNECTION'],
        useFactory: (rt: Runtime, ds: DataSource, outbox: Outbox, pub: EventPublisher, logger: JsonLogger, conn: AmqpConnection | null) => {
          const relay = new OutboxRelay(ds, outbox, pub, rt.clock, logger, { pollMs: 500 });
          conn?.onRestored(() => relay.retryNow());
          rt.metrics.collectedGauge('nodes_manager_outbox_pending', 'Events waiting in the outbox', [], async (g) => {
            g.set({ service }, (await relay.backlog()).pending);
          });
          rt.metrics.collectedGauge('nodes_manager_outbox_oldest_age_seconds', 'Age of the oldest unsent event', [], async (g) => {
            g.set({ service }, (await relay.backlog()).oldestAgeSeconds);
          });
          rt.health.register(`${service}.outbox`, async () => {
            const b = await relay.backlog();
            return { ok: true, detail: `${b.pending} pending` };
          });
          return relay;
        },
      },
      PlatformLifecycle,
      {
        provide: LEADER_FACTORY,
        inject: [RUNTIME, LOGGER, PlatformLifecycle],
        useFactory:
          (rt: Runtime, logger: JsonLogger, life: PlatformLifecycle): LeaderFactory =>
          (name = service) =>
            life.track(new LeaderElector(config.DATABASE_URL, name, logger, rt.leaderRetryMs ?? 2000, { service, metrics: rt.metrics })),
      },
    ];
    return {
      module: PlatformModule,
      imports: [
        // The service's database through @nestjs/typeorm (docs/stack.md): options from the validated config; TypeORM
        // gives up at once when the database is down (the start fails and says why, as before), no retry loop.
        TypeOrmModule.forRootAsync({
          name: dataSourceName,
          useFactory: () => ({ ...dataSourceOptions(dbSpec), retryAttempts: 0, toRetry: () => false }),
        }),
      ],
      providers,
      controllers: [statusController(service)],
      exports: [SERVICE_NAME, SERVICE_CONFIG, LOGGER, CONTROLLERS, DATA_SOURCE, OUTBOX, OUTBOX_RELAY, EVENT_PUBLISHER, LEADER_FACTORY],
    };
  }
}
