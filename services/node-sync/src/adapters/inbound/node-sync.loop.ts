import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HEALTH_REGISTRY, type HealthRegistry, type LeaderElector } from '@nodes-manager/platform';
import { NodeSyncController } from '../../node-sync.controller.js';
import type { KubeCache } from '../outbound/kube-cache.adapter.js';
import { KUBE_CACHE, NODE_SYNC_LEADER } from '../../tokens.js';

/**
 * NodeSyncLoop — starts and stops node-sync's controllers (docs/node-sync.md#the-controllers): at bootstrap the
 * controllers follow the leader election, then the election and the informers start; at shutdown the informers stop
 * (no more changes), then the controllers (no new cycle; the one in flight finishes, bounded), then the election, so
 * a standby takes over at once. Thin: the keys and triggers are in NodeSyncController, the work in NodeSyncService.
 */
@Injectable()
export class NodeSyncLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(HEALTH_REGISTRY) private readonly health: HealthRegistry,
    @Inject(KUBE_CACHE) private readonly cache: KubeCache,
    @Inject(NODE_SYNC_LEADER) private readonly leader: LeaderElector,
    @Inject(NodeSyncController) private readonly sync: NodeSyncController,
  ) {}

  onApplicationBootstrap(): void {
    // Not ready before the first complete list, nor while the Kubernetes API has not answered for KUBE_API_STALE_SECONDS.
    this.health.register('node-sync.kube-cache', () => this.cache.health());
    this.sync.controller.start();
    this.leader.start();
    this.cache.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.cache.stop();
    await this.sync.controller.stop();
    await this.leader.stop();
  }
}
