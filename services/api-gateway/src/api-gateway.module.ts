import { Inject, Injectable, Module, type DynamicModule, type MiddlewareConsumer, type NestModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { heartbeatType } from '@nodes-manager/contracts';
import {
  AmqpConnection,
  AmqpEventPublisher,
  COMMAND_BUS,
  createJwtStrategy,
  createWriteScopeGuard,
  InProcessCommandBus,
  JsonLogger,
  JwtAuthGuard,
  makeEvent,
  RmqCommandBus,
  RUNTIME,
  type CommandBus,
  type EventPublisher,
  type LogLevel,
  type Runtime,
} from '@nodes-manager/platform';
import { DrainsController, NodesController } from './adapters/inbound/nodes.controller.js';
import { UncordonController } from './adapters/inbound/uncordon.controller.js';
import { SchedulingController } from './adapters/inbound/scheduling.controller.js';
import { NodePoolsController } from './adapters/inbound/nodepools.controller.js';
import { SpotController } from './adapters/inbound/spot.controller.js';
import { NodeSafetyController } from './adapters/inbound/node-safety.controller.js';
import { ApprovalsController } from './adapters/inbound/approvals.controller.js';
import { GatewayHealthController } from './adapters/inbound/gateway-health.controller.js';
import { HttpErrorFilter } from './adapters/inbound/http-error.filter.js';
import { Forwarder } from './adapters/inbound/forwarder.js';
import { requestLog } from './adapters/inbound/request-log.middleware.js';
import type { ApiGatewayConfig } from './config.js';

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
const GATEWAY_PUBLISHER = Symbol('GATEWAY_PUBLISHER');

/** GatewayLifecycle — the gateway's heartbeat and the orderly close of its bus clients. */
@Injectable()
class GatewayLifecycle implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: ApiGatewayConfig,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    @Inject(COMMAND_BUS) private readonly bus: CommandBus,
    @Inject(GATEWAY_PUBLISHER) private readonly publisher: { pub: EventPublisher; conn?: AmqpConnection },
    @Inject(GATEWAY_LOGGER) private readonly logger: JsonLogger,
  ) {}
  onModuleInit(): void {
    const beat = () =>
      void this.publisher.pub
        .publish([makeEvent('api-gateway', heartbeatType('api-gateway'), { service: 'api-gateway', mode: this.runtime.mode }, this.runtime.clock.now())])
        .catch((err) => this.logger.debug('heartbeat not published', { err: (err as Error).message }));
    beat();
    this.timer = setInterval(beat, this.config.SCAN_INTERVAL_SECONDS * 1000);
    this.timer.unref();
  }
  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.bus.close();
    await this.publisher.conn?.close();
  }
}

/** ApiGatewayModule — wiring only: the REST API, JWT auth, validation, and forwarding to the owning service. */
@Module({})
export class ApiGatewayModule implements NestModule {
  constructor(
    @Inject(GATEWAY_LOGGER) private readonly logger: JsonLogger,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  /** Request ids, the access log and the HTTP request histogram, for every route (request-log.middleware.ts). */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(requestLog(this.logger, this.runtime.metrics)).forRoutes('*');
  }

  static forRoot(config: ApiGatewayConfig): DynamicModule {
    const auth = {
      secret: config.AUTH_JWT_ACCESS_SECRET,
      writeScope: config.AUTH_WRITE_SCOPE,
      ...(config.AUTH_JWT_ISSUER ? { issuer: config.AUTH_JWT_ISSUER } : {}),
      ...(config.AUTH_JWT_AUDIENCE ? { audience: config.AUTH_JWT_AUDIENCE } : {}),
    };
    return {
      module: ApiGatewayModule,
      imports: [PassportModule],
      controllers: [
        GatewayHealthController,
        NodesController,
        DrainsController,
        UncordonController,
        SchedulingController,
        NodePoolsController,
        SpotController,
        NodeSafetyController,
        ApprovalsController,
      ],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        {
          provide: GATEWAY_LOGGER,
          inject: [RUNTIME],
          useFactory: (rt: Runtime) => new JsonLogger('api-gateway', (config.LOG_LEVEL as LogLevel) ?? rt.logLevel),
        },
        {
          provide: COMMAND_BUS,
          inject: [RUNTIME],
          useFactory: (rt: Runtime): CommandBus => {
            if (rt.commands) return new InProcessCommandBus(rt.commands, config.COMMAND_TIMEOUT_MS);
            const url = config.RABBITMQ_URL ?? rt.rabbitmqUrl;
            if (!url) throw new Error('api-gateway: RABBITMQ_URL is required in split mode');
            const bus = new RmqCommandBus(url, config.COMMAND_TIMEOUT_MS);
            rt.health.register('api-gateway.broker', async () => {
              try {
                await bus.consumers('api-gateway');
                return { ok: true };
              } catch (err) {
                return { ok: false, detail: (err as Error).message };
              }
            });
            return bus;
          },
        },
        {
          provide: GATEWAY_PUBLISHER,
          inject: [RUNTIME, GATEWAY_LOGGER],
          useFactory: (rt: Runtime, logger: JsonLogger) => {
            const url = config.RABBITMQ_URL ?? rt.rabbitmqUrl;
            if (url) {
              const conn = new AmqpConnection(url, 'nodes-manager/api-gateway', logger);
              return { pub: new AmqpEventPublisher(conn), conn };
            }
            return { pub: rt.eventBus! };
          },
        },
        Forwarder,
        GatewayLifecycle,
        createJwtStrategy(auth),
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useClass: createWriteScopeGuard(auth.writeScope) },
        { provide: APP_FILTER, inject: [GATEWAY_LOGGER], useFactory: (l: JsonLogger) => new HttpErrorFilter(l) },
      ],
    };
  }
}
