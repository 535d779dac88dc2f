import { CLUSTER_COUNT_SOURCES, CommandClusterCounts } from './cluster-heartbeat/cluster-counts.adapter.js';
import { ClusterHeartbeatController } from './cluster-heartbeat/cluster-heartbeat.controller.js';
import { ClusterHeartbeatRepository } from './cluster-heartbeat/cluster-heartbeat.repository.js';
import { ClusterHeartbeatService } from './cluster-heartbeat/cluster-heartbeat.service.js';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import {
  approvalCommands,
  approvalStoreProvider,
  CLOCK,
  commandBusProviders,
  pauseGateProviders,
  createKubeConfig,
  HEALTH_REGISTRY,
  LEADER_FACTORY,
  LOGGER,
  type LeaderFactory,
  PlatformModule,
  serviceApprovalsProvider,
  type Clock,
  type HealthRegistry,
  type JsonLogger,
  retentionProvider,
} from '@nodes-manager/platform';
import { karpenterGatewayRetention } from './retention.js';
import { migrations } from '../../../migrations/karpenter-gateway/index.js';
import { CONSOLIDATION_APPROVALS_TABLE, entities, STEER_APPROVALS_TABLE } from './adapters/outbound/karpenter-gateway.entities.js';
import { SteeringCommands } from './adapters/inbound/steering.commands.js';
import { SteeringReportCommands } from './adapters/inbound/steering-report.commands.js';
import { SteeringPoolsService } from './steering-report/steering-pools.service.js';
import { SteeringReportService } from './steering-report/steering-report.service.js';
import { CommandOnDemandReplacer, CommandSteeringSources, ON_DEMAND_REPLACER, STEERING_SOURCES } from './steering/steering-sources.adapter.js';
import { SteeringController } from './steering/steering.controller.js';
import { SteeringRepository } from './steering/steering.repository.js';
import { STEER_APPROVALS, SteeringService } from './steering/steering.service.js';
import { KarpenterGatewayLoop } from './adapters/inbound/karpenter-gateway.loop.js';
import { ConsolidationApprovalsController } from './consolidation-approvals.controller.js';
import { KARPENTER_KUBE, KarpenterKube } from './adapters/outbound/karpenter-kube.adapter.js';
import { NodePoolChangesRepository } from './adapters/outbound/nodepool-changes.repository.js';
import { KarpenterGatewayCommands } from './adapters/inbound/karpenter-gateway.commands.js';
import { ConsolidationPlanningService } from './consolidation-planning.service.js';
import { ConsolidationService } from './consolidation.service.js';
import { NodePoolAccess } from './nodepool-access.js';
import { NodePoolQueriesService } from './nodepool-queries.service.js';
import { NodePoolWritesService } from './nodepool-writes.service.js';
import { assertSteeringConfig, type KarpenterGatewayConfig } from './config.js';
import { CONSOLIDATION_APPROVALS, DISRUPTION_GATE, KARPENTER_GATEWAY_CONFIG, KARPENTER_LEADER, KARPENTER_SERVICE_OPTIONS } from './tokens.js';

export { KARPENTER_GATEWAY_CONFIG } from './tokens.js';

/** The service's approvals (two stores: `consolidate`, `steer`), for the shared approval commands. */
const KARPENTER_APPROVALS = Symbol('KARPENTER_APPROVALS');

/** KarpenterGatewayModule — wiring only: Karpenter NodePools and NodeClaims through the dynamic client. */
@Module({})
export class KarpenterGatewayModule {
  /**
   * `opts.steeringSources`: what steering reads from the other services (tests hand-write one; default the command
   * bus). `opts.providers`: more providers, such as the `PAUSE_GATE` steering checks before each write.
   */
  static forRoot(config: KarpenterGatewayConfig, opts: { steeringSources?: Provider; providers?: Provider[] } = {}): DynamicModule {
    assertSteeringConfig(config);
    return {
      module: KarpenterGatewayModule,
      imports: [PlatformModule.forService({ service: 'karpenter-gateway', config, entities, migrations })],
      controllers: [KarpenterGatewayCommands, SteeringCommands, SteeringReportCommands, approvalCommands('karpenter-gateway', KARPENTER_APPROVALS)],
      providers: [
        { provide: KARPENTER_GATEWAY_CONFIG, useValue: config },
        // The history tables' retention (docs/retention.md): its own controller, leader-gated.
        retentionProvider(karpenterGatewayRetention, config),
        {
          provide: KARPENTER_KUBE,
          inject: [CLOCK, LOGGER, HEALTH_REGISTRY],
          useFactory: (clock: Clock, logger: JsonLogger, health: HealthRegistry) => {
            const kube = new KarpenterKube(createKubeConfig(config.KUBECONFIG), clock, config.KARPENTER_DISCOVERY_CACHE_SECONDS * 1000, logger);
            // Karpenter's absence is a normal state, not ill health; an API server we cannot reach is.
            health.register('karpenter-gateway.kubernetes', async () => {
              try {
                return { ok: true, detail: (await kube.installed()) ? 'karpenter installed' : 'karpenter not installed' };
              } catch (err) {
                return { ok: false, detail: (err as Error).message };
              }
            });
            return kube;
          },
        },
        { provide: KARPENTER_SERVICE_OPTIONS, useValue: { planTimeoutMs: Math.max(100, Math.floor(config.COMMAND_TIMEOUT_MS * 0.6)) } },
        ...commandBusProviders('karpenter-gateway'),
        // Steering runs in the leader only (docs/steering.md#the-loop).
        { provide: KARPENTER_LEADER, inject: [LEADER_FACTORY], useFactory: (leaders: LeaderFactory) => leaders('karpenter-gateway') },
        // The fleet-wide pause (docs/pause.md): asked of uncordon every scan interval, checked before each NodeClaim deletion.
        ...pauseGateProviders('karpenter-gateway'),
        { provide: DISRUPTION_GATE, useValue: { policy: config.DISRUPTION_APPROVAL, windows: config.DISRUPTION_WINDOWS } },
        approvalStoreProvider(CONSOLIDATION_APPROVALS, { service: 'karpenter-gateway', kind: 'consolidate', table: CONSOLIDATION_APPROVALS_TABLE, config }),
        approvalStoreProvider(STEER_APPROVALS, { service: 'karpenter-gateway', kind: 'steer', table: STEER_APPROVALS_TABLE, config }),
        serviceApprovalsProvider(KARPENTER_APPROVALS, [CONSOLIDATION_APPROVALS, STEER_APPROVALS]),
        opts.steeringSources ?? { provide: STEERING_SOURCES, useClass: CommandSteeringSources },
        { provide: ON_DEMAND_REPLACER, useClass: CommandOnDemandReplacer },
        SteeringRepository,
        SteeringService,
        SteeringReportService,
        SteeringPoolsService,
        SteeringController,
        NodePoolChangesRepository,
        NodePoolAccess,
        NodePoolQueriesService,
        NodePoolWritesService,
        ConsolidationPlanningService,
        ConsolidationService,
        ConsolidationApprovalsController,
        { provide: CLUSTER_COUNT_SOURCES, useClass: CommandClusterCounts },
        ClusterHeartbeatRepository,
        ClusterHeartbeatService,
        ClusterHeartbeatController,
        KarpenterGatewayLoop,
        ...(opts.providers ?? []),
      ],
    };
  }
}
