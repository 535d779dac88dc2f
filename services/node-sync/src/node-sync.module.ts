import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@nodes-manager/platform';
import { migrations } from '../../../migrations/node-sync/index.js';
import { entities } from './adapters/outbound/entities.js';
import { NodeSyncCommands } from './adapters/inbound/node-sync.commands.js';
import type { NodeSyncConfig } from './config.js';

export const NODE_SYNC_CONFIG = Symbol('NODE_SYNC_CONFIG');

/** NodeSyncModule — wiring only: watches nodes and pods and projects them into Postgres. */
@Module({})
export class NodeSyncModule {
  static forRoot(config: NodeSyncConfig): DynamicModule {
    return {
      module: NodeSyncModule,
      imports: [PlatformModule.forService({ service: 'node-sync', config, entities, migrations })],
      controllers: [NodeSyncCommands],
      providers: [{ provide: NODE_SYNC_CONFIG, useValue: config }],
    };
  }
}
