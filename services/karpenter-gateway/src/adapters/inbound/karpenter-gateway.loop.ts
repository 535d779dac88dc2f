import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConsolidationApprovalsController } from '../../consolidation-approvals.controller.js';

/**
 * KarpenterGatewayLoop — starts and stops the service's controllers: the consolidation approvals. At shutdown no new
 * key is taken and the reconciles in flight finish, bounded. Thin: the keys and triggers are in the controllers.
 */
@Injectable()
export class KarpenterGatewayLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(ConsolidationApprovalsController) private readonly approvals: ConsolidationApprovalsController) {}

  onApplicationBootstrap(): void {
    this.approvals.approvals.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.approvals.approvals.stop();
  }
}
