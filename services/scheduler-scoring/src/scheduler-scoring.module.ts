import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@nodes-manager/platform';
import { migrations } from '../../../migrations/scheduler-scoring/index.js';
import { entities } from './adapters/outbound/entities.js';
import { SchedulerScoringCommands } from './adapters/inbound/scheduler-scoring.commands.js';
import type { SchedulerScoringConfig } from './config.js';

export const SCHEDULER_SCORING_CONFIG = Symbol('SCHEDULER_SCORING_CONFIG');

/** SchedulerScoringModule — wiring only: workload classes, placement scores, decisions, simulate, consolidation. */
@Module({})
export class SchedulerScoringModule {
  static forRoot(config: SchedulerScoringConfig): DynamicModule {
    return {
      module: SchedulerScoringModule,
      imports: [PlatformModule.forService({ service: 'scheduler-scoring', config, entities, migrations })],
      controllers: [SchedulerScoringCommands],
      providers: [{ provide: SCHEDULER_SCORING_CONFIG, useValue: config }],
    };
  }
}
