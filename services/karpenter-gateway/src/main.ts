import { loadConfig, runMain, splitMode, startSplitService } from '@nodes-manager/platform';
import { karpenterGatewayConfigSpec } from './config.js';
import { KarpenterGatewayModule } from './karpenter-gateway.module.js';

await runMain('karpenter-gateway', () => loadConfig(splitMode(karpenterGatewayConfigSpec)), karpenterGatewayConfigSpec.secrets, (config) =>
  startSplitService({
    service: 'karpenter-gateway',
    module: KarpenterGatewayModule.forRoot(config),
    rabbitmqUrl: config.RABBITMQ_URL!,
    port: config.HEALTH_PORT,
    logLevel: config.LOG_LEVEL,
  }),
);
