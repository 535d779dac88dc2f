import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type ApprovalsController, type ApprovalStore, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import type { SchedulerScoringConfig } from './config.js';
import { SYSTEM_ACTOR } from './optimize-cycle.service.js';
import { OPTIMIZE_APPROVALS_STORE, SCHEDULER_LEADER, SCHEDULER_SCORING_CONFIG } from './tokens.js';

/**
 * OptimizeApprovalsController — the expiry of the optimizer's approvals as a controller (libs/platform
 * `ApprovalsController`, docs/approvals.md#the-approvals-controller), the leader only: one key per pending request,
 * expired exactly at its deadline. Approved requests are carried out by the optimisation cycle in execute mode, under
 * the execution lock ({@link OptimizeController}), not here.
 */
@Injectable()
export class OptimizeApprovalsController {
  readonly approvals: ApprovalsController;

  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) config: SchedulerScoringConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(SCHEDULER_LEADER) leader: LeaderElector,
    @Inject(OPTIMIZE_APPROVALS_STORE) store: ApprovalStore,
  ) {
    this.approvals = controllers.approvals({
      store,
      leader,
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      actor: SYSTEM_ACTOR,
    });
  }
}
