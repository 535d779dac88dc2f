import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@nodes-manager/platform';
import { migrations } from '../../../migrations/spot-advisor/index.js';
import { entities } from './adapters/outbound/entities.js';
import { SpotAdvisorCommands } from './adapters/inbound/spot-advisor.commands.js';
import type { SpotAdvisorConfig } from './config.js';

export const SPOT_ADVISOR_CONFIG = Symbol('SPOT_ADVISOR_CONFIG');

/** SpotAdvisorModule — wiring only: EC2 Spot prices, interruption estimates, instance types and provisioning. */
@Module({})
export class SpotAdvisorModule {
  static forRoot(config: SpotAdvisorConfig): DynamicModule {
    return {
      module: SpotAdvisorModule,
      imports: [PlatformModule.forService({ service: 'spot-advisor', config, entities, migrations })],
      controllers: [SpotAdvisorCommands],
      providers: [{ provide: SPOT_ADVISOR_CONFIG, useValue: config }],
    };
  }
}
