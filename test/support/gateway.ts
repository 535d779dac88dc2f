import type { DynamicModule } from '@nestjs/common';
import { testEnv } from '@nodes-manager/platform/testing';
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
