import { Module, type DynamicModule } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { approvalCommands, approvalStoreProvider, serviceApprovalsProvider, OUTBOX, type Outbox, COMMAND_BUS, commandBusProviders, createKubeConfig, DATA_SOURCE, LEADER_FACTORY, LOGGER, PlatformModule, type CommandBus, type JsonLogger, type LeaderFactory, retentionProvider } from '@nodes-manager/platform';
import { uncordonRetention } from './retention.js';
import { CLOCK, PAUSE_GATE, PauseGate, type Clock, HEALTH_REGISTRY, kubeRequestCounter, kubeWatchOptions, METRICS, type HealthRegistry, type Metrics } from '@nodes-manager/platform';
import { migrations } from '../../../migrations/uncordon/index.js';
import { DRAIN_APPROVALS_TABLE, entities, FENCE_APPROVALS_TABLE } from './adapters/outbound/uncordon.entities.js';
import { UncordonCommands } from './adapters/inbound/uncordon.commands.js';
import { UncordonLoop } from './adapters/inbound/uncordon.loop.js';
import { KubeNodes } from './adapters/outbound/kube-nodes.adapter.js';
import { InformerNodeSource } from './adapters/outbound/node-source.adapter.js';
import { UncordonRepository } from './auto-uncordon/uncordon.repository.js';
import { DrainRepository } from './drain/drain.repository.js';
import { UncordonService } from './auto-uncordon/uncordon.service.js';
import { RebalanceLedgerService } from './rebalance-ledger/rebalance-ledger.service.js';
import { RebalanceCommands } from './adapters/inbound/rebalance.commands.js';
import { RebalanceLedgerRepository } from './rebalance-ledger/rebalance-ledger.repository.js';
import { KubeNodeEvents } from './rebalance-ledger/kube-node-events.adapter.js';
import { BusInstanceStates } from './rebalance-ledger/instance-states.adapter.js';
import { DrainService } from './drain/drain.service.js';
import { FencingService } from './fencing/fencing.service.js';
import { FenceService } from './fencing/fence.service.js';
import { FencingController } from './fencing/fencing.controller.js';
import { AutoUncordonController } from './auto-uncordon/auto-uncordon.controller.js';
import { DrainController } from './drain/drain.controller.js';
import { PressureController } from './pressure/pressure.controller.js';
import { RebalanceLedgerController } from './rebalance-ledger/rebalance-ledger.controller.js';
import { PressureService } from './pressure/pressure.service.js';
import { NodeSafetyCommands } from './adapters/inbound/node-safety.commands.js';
import { KubeFencing } from './adapters/outbound/kube-fencing.adapter.js';
import { FencingRepository } from './fencing/fencing.repository.js';
import { PressureRepository } from './pressure/pressure.repository.js';
import type { UncordonConfig } from './config.js';
import { PauseRepository } from './pause/pause.repository.js';
import { PauseService } from './pause/pause.service.js';
import { PauseController } from './pause/pause.controller.js';
import { PauseCommands } from './adapters/inbound/pause.commands.js';
import {
  DRAIN_APPROVALS,
  DRAIN_REPOSITORY,
  FENCE_APPROVALS,
  FENCING_REPOSITORY,
  KUBE_FENCING,
  KUBE_NODES,
  NODE_SOURCE,
  PRESSURE_REPOSITORY,
  UNCORDON_APPROVALS,
  UNCORDON_CONFIG,
  UNCORDON_LEADER,
  UNCORDON_REPOSITORY,
} from './tokens.js';
import { INSTANCE_STATES, NODE_EVENTS, NODE_HOURS, PAUSE_REPOSITORY, REBALANCE_REPOSITORY, SPOT_INTERRUPTIONS } from './tokens.js';
import { BusNodeHours } from './rebalance-ledger/node-hours.adapter.js';
import { SpotInterruptionsRepository } from './rebalance-ledger/spot-interruptions.repository.js';

export { UNCORDON_CONFIG } from './tokens.js';

