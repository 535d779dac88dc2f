import { loadConfig, runMain, splitMode, startSplitService } from '@nodes-manager/platform';
import { apiGatewayConfigSpec } from './config.js';
import { ApiGatewayModule } from './api-gateway.module.js';
import { setupOpenApi } from './openapi.js';
import { setupConsole } from './adapters/inbound/console-static.js';

await runMain('api-gateway', () => loadConfig(splitMode(apiGatewayConfigSpec)), apiGatewayConfigSpec.secrets, (config) =>
  startSplitService({
    service: 'api-gateway',
    module: ApiGatewayModule.forRoot(config),
    rabbitmqUrl: config.RABBITMQ_URL!,
    port: config.APP_PORT,
    logLevel: config.LOG_LEVEL,
    http: 'own',
    configure: (app) => {
      setupOpenApi(app);
      setupConsole(app);
    },
  }),
);
