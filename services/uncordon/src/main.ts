import { loadConfig, runMain, splitMode, startSplitService } from '@nodes-manager/platform';
import { uncordonConfigSpec } from './config.js';
import { UncordonModule } from './uncordon.module.js';

await runMain('uncordon', () => loadConfig(splitMode(uncordonConfigSpec)), uncordonConfigSpec.secrets, (config) =>
  startSplitService({
    service: 'uncordon',
    module: UncordonModule.forRoot(config),
    rabbitmqUrl: config.RABBITMQ_URL!,
    port: config.HEALTH_PORT,
    logLevel: config.LOG_LEVEL,
  }),
);
