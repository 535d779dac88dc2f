import { Module, type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import type { CloudEvent } from '@nodes-manager/contracts';
import type { Runtime } from '@nodes-manager/platform';
import { apiCaller, startTestApp, testEnv, testToken } from '@nodes-manager/platform/testing';
import { ApiGatewayModule } from '../../services/api-gateway/src/api-gateway.module.js';
import { loadApiGatewayConfig } from '../../services/api-gateway/src/config.js';

/**
 * testGatewayModule — the real api-gateway module for API-level tests of a service in one process (the all-in-one
 * wiring). Composing services is the job of a composition root — all-in-one/ in production, this folder in tests —
 * so a service's own code and tests never import another service.
 */
export function testGatewayModule(databaseUrl: string, env: Record<string, string> = {}): DynamicModule {
  return ApiGatewayModule.forRoot(loadApiGatewayConfig(testEnv(databaseUrl, env)));
}

/**
 * startBehindGateway — service modules behind the real gateway in one process (all-in-one wiring, in-process
 * transport and event bus), on a random port: the app, its URL, every event published, and an API caller whose token
 * has read and write scope (actor `alice`).
 */
export async function startBehindGateway(opts: {
  databaseUrl: string;
  runtime: Runtime;
  modules: DynamicModule[];
  controllers?: Type[];
}): Promise<{ app: INestApplication; url: string; events: CloudEvent[]; call: ReturnType<typeof apiCaller> }> {
  @Module({ imports: [testGatewayModule(opts.databaseUrl), ...opts.modules], controllers: opts.controllers ?? [] })
  class BehindGatewayRoot {}
  const { app, url } = await startTestApp({ service: 'api-gateway', module: { module: BehindGatewayRoot }, runtime: opts.runtime, transport: 'in-process', httpPort: 0 });
  const events: CloudEvent[] = [];
  opts.runtime.eventBus!.tap((e) => events.push(e));
  return { app, url: url!, events, call: apiCaller(url!, testToken('nodes:read nodes:write', 'alice')) };
}
