import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import { DRAIN_REPOSITORY, UNCORDON_LEADER } from '../tokens.js';
import type { DrainRepository } from './drain.repository.js';
import { DrainService } from './drain.service.js';

/**
 * The leader looks for drains another replica recorded this often (one query on the partial index of active
 * operations), so a `node.drain` answered by any replica starts within about a second.
 */
export const DRAIN_PICKUP_MS = 1_000;
/** Drain steps carried on at once (a drain that waits holds none: it is a key with a time). */
const DRAINS_AT_ONCE = 16;

/**
 * DrainController — drains as a controller (docs/uncordon.md#controllers): one key per operation id, each reconcile
 * one step from the row ({@link DrainService.step}). Keys come from the `node.drain` command on the replica that took
 * it, from the active operations on becoming leader (a restart or failover resumes them), and every
 * `DRAIN_PICKUP_MS` from the pending operations no step has touched yet (recorded by another replica).
 */
@Injectable()
export class DrainController {
  readonly controller: Controller;

  constructor(
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(DRAIN_REPOSITORY) repo: DrainRepository,
    @Inject(DrainService) drains: DrainService,
  ) {
    this.controller = controllers.controller({
      name: 'drain',
      leader,
      listKeys: (why) => (why === 'start' ? repo.activeIds() : repo.untouchedIds()),
      resyncMs: DRAIN_PICKUP_MS,
      concurrency: DRAINS_AT_ONCE,
      reconcile: (id, ctx) => drains.step(id, ctx),
    });
  }

  /** enqueue — carry this operation on soon (in the leader; elsewhere the leader's pick-up finds it). */
  enqueue(id: string): void {
    this.controller.enqueue(id);
  }
}
