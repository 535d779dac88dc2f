import { loadConfig, runMain, splitMode, startSplitService } from '@nodes-manager/platform';
import { spotAdvisorConfigSpec } from './config.js';
import { SpotAdvisorModule } from './spot-advisor.module.js';

await runMain('spot-advisor', () => loadConfig(splitMode(spotAdvisorConfigSpec)), spotAdvisorConfigSpec.secrets, (config) =>
  startSplitService({
    service: 'spot-advisor',
    module: SpotAdvisorModule.forRoot(config),
    rabbitmqUrl: config.RABBITMQ_URL!,
    port: config.HEALTH_PORT,
    logLevel: config.LOG_LEVEL,
  }),
);
