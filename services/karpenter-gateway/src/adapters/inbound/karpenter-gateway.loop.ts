import { Inject, Injectable } from '@nestjs/common';
import { Manager } from '@nodes-manager/platform';
import { ClusterHeartbeatController } from '../../cluster-heartbeat/cluster-heartbeat.controller.js';
import { ConsolidationApprovalsController } from '../../consolidation-approvals.controller.js';
import { SteeringController } from '../../steering/steering.controller.js';

/**
 * KarpenterGatewayLoop — the service's parts for the runtime's {@link Manager} (docs/runtime.md#the-manager): the
 * consolidation approvals, the steering pass and the steer approvals. At shutdown no new key is taken and the
 * reconciles in flight finish, bounded. Thin: the keys and triggers are in the controllers.
 */
@Injectable()
export class KarpenterGatewayLoop extends Manager {
  constructor(
    @Inject(ConsolidationApprovalsController) approvals: ConsolidationApprovalsController,
    @Inject(SteeringController) steering: SteeringController,
    @Inject(ClusterHeartbeatController) heartbeat: ClusterHeartbeatController,
  ) {
    super({ controllers: [approvals.approvals, steering.controller, steering.approvals, heartbeat.controller] });
  }
}
