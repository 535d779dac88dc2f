import 'reflect-metadata';
import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ServiceName } from '@nodes-manager/contracts';
import { JsonLogger } from '../logging/logger.js';
import { rmqServerOptions } from '../messaging/commands.js';
import { InProcessTransport } from '../messaging/in-process-commands.js';
import { createRuntime, RuntimeModule, type Runtime } from '../runtime/runtime.js';
import { signToken } from '../auth/auth.js';

export const TEST_JWT_SECRET = 'test-secret-not-for-production-0123456789';

/** testEnv — the variables every service needs, for building a config in tests. */
export function testEnv(databaseUrl: string, overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: databaseUrl,
    AUTH_JWT_ACCESS_SECRET: TEST_JWT_SECRET,
    SCAN_INTERVAL_SECONDS: '60',
    LOG_LEVEL: 'warn',
    ...overrides,
  };
}

export function testToken(scope = 'nodes:read nodes:write', sub = 'test-operator', secret = TEST_JWT_SECRET): string {
  return signToken(secret, { sub, scope });
}

export interface TestAppOptions {
  service: ServiceName;
  module: DynamicModule;
  runtime?: Runtime;
  /** Consume the service's RMQ command queue (split mode), or register handlers in-process (the runtime's registry). */
  transport?: 'rmq' | 'in-process' | 'none';
  rabbitmqUrl?: string;
  /** Listen for HTTP (the gateway, or a service's health port); 0 picks a free port. */
  httpPort?: number;
  /** Called after the app is created and before it listens or initialises (e.g. the gateway's OpenAPI routes). */
  configure?: (app: INestApplication) => void | Promise<void>;
}

/** startTestApp — one service module in this process, wired like `main.ts` but with an injectable runtime. */
export async function startTestApp(opts: TestAppOptions): Promise<{ app: INestApplication; runtime: Runtime; url?: string }> {
  const runtime = opts.runtime ?? createRuntime({ mode: 'split', logLevel: 'warn', ...(opts.rabbitmqUrl ? { rabbitmqUrl: opts.rabbitmqUrl } : {}) });
  @Module({ imports: [RuntimeModule.forRoot(runtime), opts.module] })
  class TestRoot {}
  const app = await NestFactory.create(TestRoot, { logger: new JsonLogger(opts.service, 'warn'), abortOnError: false });
  app.enableShutdownHooks();
  if (opts.transport === 'rmq') {
    app.connectMicroservice(rmqServerOptions(opts.service, opts.rabbitmqUrl ?? runtime.rabbitmqUrl!), { inheritAppConfig: true });
  } else if (opts.transport === 'in-process') {
    app.connectMicroservice({ strategy: new InProcessTransport(runtime.commands!) }, { inheritAppConfig: true });
  }
  await app.startAllMicroservices();
  await opts.configure?.(app);
  if (opts.httpPort !== undefined) {
    await app.listen(opts.httpPort, '127.0.0.1');
    const addr = app.getHttpServer().address() as { port: number };
    return { app, runtime, url: `http://127.0.0.1:${addr.port}` };
  }
  await app.init();
  return { app, runtime };
}
