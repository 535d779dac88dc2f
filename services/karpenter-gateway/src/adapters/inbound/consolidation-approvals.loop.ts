import { Inject, Injectable } from '@nestjs/common';
import { ApprovalsLoop, LOGGER, type ApprovalStore, type JsonLogger } from '@nodes-manager/platform';
import { CONSOLIDATION_APPROVALS, KarpenterGatewayService } from '../../karpenter-gateway.service.js';

export const KARPENTER_GATEWAY_CONFIG_FOR_LOOP = Symbol('KARPENTER_GATEWAY_CONFIG_FOR_LOOP');
const SYSTEM_ACTOR = 'system:karpenter-gateway';

/**
 * ConsolidationApprovalsLoop — every SCAN_INTERVAL_SECONDS, on every replica, the shared approvals pass (libs/platform
 * `approvalsPass`): expires pending consolidation approvals past their deadline, fails those a dead run left
 * `executing` (seen under the pool's lock), and carries out approved ones inside their pool's window. Replicas need
 * no leader: every step is a conditional update, and execution claims under the pool's lock (see
 * `KarpenterGatewayService.runApproved`). Thin: the decisions are in the service and libs/disruption.
 */
@Injectable()
export class ConsolidationApprovalsLoop extends ApprovalsLoop {
  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG_FOR_LOOP) cfg: { scanIntervalMs: number },
    @Inject(CONSOLIDATION_APPROVALS) approvals: ApprovalStore,
    @Inject(LOGGER) logger: JsonLogger,
    svc: KarpenterGatewayService,
  ) {
    super(
      approvals,
      {
        under: (a, fn) => svc.withPoolLock(a.subject, fn),
        execute: async (a, meta) => {
          await svc.runApproved(a.id, a.subject, a.nodes.map((n) => n.node), meta);
        },
      },
      { intervalMs: cfg.scanIntervalMs, actor: SYSTEM_ACTOR, logger },
    );
  }
}
