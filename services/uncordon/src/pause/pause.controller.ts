import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import type { UncordonConfig } from '../config.js';
import { UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';
import { PauseService } from './pause.service.js';

/** The controller's one key: the pause. */
export const PAUSE_KEY = 'pause';

/**
 * PauseController — the end of a pause at its `until`, as a controller (docs/pause.md): one key, reconciled on
 * becoming leader, every SCAN_INTERVAL_SECONDS, and exactly at a pause's `until` (its requeue, on the Clock); after
 * a pause is set (`enqueue`). The leader only: one replica records the end.
 */
@Injectable()
export class PauseController {
  readonly controller: Controller;

  constructor(
    @Inject(UNCORDON_CONFIG) config: UncordonConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(PauseService) pause: PauseService,
  ) {
    this.controller = controllers.controller({
      name: 'pause-expiry',
      leader,
      listKeys: () => [PAUSE_KEY],
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      reconcile: () => pause.expire(),
    });
  }

  enqueue(): void {
    this.controller.enqueue(PAUSE_KEY);
  }
}
