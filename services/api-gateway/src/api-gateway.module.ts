import { Inject, Injectable, Module, type DynamicModule, type MiddlewareConsumer, type NestModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { ThrottlerModule } from '@nestjs/throttler';
import {
  AmqpConnection,
  AmqpEventPublisher,
  brokerCheck,
  processBroker,
  COMMAND_BUS,
  createJwtStrategy,
  createWriteScopeGuard,
  InProcessCommandBus,
  JsonLogger,
  JwtAuthGuard,
  startHeartbeat,
  type TimerHandle,
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
import { PauseController } from './adapters/inbound/pause.controller.js';
import { RebalancesController } from './adapters/inbound/rebalances.controller.js';
import { SteeringViewsController } from './adapters/inbound/steering-views.controller.js';
import { ApprovalsController } from './adapters/inbound/approvals.controller.js';
import { GatewayHealthController } from './adapters/inbound/gateway-health.controller.js';
import { HttpErrorFilter } from './adapters/inbound/http-error.filter.js';
import { EVENT_STREAM_HUB, StreamController } from './adapters/inbound/stream.controller.js';
import { SpotHistoryController } from './adapters/inbound/spot-history.controller.js';
import { AmqpEventFeed, EventFeedRunner, EventStreamHub, InProcessEventFeed } from './adapters/inbound/event-stream.js';
import { Forwarder } from './adapters/inbound/forwarder.js';
import { requestLog } from './adapters/inbound/request-log.middleware.js';
import { MediaTypeMiddleware, registerJsonParser } from './adapters/inbound/media-type.middleware.js';
import { RateLimitGuard, rateLimitOptions } from './adapters/inbound/rate-limit.guard.js';
import { RATE_LIMIT_STORAGE, RateLimitStoreModule, type SharedRateLimitStorage } from './adapters/outbound/shared-rate-limit.storage.js';
import type { ApiGatewayConfig } from './config.js';

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
const GATEWAY_PUBLISHER = Symbol('GATEWAY_PUBLISHER');

/** GatewayLifecycle — the gateway's heartbeat and the orderly close of its bus clients. */
@Injectable()
class GatewayLifecycle implements OnModuleInit, OnApplicationShutdown {
  private timer?: TimerHandle;
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: ApiGatewayConfig,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    @Inject(COMMAND_BUS) private readonly bus: CommandBus,
    @Inject(GATEWAY_PUBLISHER) private readonly publisher: { pub: EventPublisher; conn?: AmqpConnection },
    @Inject(GATEWAY_LOGGER) private readonly logger: JsonLogger,
    private readonly http: HttpAdapterHost,
  ) {}
  onModuleInit(): void {
    // No `X-Powered-By: Express`: the answer need not say what serves it.
    (this.http.httpAdapter?.getInstance() as { disable?: (setting: string) => void } | undefined)?.disable?.('x-powered-by');
    this.timer = startHeartbeat({ service: 'api-gateway', mode: this.runtime.mode, clock: this.runtime.clock, publisher: this.publisher.pub, intervalMs: this.config.SCAN_INTERVAL_SECONDS * 1000, logger: this.logger });
  }
  async onApplicationShutdown(): Promise<void> {
    this.timer?.cancel();
    await this.bus.close();
    await this.publisher.conn?.close();
  }
}

/**
 * ApiGatewayModule — wiring only: the REST API, request ids, media types, JWT auth, rate limits, validation, and
 * forwarding to the owning service.
 */
@Module({})
export class ApiGatewayModule implements NestModule {
  constructor(
    @Inject(GATEWAY_LOGGER) private readonly logger: JsonLogger,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  /** Request ids, the access log and the HTTP request histogram, for every route (request-log.middleware.ts). */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(requestLog(this.logger, this.runtime.metrics), MediaTypeMiddleware).forRoutes('*');
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
      imports: [
        PassportModule,
        ThrottlerModule.forRootAsync({
          imports: [RateLimitStoreModule.forRoot(config)],
          inject: [RATE_LIMIT_STORAGE],
          useFactory: (storage: SharedRateLimitStorage | null) => ({ ...rateLimitOptions(config), ...(storage ? { storage } : {}) }),
        }),
      ],
      controllers: [
        GatewayHealthController,
        NodesController,
        PauseController,
        DrainsController,
        UncordonController,
        SchedulingController,
        NodePoolsController,
        SpotController,
        NodeSafetyController,
        StreamController,
        SpotHistoryController,
        RebalancesController,
        SteeringViewsController,
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
          inject: [RUNTIME, GATEWAY_LOGGER],
          useFactory: (rt: Runtime, logger: JsonLogger): CommandBus => {
            if (rt.commands) return new InProcessCommandBus(rt.commands, config.COMMAND_TIMEOUT_MS);
            const url = config.RABBITMQ_URL ?? rt.rabbitmqUrl;
            if (!url) throw new Error('api-gateway: RABBITMQ_URL is required in split mode');
            const broker = processBroker(rt, url, 'api-gateway', logger);
            rt.health.register('api-gateway.broker', () => brokerCheck(broker));
            return new RmqCommandBus(broker, config.COMMAND_TIMEOUT_MS, rt.clock);
          },
        },
        {
          provide: GATEWAY_PUBLISHER,
          inject: [RUNTIME, GATEWAY_LOGGER],
          useFactory: (rt: Runtime, logger: JsonLogger) => {
            const url = config.RABBITMQ_URL ?? rt.rabbitmqUrl;
            if (url) {
              const conn = processBroker(rt, url, 'api-gateway', logger);
              return { pub: new AmqpEventPublisher(conn), conn };
            }
            return { pub: rt.eventBus! };
          },
        },
        Forwarder,
        GatewayLifecycle,
        // The live stream's feed of nodes.events: an exclusive queue on the process's broker connection, or the in-process bus.
        {
          provide: EventFeedRunner,
          inject: [RUNTIME, GATEWAY_LOGGER],
          useFactory: (rt: Runtime, logger: JsonLogger) => {
            const url = config.RABBITMQ_URL ?? rt.rabbitmqUrl;
            const feed = url ? new AmqpEventFeed(processBroker(rt, url, 'api-gateway', logger), logger) : new InProcessEventFeed(rt.eventBus!);
            return new EventFeedRunner(new EventStreamHub(), feed);
          },
        },
        { provide: EVENT_STREAM_HUB, inject: [EventFeedRunner], useFactory: (r: EventFeedRunner) => r.hub },
        { provide: 'nodes-manager:json-body-parser', inject: [HttpAdapterHost], useFactory: (host: HttpAdapterHost) => registerJsonParser(host) },
        createJwtStrategy(auth),
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useClass: createWriteScopeGuard(auth.writeScope) },
        // After authentication, so that limits count per actor.
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_FILTER, inject: [GATEWAY_LOGGER], useFactory: (l: JsonLogger) => new HttpErrorFilter(l, auth.writeScope) },
      ],
    };
  }
}
