import { randomUUID } from 'node:crypto';
import type { FactoryProvider, OnApplicationBootstrap, OnApplicationShutdown, Type } from '@nestjs/common';
import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { DataSource } from 'typeorm';
import {
  approvalKindOf,
  approvalPattern,
  type ApprovalDecisionRequest,
  type ApprovalKind,
  type ApprovalsListQuery,
  type ApprovalView,
  type CommandMeta,
  type CommandRequest,
  type ServiceName,
} from '@nodes-manager/contracts';
import { CLOCK, type Clock } from '../clock/clock.js';
import { CodedError } from '../errors/coded-error.js';
import type { Metrics } from '../health/metrics.js';
import type { JsonLogger } from '../logging/logger.js';
import { CommandController, CommandHandler } from '../messaging/commands.js';
import type { Outbox } from '../messaging/outbox.js';
import { DATA_SOURCE, OUTBOX } from '../platform.module.js';
import { LOGGER, METRICS } from '../runtime/tokens.js';
import { ApprovalStore } from './approval-store.js';

/**
 * The approvals wiring every owning service shares (docs/approvals.md): the store's provider, the four approval
 * commands a service answers for its own kinds, and the pass that expires, fails the interrupted and carries out the
 * approved. What stays in a service is only what is its own: how it executes one approved request, under which lock.
 */

/** What the approval settings of a service's configuration hold (libs/platform `disruptionShape`). */
export interface ApprovalSettings {
  readonly APPROVAL_DISTINCT_APPROVER: boolean;
  readonly APPROVAL_TTL_MINUTES: number;
}

/** approvalStoreProvider — the ApprovalStore of one kind in the service's own table, on the service's database and outbox. */
export function approvalStoreProvider(provide: symbol, o: { service: ServiceName; kind: ApprovalKind; table: string; config: ApprovalSettings }): FactoryProvider<ApprovalStore> {
  return {
    provide,
    inject: [DATA_SOURCE, OUTBOX, CLOCK, LOGGER, METRICS],
    useFactory: (ds: DataSource, outbox: Outbox, clock: Clock, logger: JsonLogger, metrics: Metrics) =>
      new ApprovalStore({
        ds,
        outbox,
        clock,
        logger,
        metrics,
        service: o.service,
        kind: o.kind,
        table: o.table,
        rules: { distinctApprover: o.config.APPROVAL_DISTINCT_APPROVER },
        ttlMinutes: o.config.APPROVAL_TTL_MINUTES,
      }),
  };
}

