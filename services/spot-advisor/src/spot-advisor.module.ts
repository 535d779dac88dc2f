import { Module, type DynamicModule } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CLOCK, COMMAND_BUS, commandBusProviders, DATA_SOURCE, LOGGER, METRICS, OUTBOX, PlatformModule, type Clock, type CommandBus, type JsonLogger, type Metrics, type Outbox, retentionProvider } from '@nodes-manager/platform';
import { spotAdvisorRetention } from './retention.js';
import { BusMeasuredRebalances } from './adapters/outbound/measured-rebalances.js';
import { migrations } from '../../../migrations/spot-advisor/index.js';
import { entities } from './adapters/outbound/spot-advisor.entities.js';
import { SpotAdvisorCommands } from './adapters/inbound/spot-advisor.commands.js';
import { Ec2Regions, type Ec2Settings } from './adapters/outbound/ec2-regions.adapter.js';
import { SpotPriceRepository } from './adapters/outbound/spot-price.repository.js';
import { ProvisioningRepository } from './adapters/outbound/provisioning.repository.js';
import { EC2_REGIONS, MEASURED_REBALANCES, SpotAdvisorService } from './spot-advisor.service.js';
import { InstanceControlService } from './instance-control.service.js';
import { SPOT_ADVISOR_CONFIG, type SpotAdvisorConfig } from './config.js';

export { SPOT_ADVISOR_CONFIG };

export interface SpotAdvisorModuleOptions {
  /**
   * EC2 client settings beyond the config, for tests against the simulator (`endpoint`, `maxAttempts`). Production
   * leaves them unset: the SDK's own `AWS_ENDPOINT_URL_EC2` and retry defaults apply.
   */
  readonly ec2?: Pick<Ec2Settings, 'endpoint' | 'maxAttempts'>;
}

/** SpotAdvisorModule — wiring only: EC2 Spot prices, interruption estimates, instance types and provisioning. */
@Module({})
export class SpotAdvisorModule {
  static forRoot(config: SpotAdvisorConfig, options: SpotAdvisorModuleOptions = {}): DynamicModule {
    const credentials =
      config.AWS_ACCESS_KEY_ID && config.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: config.AWS_ACCESS_KEY_ID, secretAccessKey: config.AWS_SECRET_ACCESS_KEY }
        : undefined;
    return {
      module: SpotAdvisorModule,
      imports: [PlatformModule.forService({ service: 'spot-advisor', config, entities, migrations })],
      controllers: [SpotAdvisorCommands],
      providers: [
        { provide: SPOT_ADVISOR_CONFIG, useValue: config },
        // The history tables' retention (docs/retention.md): its own controller, leader-gated.
        retentionProvider(spotAdvisorRetention, config),
        {
          provide: EC2_REGIONS,
          inject: [METRICS],
          useFactory: (metrics: Metrics) =>
            new Ec2Regions({
              ...(credentials ? { credentials } : {}),
              onError: (action, err) => metrics.apiError('ec2', 'spot-advisor', action, String(err.details?.['ec2Code'] ?? err.code)),
              ...options.ec2,
            }),
        },
        { provide: SpotPriceRepository, inject: [DATA_SOURCE, OUTBOX], useFactory: (ds: DataSource, o: Outbox) => new SpotPriceRepository(ds, o) },
        { provide: ProvisioningRepository, inject: [DATA_SOURCE, OUTBOX], useFactory: (ds: DataSource, o: Outbox) => new ProvisioningRepository(ds, o) },
        ...commandBusProviders('spot-advisor'),
        {
          provide: MEASURED_REBALANCES,
          inject: [COMMAND_BUS, CLOCK, LOGGER],
          useFactory: (bus: CommandBus, clock: Clock, logger: JsonLogger) => new BusMeasuredRebalances(bus, clock, logger, config.SPOT_MEASURED_CACHE_SECONDS * 1000),
        },
        SpotAdvisorService,
        InstanceControlService,
      ],
    };
  }
}
