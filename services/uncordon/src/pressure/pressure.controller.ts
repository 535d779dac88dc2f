import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Controller, LOGGER, METRICS, type Clock, type JsonLogger, type LeaderElector, type Metrics } from '@nodes-manager/platform';
import type { UncordonConfig } from '../config.js';
import type { NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { NODE_SOURCE, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';
import { PressureService } from './pressure.service.js';

/**
 * PressureController — pressure watching as a controller (docs/uncordon.md#controllers): one key per node that opted
 * in (or still has a reading), listed on becoming leader and every PRESSURE_INTERVAL_SECONDS, at most
 * PRESSURE_CONCURRENCY read at once ({@link PressureService.read}). The leader only.
 */
@Injectable()
export class PressureController {
  readonly controller: Controller;

  constructor(
    @Inject(UNCORDON_CONFIG) config: UncordonConfig,
    @Inject(CLOCK) clock: Clock,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(METRICS) metrics: Metrics,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(PressureService) pressure: PressureService,
    @Inject(NODE_SOURCE) source: NodeSource,
  ) {
    this.controller = new Controller({
      name: 'pressure',
      service: 'uncordon',
      clock,
      leader,
      metrics,
      logger,
      ready: () => source.waitForSync(),
      listKeys: () => pressure.nodesToRead(),
      resyncMs: config.PRESSURE_INTERVAL_SECONDS * 1000,
      concurrency: config.PRESSURE_CONCURRENCY,
      reconcile: (node) => pressure.read(node),
    });
  }
}
