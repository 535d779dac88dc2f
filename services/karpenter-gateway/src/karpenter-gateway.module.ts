import { Module, type DynamicModule } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import {
  ApprovalStore,
  CLOCK,
  commandBusProviders,
  createKubeConfig,
  DATA_SOURCE,
  HEALTH_REGISTRY,
  LOGGER,
  METRICS,
  OUTBOX,
  PlatformModule,
  type Clock,
  type HealthRegistry,
  type JsonLogger,
  type Metrics,
  type Outbox,
} from '@nodes-manager/platform';
import { migrations } from '../../../migrations/karpenter-gateway/index.js';
import { CONSOLIDATION_APPROVALS_TABLE, entities } from './adapters/outbound/karpenter-gateway.entities.js';
import { ConsolidationApprovalsLoop, KARPENTER_GATEWAY_CONFIG_FOR_LOOP } from './adapters/inbound/consolidation-approvals.loop.js';
import { KARPENTER_KUBE, KarpenterKube } from './adapters/outbound/karpenter-kube.adapter.js';
import { NodePoolChangesRepository } from './adapters/outbound/nodepool-changes.repository.js';
import { KarpenterGatewayCommands } from './adapters/inbound/karpenter-gateway.commands.js';
import { CONSOLIDATION_APPROVALS, DISRUPTION_GATE, KARPENTER_SERVICE_OPTIONS, KarpenterGatewayService } from './karpenter-gateway.service.js';
import type { KarpenterGatewayConfig } from './config.js';

export const KARPENTER_GATEWAY_CONFIG = Symbol('KARPENTER_GATEWAY_CONFIG');

/** KarpenterGatewayModule — wiring only: Karpenter NodePools and NodeClaims through the dynamic client. */
@Module({})
export class KarpenterGatewayModule {
  static forRoot(config: KarpenterGatewayConfig): DynamicModule {
    return {
      module: KarpenterGatewayModule,
      imports: [PlatformModule.forService({ service: 'karpenter-gateway', config, entities, migrations })],
      controllers: [KarpenterGatewayCommands],
      providers: [
        { provide: KARPENTER_GATEWAY_CONFIG, useValue: config },
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
        { provide: DISRUPTION_GATE, useValue: { policy: config.DISRUPTION_APPROVAL, windows: config.DISRUPTION_WINDOWS } },
        {
          provide: CONSOLIDATION_APPROVALS,
          inject: [DATA_SOURCE, OUTBOX, CLOCK, LOGGER, METRICS],
          useFactory: (ds: DataSource, outbox: Outbox, clock: Clock, logger: JsonLogger, metrics: Metrics) =>
            new ApprovalStore({
              ds, outbox, clock, logger, metrics,
              service: 'karpenter-gateway',
              kind: 'consolidate',
              table: CONSOLIDATION_APPROVALS_TABLE,
              rules: { distinctApprover: config.APPROVAL_DISTINCT_APPROVER },
              ttlMinutes: config.APPROVAL_TTL_MINUTES,
            }),
        },
        { provide: KARPENTER_GATEWAY_CONFIG_FOR_LOOP, useValue: { scanIntervalMs: config.SCAN_INTERVAL_SECONDS * 1000 } },
        NodePoolChangesRepository,
        KarpenterGatewayService,
        ConsolidationApprovalsLoop,
      ],
    };
  }
}
