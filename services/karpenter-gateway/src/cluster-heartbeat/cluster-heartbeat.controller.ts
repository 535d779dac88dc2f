import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import type { KarpenterGatewayConfig } from '../config.js';
import { KARPENTER_GATEWAY_CONFIG, KARPENTER_LEADER } from '../tokens.js';
import { ClusterHeartbeatService } from './cluster-heartbeat.service.js';

/**
 * ClusterHeartbeatController — `cluster.heartbeat` on the runtime: one key, `cluster`, reconciled on becoming leader and
 * every CLUSTER_HEARTBEAT_INTERVAL_SECONDS on the Clock. Leader-gated, so a cluster beats once however many replicas
 * run. Thin.
 */
@Injectable()
export class ClusterHeartbeatController {
  readonly controller: Controller;

  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG) config: KarpenterGatewayConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(ClusterHeartbeatService) svc: ClusterHeartbeatService,
    @Inject(KARPENTER_LEADER) leader: LeaderElector,
  ) {
    // The leader's alone: one beat per cluster, however many replicas run.
    this.controller = controllers.controller({
      name: 'cluster-heartbeat',
      leader,
      reconcile: async () => {
        await svc.beat();
        return undefined;
      },
      listKeys: () => ['cluster'],
      resyncMs: config.CLUSTER_HEARTBEAT_INTERVAL_SECONDS * 1000,
      backoff: { baseMs: 5_000, maxMs: config.CLUSTER_HEARTBEAT_INTERVAL_SECONDS * 1000 },
    });
  }
}
