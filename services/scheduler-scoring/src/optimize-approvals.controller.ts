import { Inject, Injectable } from '@nestjs/common';
import { ApprovalsController, CLOCK, LOGGER, METRICS, type ApprovalStore, type Clock, type JsonLogger, type LeaderElector, type Metrics } from '@nodes-manager/platform';
import type { SchedulerScoringConfig } from './config.js';
import { SYSTEM_ACTOR } from './scheduler-scoring.service.js';
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
    @Inject(CLOCK) clock: Clock,
    @Inject(LOGGER) logger: JsonLogger,
    @Inject(METRICS) metrics: Metrics,
    @Inject(SCHEDULER_LEADER) leader: LeaderElector,
    @Inject(OPTIMIZE_APPROVALS_STORE) store: ApprovalStore,
  ) {
    this.approvals = new ApprovalsController({
      service: 'scheduler-scoring',
      store,
      clock,
      leader,
      logger,
      metrics,
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      actor: SYSTEM_ACTOR,
    });
  }
}
