import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
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
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(PressureService) pressure: PressureService,
    @Inject(NODE_SOURCE) source: NodeSource,
  ) {
    this.controller = controllers.controller({
      name: 'pressure',
      leader,
      ready: () => source.waitForSync(),
      listKeys: () => pressure.nodesToRead(),
      resyncMs: config.PRESSURE_INTERVAL_SECONDS * 1000,
      concurrency: config.PRESSURE_CONCURRENCY,
      reconcile: (node) => pressure.read(node),
    });
  }
}
