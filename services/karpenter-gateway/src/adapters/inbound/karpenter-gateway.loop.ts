import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConsolidationApprovalsController } from '../../consolidation-approvals.controller.js';
import { SteeringController } from '../../steering/steering.controller.js';

/**
 * KarpenterGatewayLoop — starts and stops the service's controllers: the consolidation approvals, the steering pass and the steer approvals. At shutdown no new
 * key is taken and the reconciles in flight finish, bounded. Thin: the keys and triggers are in the controllers.
 */
@Injectable()
export class KarpenterGatewayLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(ConsolidationApprovalsController) private readonly approvals: ConsolidationApprovalsController,
    @Inject(SteeringController) private readonly steering: SteeringController,
  ) {}

  onApplicationBootstrap(): void {
    this.approvals.approvals.start();
    this.steering.controller.start();
    this.steering.approvals.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.approvals.approvals.stop(), this.steering.controller.stop(), this.steering.approvals.stop()]);
  }
}
