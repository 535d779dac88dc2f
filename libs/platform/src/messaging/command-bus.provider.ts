import { Inject, Injectable, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import type { ServiceName } from '@nodes-manager/contracts';
import { processBroker, RUNTIME, type Runtime } from '../runtime/runtime.js';
import { SERVICE_CONFIG } from '../platform.module.js';
import { COMMAND_BUS, type CommandBus } from './commands.js';
import { InProcessCommandBus } from './in-process-commands.js';
import { RmqCommandBus } from './rmq-command-bus.js';
import type { JsonLogger } from '../logging/logger.js';
import { LOGGER } from '../runtime/tokens.js';

/**
 * createCommandBus — how a service calls another service: the in-process registry when the runtime has one
 * (all-in-one), else RabbitMQ request/reply on the process's one broker connection. Same choice as the gateway's.
 */
export function createCommandBus(rt: Runtime, opts: { service: ServiceName; rabbitmqUrl?: string | undefined; timeoutMs: number; logger?: JsonLogger }): CommandBus {
  if (rt.commands) return new InProcessCommandBus(rt.commands, opts.timeoutMs, opts.logger);
  const url = opts.rabbitmqUrl ?? rt.rabbitmqUrl;
  if (!url) throw new Error(`${opts.service}: RABBITMQ_URL is required in split mode to call other services`);
  return new RmqCommandBus(processBroker(rt, url, opts.service), opts.timeoutMs, rt.clock, opts.logger);
}

@Injectable()
class CommandBusShutdown implements OnApplicationShutdown {
  constructor(@Inject(COMMAND_BUS) private readonly bus: CommandBus) {}
  async onApplicationShutdown(): Promise<void> {
    await this.bus.close();
  }
}

/**
 * commandBusProviders — `COMMAND_BUS` for a service module that imports `PlatformModule.forService` (reads
 * `RABBITMQ_URL` and `COMMAND_TIMEOUT_MS` from its config), closed on shutdown.
 */
export function commandBusProviders(service: ServiceName): Provider[] {
  return [
    {
      provide: COMMAND_BUS,
      inject: [RUNTIME, SERVICE_CONFIG, LOGGER],
      useFactory: (rt: Runtime, config: { RABBITMQ_URL?: string | undefined; COMMAND_TIMEOUT_MS?: number }, logger: JsonLogger) =>
        createCommandBus(rt, { service, rabbitmqUrl: config.RABBITMQ_URL, timeoutMs: config.COMMAND_TIMEOUT_MS ?? 10_000, logger }),
    },
    CommandBusShutdown,
  ];
}
