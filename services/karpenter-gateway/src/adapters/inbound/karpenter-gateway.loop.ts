import { Inject, Injectable } from '@nestjs/common';
import { Manager, type LeaderElector } from '@nodes-manager/platform';
import { ClusterHeartbeatController } from '../../cluster-heartbeat/cluster-heartbeat.controller.js';
import { ConsolidationApprovalsController } from '../../consolidation-approvals.controller.js';
import { SteeringController } from '../../steering/steering.controller.js';
import { KARPENTER_LEADER } from '../../tokens.js';

/**
 * KarpenterGatewayLoop — the service's parts for the runtime's {@link Manager} (docs/runtime.md#the-manager): the
 * consolidation approvals, the steering pass (the leader's: docs/steering.md#the-loop), the steer approvals and the
 * leader election. At shutdown no new key is taken and the reconciles in flight finish, bounded, then the leader's
 * lock is released. Thin: the keys and triggers are in the controllers.
 */
@Injectable()
export class KarpenterGatewayLoop extends Manager {
  constructor(
    @Inject(ConsolidationApprovalsController) approvals: ConsolidationApprovalsController,
    @Inject(SteeringController) steering: SteeringController,
    @Inject(ClusterHeartbeatController) heartbeat: ClusterHeartbeatController,
    @Inject(KARPENTER_LEADER) leader: LeaderElector,
  ) {
    super({ controllers: [approvals.approvals, steering.controller, steering.approvals, heartbeat.controller], leader });
  }
}
