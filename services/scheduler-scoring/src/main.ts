import { loadConfig, runMain, splitMode, startSplitService } from '@nodes-manager/platform';
import { schedulerScoringConfigSpec } from './config.js';
import { SchedulerScoringModule } from './scheduler-scoring.module.js';

await runMain('scheduler-scoring', () => loadConfig(splitMode(schedulerScoringConfigSpec)), schedulerScoringConfigSpec.secrets, (config) =>
  startSplitService({
    service: 'scheduler-scoring',
    module: SchedulerScoringModule.forRoot(config),
    rabbitmqUrl: config.RABBITMQ_URL!,
    port: config.HEALTH_PORT,
    logLevel: config.LOG_LEVEL,
  }),
);
