import { randomUUID } from 'node:crypto';
import type { ServiceName } from '@nodes-manager/contracts';
import { nextApprovalStep } from '@nodes-manager/disruption';
import type { Clock } from '../clock/clock.js';
import type { Metrics } from '../health/metrics.js';
import type { JsonLogger } from '../logging/logger.js';
import { Controller, type LeaderGate, type ReconcileResult } from '../runtime/controller.js';
import type { ApprovalStore } from './approval-store.js';
import type { ApprovalExecutor } from './approval-wiring.js';

export interface ApprovalsControllerOptions {
  readonly service: ServiceName;
  readonly store: ApprovalStore;
  readonly clock: Clock;
  /** Every this often the approvals in play are listed again: requests and decisions another replica committed, windows that opened. */
  readonly resyncMs: number;
  /** Who acts when an approval has no approver of its own to act as (an expiry; the interrupted-run check). */
  readonly actor: string;
  /**
   * How this owner carries out an approved request, under which lock. Absent: the controller only expires pending
   * requests, and the owner carries out approved ones elsewhere (scheduler-scoring, in its optimisation cycle).
   */
  readonly executor?: ApprovalExecutor;
  /** Absent: every replica runs it (each step is a conditional update, so replicas never do one twice). */
  readonly leader?: LeaderGate;
  readonly metrics?: Metrics;
  readonly logger?: JsonLogger;
}

/**
 * ApprovalsController — one owner's approvals of one kind as a controller (docs/approvals.md#the-approvals-controller):
 * one key per approval id, each reconcile one step from its row ({@link nextApprovalStep}):
 *
 * - pending: requeued for the exact instant of its deadline, and expired then (`approval.expired`) — not a
 *   millisecond before, and not a scan interval late;
 * - approved (with an executor): handed to the owner's `execute` as its approver — which waits for the window,
 *   claims it under its lock, re-checks and acts; one that waits is listed again within `resyncMs`;
 * - executing (with an executor): failed as `interrupted` when, under the lock every run holds, it is still executing.
 *
 * Keys come from the store (a request or a decision this process committed), and from listing the approvals in play on
 * start (becoming leader) and every `resyncMs` (another replica's requests and decisions).
 */
export class ApprovalsController {
  readonly controller: Controller;

  constructor(private readonly o: ApprovalsControllerOptions) {
    const statuses = o.executor ? (['pending', 'approved', 'executing'] as const) : (['pending'] as const);
    this.controller = new Controller({
      name: `${o.store.kind}-approvals`,
      service: o.service,
      clock: o.clock,
      ...(o.leader ? { leader: o.leader } : {}),
      ...(o.metrics ? { metrics: o.metrics } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
      listKeys: () => o.store.idsIn(statuses),
      resyncMs: o.resyncMs,
      // A failing database is asked again soon, never less often than the listing would.
      backoff: { maxMs: o.resyncMs },
      concurrency: 4,
      reconcile: (id) => this.reconcile(id),
    });
    o.store.onChange((id) => this.controller.enqueue(id));
  }

  start(): void {
    this.controller.start();
  }

  stop(): Promise<void> {
    return this.controller.stop();
  }

  private async reconcile(id: string): Promise<ReconcileResult | void> {
    const { store, executor, clock, actor } = this.o;
    const a = await store.find(id);
    if (!a) return;
    const next = nextApprovalStep({ status: a.status, expiresAt: new Date(a.expiresAt) }, clock.now(), executor !== undefined);
    switch (next.step) {
      case 'wait':
        return { requeueAfterMs: next.requeueAfterMs };
      case 'expire':
        await store.expire(id);
        return;
      case 'execute':
        await executor!.execute(a, { actor: a.decidedBy ?? actor, correlationId: a.correlationId ?? randomUUID() });
        return;
      case 'fail_interrupted': {
        const fail = async () => {
          if ((await store.get(id)).status === 'executing') await store.failInterrupted({ actor, correlationId: a.correlationId ?? randomUUID() }, [id]);
        };
        await (executor!.under ? executor!.under(a, fail) : fail());
        return;
      }
      case 'none':
        return;
    }
  }
}