const byKeyDesc = (a: ApprovalView, b: ApprovalView) =>
  a.requestedAt !== b.requestedAt ? (a.requestedAt < b.requestedAt ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

/**
 * ServiceApprovals — the approvals of one service, over one store per kind it owns: a list merges their pages after
 * the same keyset (newest first by requestedAt, then id byte-wise, as the gateway merges services); an id goes to
 * the store of its kind.
 */
export class ServiceApprovals {
  private readonly byKind: Map<ApprovalKind, ApprovalStore>;
  constructor(stores: readonly ApprovalStore[]) {
    this.byKind = new Map(stores.map((s) => [s.kind, s]));
  }

  private storeOf(id: string): ApprovalStore {
    const kind = approvalKindOf(id);
    const store = kind && this.byKind.get(kind);
    if (!store) throw new CodedError('NOT_FOUND', `approval ${id} not found`, { id });
    return store;
  }

  async list(q: ApprovalsListQuery): Promise<{ items: ApprovalView[]; more: boolean }> {
    const stores = q.kind ? [this.byKind.get(q.kind)].filter((s): s is ApprovalStore => s !== undefined) : [...this.byKind.values()];
    const pages = await Promise.all(stores.map((s) => s.list(q)));
    const merged = pages.flatMap((p) => p.items).sort(byKeyDesc);
    return { items: merged.slice(0, q.limit), more: merged.length > q.limit || pages.some((p) => p.more) };
  }

  get(id: string): Promise<ApprovalView> {
    return this.storeOf(id).get(id);
  }

  decide(id: string, action: 'approve' | 'reject', meta: CommandMeta, comment?: string): Promise<ApprovalView> {
    return this.storeOf(id).decide(id, action, meta, comment);
  }
}

/** serviceApprovalsProvider — one ServiceApprovals over the stores (by their tokens) of the service. */
export function serviceApprovalsProvider(provide: symbol, stores: readonly symbol[]): FactoryProvider<ServiceApprovals> {
  return { provide, inject: [...stores], useFactory: (...s: ApprovalStore[]) => new ServiceApprovals(s) };
}

/**
 * approvalCommands — the command handlers `approvals.<list|get|approve|reject>.<service>` (libs/contracts
 * `approvalPattern`) over the service's ServiceApprovals, for the module's `controllers`.
 */
export function approvalCommands(service: ServiceName, approvalsToken: symbol): Type<unknown> {
  @CommandController()
  class ApprovalCommands {
    constructor(@Inject(approvalsToken) private readonly approvals: ServiceApprovals) {}

    /** approvals.list.<service> — newest first; the gateway merges the pages of every owner. */
    @CommandHandler(approvalPattern(service, 'list'))
    list(@Payload() req: CommandRequest<ApprovalsListQuery>) {
      return this.approvals.list(req.data);
    }

    @CommandHandler(approvalPattern(service, 'get'))
    get(@Payload() req: CommandRequest<{ id: string }>) {
      return this.approvals.get(req.data.id);
    }

    /** approvals.approve.<service> — `{id, comment?}` as the caller; the owner's next pass carries it out. */
    @CommandHandler(approvalPattern(service, 'approve'))
    approve(@Payload() req: CommandRequest<ApprovalDecisionRequest>) {
      return this.approvals.decide(req.data.id, 'approve', req.meta, req.data.comment);
    }

    /** approvals.reject.<service> — `{id, comment?}` as the caller: nothing is done. */
    @CommandHandler(approvalPattern(service, 'reject'))
    reject(@Payload() req: CommandRequest<ApprovalDecisionRequest>) {
      return this.approvals.decide(req.data.id, 'reject', req.meta, req.data.comment);
    }
  }
  Object.defineProperty(ApprovalCommands, 'name', { value: `${service.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())}ApprovalCommands` });
  return ApprovalCommands;
}

/** ApprovalExecutor — what an owner does with its approvals in a pass: the lock its runs hold, and one execution. */
export interface ApprovalExecutor {
  /**
   * under — runs `fn` holding the lock every execution of this approval holds (a pool's lock, the service's
   * execution lock); absent when the caller holds it already for the whole pass.
   */
  under?<T>(a: ApprovalView, fn: () => Promise<T>): Promise<T>;
  /** execute — one approved request, as its approver: wait for its window, claim, re-check, act, finish. */
  execute(a: ApprovalView, meta: CommandMeta): Promise<void>;
}

/**
 * approvalsPass — one pass over a store: pending requests past their deadline expire; one left `executing` (seen
 * while holding the lock every run holds, so its run died) fails with reason `interrupted`; each approved one goes to
 * the executor as its approver.
 */
export async function approvalsPass(store: ApprovalStore, executor: ApprovalExecutor, meta: CommandMeta): Promise<void> {
  await store.expireDue();
  for (const a of await store.inStatus('executing')) {
    const fail = async () => {
      if ((await store.get(a.id)).status === 'executing') await store.failInterrupted(meta, [a.id]);
    };
    await (executor.under ? executor.under(a, fail) : fail());
  }
  for (const a of await store.approved()) {
    await executor.execute(a, { actor: a.decidedBy ?? meta.actor, correlationId: a.correlationId ?? meta.correlationId });
  }
}

/**
 * ApprovalsLoop — an approvals pass every interval on every replica (no leader needed: every step is a conditional
 * update). A tick while a pass runs is skipped; failures are logged, never thrown. An owner extends it with its
 * store, executor and interval.
 */
export abstract class ApprovalsLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private tick?: NodeJS.Timeout;
  private current?: Promise<void>;
  private stopped = false;

  protected constructor(
    private readonly store: ApprovalStore,
    private readonly executor: ApprovalExecutor,
    private readonly o: { intervalMs: number; actor: string; logger: JsonLogger },
  ) {}

  onApplicationBootstrap(): void {
    this.tick = setInterval(() => void this.pass(), this.o.intervalMs);
    this.tick.unref();
  }

  async pass(): Promise<void> {
    if (this.stopped || this.current) return;
    this.current = approvalsPass(this.store, this.executor, { actor: this.o.actor, correlationId: randomUUID() }).catch((err) =>
      this.o.logger.warn('approvals pass failed', { kind: this.store.kind, err: (err as Error).message }),
    );
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
