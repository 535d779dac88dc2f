import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type ApprovalsController, type ApprovalStore, type Controllers } from '@nodes-manager/platform';
import type { KarpenterGatewayConfig } from './config.js';
import { ConsolidationService } from './consolidation.service.js';
import { CONSOLIDATION_APPROVALS, KARPENTER_GATEWAY_CONFIG } from './tokens.js';

const SYSTEM_ACTOR = 'system:karpenter-gateway';

/**
 * ConsolidationApprovalsController — the consolidation approvals as a controller (libs/platform
 * `ApprovalsController`, docs/karpenter.md#approvals), on every replica: one key per approval id — a request or a
 * decision this replica answered is looked at at once, and every SCAN_INTERVAL_SECONDS the approvals in play are
 * listed again. A pending request expires exactly at its deadline; an approved one is carried out inside its pool's
 * window, claimed under the pool's lock ({@link ConsolidationService.runApproved}), and listed again each interval
 * while the window is shut; one a dead run left `executing` is failed, seen under that lock. Replicas need no leader:
 * every step is a conditional update. Thin: the decisions are in the service and libs/disruption.
 */
@Injectable()
export class ConsolidationApprovalsController {
  readonly approvals: ApprovalsController;

  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG) config: KarpenterGatewayConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(CONSOLIDATION_APPROVALS) store: ApprovalStore,
    @Inject(ConsolidationService) svc: ConsolidationService,
  ) {
    this.approvals = controllers.approvals({
      store,
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      actor: SYSTEM_ACTOR,
      executor: {
        under: (a, fn) => svc.withPoolLock(a.subject, fn),
        execute: async (a, meta) => {
          await svc.runApproved(a.id, a.subject, a.nodes.map((n) => n.node), meta);
        },
      },
    });
  }
}
