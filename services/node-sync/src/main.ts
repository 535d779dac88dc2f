import { loadConfig, runMain, splitMode, startSplitService } from '@nodes-manager/platform';
import { nodeSyncConfigSpec } from './config.js';
import { NodeSyncModule } from './node-sync.module.js';

await runMain('node-sync', () => loadConfig(splitMode(nodeSyncConfigSpec)), nodeSyncConfigSpec.secrets, (config) =>
  startSplitService({
    service: 'node-sync',
    module: NodeSyncModule.forRoot(config),
    rabbitmqUrl: config.RABBITMQ_URL!,
    port: config.HEALTH_PORT,
    logLevel: config.LOG_LEVEL,
  }),
);