/** UncordonModule — wiring only: everything that changes a node's schedulability or takes it away: auto-uncordon, drains, fencing, pressure relief. */
@Module({})
export class UncordonModule {
  static forRoot(config: UncordonConfig): DynamicModule {
    return {
      module: UncordonModule,
      imports: [PlatformModule.forService({ service: 'uncordon', config, entities, migrations })],
      controllers: [UncordonCommands, NodeSafetyCommands, PauseCommands, RebalanceCommands, approvalCommands('uncordon', UNCORDON_APPROVALS)],
      providers: [
        { provide: UNCORDON_CONFIG, useValue: config },
        // The history tables' retention (docs/retention.md): its own controller, leader-gated.
        retentionProvider(uncordonRetention, config),
        // Fencing asks spot-advisor (which owns EC2) to stop instances.
        ...commandBusProviders('uncordon'),
        { provide: KUBE_NODES, inject: [METRICS], useFactory: (metrics: Metrics) => new KubeNodes(createKubeConfig(config.KUBECONFIG), kubeRequestCounter(metrics, 'uncordon')) },
        {
          provide: NODE_SOURCE,
          inject: [KUBE_NODES, LOGGER, METRICS, HEALTH_REGISTRY],
          useFactory: (kube: KubeNodes, logger: JsonLogger, metrics: Metrics, health: HealthRegistry) => {
            const source = new InformerNodeSource(kube.kc, logger, kubeWatchOptions(config), undefined, metrics);
            // Not ready before the first list, nor while the Kubernetes API has not answered for KUBE_API_STALE_SECONDS.
            health.register('uncordon.kube-cache', () => source.health());
            return source;
          },
        },
        { provide: UNCORDON_REPOSITORY, inject: [DATA_SOURCE], useFactory: (ds: DataSource) => new UncordonRepository(ds) },
        { provide: DRAIN_REPOSITORY, inject: [DATA_SOURCE, UNCORDON_REPOSITORY], useFactory: (ds: DataSource, events: UncordonRepository) => new DrainRepository(ds, events) },
        { provide: UNCORDON_LEADER, inject: [LEADER_FACTORY], useFactory: (leaders: LeaderFactory) => leaders('uncordon') },
        { provide: KUBE_FENCING, inject: [KUBE_NODES, METRICS], useFactory: (kube: KubeNodes, metrics: Metrics) => new KubeFencing(kube.kc, kubeRequestCounter(metrics, 'uncordon')) },
        {
          provide: FENCING_REPOSITORY,
          inject: [DATA_SOURCE, UNCORDON_REPOSITORY, OUTBOX],
          useFactory: (ds: DataSource, events: UncordonRepository, outbox: Outbox) => new FencingRepository(ds, events, outbox),
        },
        {
          provide: PRESSURE_REPOSITORY,
          inject: [DATA_SOURCE, UNCORDON_REPOSITORY, OUTBOX],
          useFactory: (ds: DataSource, events: UncordonRepository, outbox: Outbox) => new PressureRepository(ds, events, outbox),
        },
        approvalStoreProvider(FENCE_APPROVALS, { service: 'uncordon', kind: 'fence', table: FENCE_APPROVALS_TABLE, config }),
        approvalStoreProvider(DRAIN_APPROVALS, { service: 'uncordon', kind: 'drain', table: DRAIN_APPROVALS_TABLE, config }),
        serviceApprovalsProvider(UNCORDON_APPROVALS, [FENCE_APPROVALS, DRAIN_APPROVALS]),
        { provide: REBALANCE_REPOSITORY, inject: [DATA_SOURCE, OUTBOX], useFactory: (ds: DataSource, outbox: Outbox) => new RebalanceLedgerRepository(ds, outbox) },
        {
          provide: NODE_EVENTS,
          inject: [KUBE_NODES, LOGGER, METRICS, CLOCK],
          useFactory: (kube: KubeNodes, logger: JsonLogger, metrics: Metrics, clock: Clock) =>
            new KubeNodeEvents(kube.kc, { logger, metrics: { metrics, service: 'uncordon' }, resyncMs: config.SCAN_INTERVAL_SECONDS * 1000, now: () => clock.now().getTime() }),
        },
        { provide: INSTANCE_STATES, inject: [COMMAND_BUS], useFactory: (bus: CommandBus) => new BusInstanceStates(bus) },
        { provide: NODE_HOURS, inject: [COMMAND_BUS], useFactory: (bus: CommandBus) => new BusNodeHours(bus) },
        { provide: SPOT_INTERRUPTIONS, inject: [DATA_SOURCE], useFactory: (ds: DataSource) => new SpotInterruptionsRepository(ds) },
        // The pause's owner reads its own table (docs/pause.md#who-keeps-it-and-how-every-service-learns-it).
        { provide: PAUSE_REPOSITORY, inject: [DATA_SOURCE, OUTBOX], useFactory: (ds: DataSource, outbox: Outbox) => new PauseRepository(ds, outbox) },
        {
          provide: PAUSE_GATE,
          inject: [PAUSE_REPOSITORY, CLOCK, LOGGER, METRICS, HEALTH_REGISTRY],
          useFactory: (repo: PauseRepository, clock: Clock, logger: JsonLogger, metrics: Metrics, health: HealthRegistry) =>
            new PauseGate({ service: 'uncordon', source: () => repo.view(clock.now()), clock, logger, intervalMs: config.SCAN_INTERVAL_SECONDS * 1000, metrics, health }),
        },
        PauseService,
        PauseController,
        RebalanceLedgerService,
        UncordonService,
        DrainService,
        FencingService,
        FenceService,
        PressureService,
        RebalanceLedgerController,
        AutoUncordonController,
        DrainController,
        FencingController,
        PressureController,
        UncordonLoop,
      ],
    };
  }
}
