import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@nodes-manager/platform';
import { migrations } from '../../../migrations/uncordon/index.js';
import { entities } from './adapters/outbound/entities.js';
import { UncordonCommands } from './adapters/inbound/uncordon.commands.js';
import type { UncordonConfig } from './config.js';

export const UNCORDON_CONFIG = Symbol('UNCORDON_CONFIG');

/** UncordonModule — wiring only: everything that changes a node's schedulability. */
@Module({})
export class UncordonModule {
  static forRoot(config: UncordonConfig): DynamicModule {
    return {
      module: UncordonModule,
      imports: [PlatformModule.forService({ service: 'uncordon', config, entities, migrations })],
      controllers: [UncordonCommands],
      providers: [{ provide: UNCORDON_CONFIG, useValue: config }],
    };
  }
}
