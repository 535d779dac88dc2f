import { Inject, Injectable } from '@nestjs/common';
import { HEALTH_REGISTRY, Manager, type HealthRegistry, type LeaderElector } from '@nodes-manager/platform';
import { NodeSyncController } from '../../node-sync.controller.js';
import type { KubeCache } from '../outbound/kube-cache.adapter.js';
import { KUBE_CACHE, NODE_SYNC_LEADER } from '../../tokens.js';

/**
 * NodeSyncLoop — node-sync's parts for the runtime's {@link Manager} (docs/runtime.md#the-manager), which starts and
 * stops them in its one order: the controllers (docs/node-sync.md#the-controllers), the election `node-sync`, the
 * informers. Thin: the keys and triggers are in NodeSyncController, the work in NodeSyncService.
 */
@Injectable()
export class NodeSyncLoop extends Manager {
  constructor(
    @Inject(HEALTH_REGISTRY) health: HealthRegistry,
    @Inject(KUBE_CACHE) cache: KubeCache,
    @Inject(NODE_SYNC_LEADER) leader: LeaderElector,
    @Inject(NodeSyncController) sync: NodeSyncController,
  ) {
    super({ controllers: [sync.controller], leader, caches: [cache] });
    // Not ready before the first complete list, nor while the Kubernetes API has not answered for KUBE_API_STALE_SECONDS.
    health.register('node-sync.kube-cache', () => cache.health());
  }
}
