import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@nodes-manager/platform';
import { migrations } from '../../../migrations/karpenter-gateway/index.js';
import { entities } from './adapters/outbound/entities.js';
import { KarpenterGatewayCommands } from './adapters/inbound/karpenter-gateway.commands.js';
import type { KarpenterGatewayConfig } from './config.js';

export const KARPENTER_GATEWAY_CONFIG = Symbol('KARPENTER_GATEWAY_CONFIG');

/** KarpenterGatewayModule — wiring only: Karpenter NodePools and NodeClaims through the dynamic client. */
@Module({})
export class KarpenterGatewayModule {
  static forRoot(config: KarpenterGatewayConfig): DynamicModule {
    return {
      module: KarpenterGatewayModule,
      imports: [PlatformModule.forService({ service: 'karpenter-gateway', config, entities, migrations })],
      controllers: [KarpenterGatewayCommands],
      providers: [{ provide: KARPENTER_GATEWAY_CONFIG, useValue: config }],
    };
  }
}
