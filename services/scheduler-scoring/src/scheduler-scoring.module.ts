import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import {
  approvalCommands,
  approvalStoreProvider,
  COMMAND_BUS,
  commandBusProviders,
  pauseGateProviders,
  createKubeConfig,
  DATA_SOURCE,
  LEADER_FACTORY,
  LOGGER,
  PlatformModule,
  serviceApprovalsProvider,
  type CommandBus,
  type JsonLogger,
  type LeaderFactory,
  retentionProvider,
} from '@nodes-manager/platform';
import { schedulerScoringRetention } from './retention.js';
import { HEALTH_REGISTRY, kubeRequestCounter, kubeWatchOptions, METRICS, type HealthRegistry, type Metrics } from '@nodes-manager/platform';
import { migrations } from '../../../migrations/scheduler-scoring/index.js';
import { entities, OPTIMIZE_APPROVALS } from './adapters/outbound/scheduler-scoring.entities.js';
import { SchedulerScoringCommands } from './adapters/inbound/scheduler-scoring.commands.js';
import { SchedulerScoringLoop } from './adapters/inbound/scheduler-scoring.loop.js';
import { InformerClusterCache } from './adapters/outbound/cluster-cache.adapter.js';
import { KubeNodeEvents } from './adapters/outbound/kube-node-events.adapter.js';
import { BusDrainer } from './adapters/outbound/drainer.adapter.js';
import { BusCatalogSource } from './adapters/outbound/catalog-source.adapter.js';
import { BusPriceSource } from './adapters/outbound/price-source.adapter.js';
import { SchedulingRepository } from './adapters/outbound/scheduling.repository.js';
import { ClusterMarketService } from './cluster-market.service.js';
import { SchedulingQueriesService } from './scheduling-queries.service.js';
import { OptimizeCycleService } from './optimize-cycle.service.js';
import { OptimizeExecutionService } from './optimize-execution.service.js';
import { OptimizeReplaceService } from './optimize-replace.service.js';
import { OptimizeController } from './optimize.controller.js';
import { OptimizeApprovalsController } from './optimize-approvals.controller.js';
import { PlanBlockedService } from './plan-blocked.service.js';
import type { SchedulerScoringConfig } from './config.js';
import { CATALOG_SOURCE, CLUSTER_CACHE, DRAINER, NODE_EVENTS, OPTIMIZE_APPROVALS_STORE, PRICE_SOURCE, SCHEDULER_APPROVALS, SCHEDULER_LEADER, SCHEDULER_SCORING_CONFIG, SCHEDULING_REPOSITORY } from './tokens.js';

export { SCHEDULER_SCORING_CONFIG } from './tokens.js';

/** SchedulerScoringModule — wiring only: workload classes, placement scores, decisions, simulate, consolidation. */
@Module({})
export class SchedulerScoringModule {
  /** `opts.providers`: more providers, such as the `PAUSE_GATE` the replacement path checks before it drains. */
  static forRoot(config: SchedulerScoringConfig, opts: { providers?: Provider[] } = {}): DynamicModule {
    return {
      module: SchedulerScoringModule,
      imports: [PlatformModule.forService({ service: 'scheduler-scoring', config, entities, migrations })],
      controllers: [SchedulerScoringCommands, approvalCommands('scheduler-scoring', SCHEDULER_APPROVALS)],
      providers: [
        { provide: SCHEDULER_SCORING_CONFIG, useValue: config },
        // The history tables' retention (docs/retention.md): its own controller, leader-gated.
        retentionProvider(schedulerScoringRetention, config),
        ...commandBusProviders('scheduler-scoring'),
        // The fleet-wide pause (docs/pause.md): asked of uncordon every scan interval, checked before each drain.
        ...pauseGateProviders('scheduler-scoring'),
        {
          provide: CLUSTER_CACHE,
          inject: [LOGGER, METRICS, HEALTH_REGISTRY],
          useFactory: (logger: JsonLogger, metrics: Metrics, health: HealthRegistry) => {
            const cache = new InformerClusterCache(createKubeConfig(config.KUBECONFIG), {
              watch: kubeWatchOptions(config),
              logger,
              metrics: { metrics, service: 'scheduler-scoring' },
            });
            // Not ready before every informer listed, nor while the Kubernetes API has not answered for KUBE_API_STALE_SECONDS.
            health.register('scheduler-scoring.kube-cache', () => cache.health());
            return cache;
          },
        },
        {
          provide: PRICE_SOURCE,
          inject: [COMMAND_BUS, LOGGER],
          useFactory: (bus: CommandBus, logger: JsonLogger) =>
            new BusPriceSource(bus, logger, 5000, { disruptionCostUsd: config.SCORING_DISRUPTION_COST_USD, minSamples: config.SCORING_MEASURED_MIN_SAMPLES }),
        },
        { provide: CATALOG_SOURCE, inject: [COMMAND_BUS, LOGGER], useFactory: (bus: CommandBus, logger: JsonLogger) => new BusCatalogSource(bus, logger) },
        { provide: DRAINER, inject: [COMMAND_BUS], useFactory: (bus: CommandBus) => new BusDrainer(bus) },
        // Node Events on the plan's PDB-blocked nodes (docs/pause.md#blocked).
        { provide: NODE_EVENTS, inject: [METRICS], useFactory: (metrics: Metrics) => new KubeNodeEvents(createKubeConfig(config.KUBECONFIG), kubeRequestCounter(metrics, 'scheduler-scoring')) },
        { provide: SCHEDULING_REPOSITORY, inject: [DATA_SOURCE], useFactory: (ds: DataSource) => new SchedulingRepository(ds) },
        { provide: SCHEDULER_LEADER, inject: [LEADER_FACTORY], useFactory: (leaders: LeaderFactory) => leaders('scheduler-scoring') },
        approvalStoreProvider(OPTIMIZE_APPROVALS_STORE, { service: 'scheduler-scoring', kind: 'optimize', table: OPTIMIZE_APPROVALS, config }),
        serviceApprovalsProvider(SCHEDULER_APPROVALS, [OPTIMIZE_APPROVALS_STORE]),
        PlanBlockedService,
        ClusterMarketService,
        SchedulingQueriesService,
        OptimizeExecutionService,
        OptimizeCycleService,
        OptimizeReplaceService,
        OptimizeController,
        OptimizeApprovalsController,
        SchedulerScoringLoop,
        ...(opts.providers ?? []),
      ],
    };
  }
}
