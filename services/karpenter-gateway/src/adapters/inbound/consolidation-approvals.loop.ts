import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { LOGGER, type ApprovalStore, type JsonLogger } from '@nodes-manager/platform';
import { CONSOLIDATION_APPROVALS, KarpenterGatewayService } from '../../karpenter-gateway.service.js';

export const KARPENTER_GATEWAY_CONFIG_FOR_LOOP = Symbol('KARPENTER_GATEWAY_CONFIG_FOR_LOOP');
const SYSTEM_ACTOR = 'system:karpenter-gateway';

/**
 * ConsolidationApprovalsLoop — every SCAN_INTERVAL_SECONDS, on every replica: expires pending consolidation approvals
 * past their deadline, fails those a dead run left `executing`, and carries out approved ones inside their pool's
 * window. Replicas need no leader: every step is a conditional update, and execution claims under the pool's lock
 * (see `KarpenterGatewayService.runApproved`). Thin: the decisions are in the service and libs/disruption.
 */
@Injectable()
export class ConsolidationApprovalsLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private tick?: NodeJS.Timeout;
  private current?: Promise<void>;
  private stopped = false;

  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG_FOR_LOOP) private readonly cfg: { scanIntervalMs: number },
    @Inject(CONSOLIDATION_APPROVALS) private readonly approvals: ApprovalStore,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    private readonly svc: KarpenterGatewayService,
  ) {}

  onApplicationBootstrap(): void {
    this.tick = setInterval(() => void this.pass(), this.cfg.scanIntervalMs);
    this.tick.unref();
  }

  /** pass — one run of the loop; a tick while one is running is skipped; failures are logged, never thrown. */
  async pass(): Promise<void> {
    if (this.stopped || this.current) return;
    this.current = (async () => {
      const meta = { actor: SYSTEM_ACTOR, correlationId: randomUUID() };
      try {
        await this.approvals.expireDue();
        for (const a of await this.approvals.inStatus('executing')) {
          // Claims happen under the pool lock: holding it, an `executing` row is one whose run died.
          await this.svc.withPoolLock(a.subject, async () => {
            if ((await this.approvals.get(a.id)).status === 'executing') await this.approvals.failInterrupted(meta, [a.id]);
          });
        }
        for (const a of await this.approvals.approved()) {
          await this.svc.runApproved(a.id, a.subject, a.nodes.map((n) => n.node), { actor: a.decidedBy ?? SYSTEM_ACTOR, correlationId: a.correlationId ?? meta.correlationId });
        }
      } catch (err) {
        this.logger.warn('consolidation approvals pass failed', { err: (err as Error).message });
      }
    })();
    try {
      await this.current;
    } finally {
      this.current = undefined;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.tick) clearInterval(this.tick);
    await this.current;
  }
}
