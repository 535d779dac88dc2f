import { Module, type DynamicModule } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { createKubeConfig, kubeWatchOptions, DATA_SOURCE, LEADER_FACTORY, LOGGER, PlatformModule, type JsonLogger, type LeaderFactory, retentionProvider } from '@nodes-manager/platform';
import { nodeSyncRetention } from './retention.js';
import { METRICS, type Metrics } from '@nodes-manager/platform';
import { migrations } from '../../../migrations/node-sync/index.js';
import { entities } from './adapters/outbound/node-sync.entities.js';
import { NodeSyncCommands } from './adapters/inbound/node-sync.commands.js';
import { NodeSyncLoop } from './adapters/inbound/node-sync.loop.js';
import { KubeCache } from './adapters/outbound/kube-cache.adapter.js';
import { NodeSyncRepository } from './adapters/outbound/node-sync.repository.js';
import { NodeSyncService } from './node-sync.service.js';
import { NodeSyncController } from './node-sync.controller.js';
import type { NodeSyncConfig } from './config.js';
import { KUBE_CACHE, NODE_SYNC_CONFIG, NODE_SYNC_LEADER, NODE_SYNC_REPOSITORY } from './tokens.js';

export { NODE_SYNC_CONFIG } from './tokens.js';

/** NodeSyncModule — wiring only: watches nodes and pods and projects them into Postgres. */
@Module({})
export class NodeSyncModule {
  static forRoot(config: NodeSyncConfig): DynamicModule {
    return {
      module: NodeSyncModule,
      imports: [PlatformModule.forService({ service: 'node-sync', config, entities, migrations })],
      controllers: [NodeSyncCommands],
      providers: [
        { provide: NODE_SYNC_CONFIG, useValue: config },
        // The history tables' retention (docs/retention.md): its own controller, leader-gated.
        retentionProvider(nodeSyncRetention, config),
        {
          provide: KUBE_CACHE,
          inject: [LOGGER, METRICS],
          useFactory: (logger: JsonLogger, metrics: Metrics) =>
            new KubeCache(createKubeConfig(config.KUBECONFIG), {
              pageSize: config.SYNC_PAGE_SIZE,
              // The reconcile every SCAN_INTERVAL_SECONDS is the controller's (NodeSyncController), on the Clock: the
              // informers need no replay of their cache of their own.
              resyncMs: 0,
              watch: kubeWatchOptions(config),
              logger,
              metrics: { metrics, service: 'node-sync' },
            }),
        },
        { provide: NODE_SYNC_REPOSITORY, inject: [DATA_SOURCE], useFactory: (ds: DataSource) => new NodeSyncRepository(ds) },
        { provide: NODE_SYNC_LEADER, inject: [LEADER_FACTORY], useFactory: (leaders: LeaderFactory) => leaders('node-sync') },
        NodeSyncService,
        NodeSyncController,
        NodeSyncLoop,
      ],
      exports: [NodeSyncController, NodeSyncService],
    };
  }
}
