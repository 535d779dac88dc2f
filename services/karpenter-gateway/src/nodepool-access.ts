import { Inject, Injectable } from '@nestjs/common';
import type { AppliedNotRecordedDetails, EventType } from '@nodes-manager/contracts';
import { CLOCK, CodedError, LOGGER, type Clock, type JsonLogger, validationFailed } from '@nodes-manager/platform';
import { KARPENTER_KUBE, KubeFailure, type KarpenterKube } from './adapters/outbound/karpenter-kube.adapter.js';
import { NodePoolChangesRepository, type NodePoolChange } from './adapters/outbound/nodepool-changes.repository.js';
import { KARPENTER_API_VERSION, type NodePool } from './domain/nodepool.types.js';

/** AppliedNotRecorded — the cluster has the change; only its record failed (not a refusal). */
class AppliedNotRecorded extends Error {
  constructor(
    readonly change: NodePoolChange,
    override readonly cause: unknown,
  ) {
    super('applied but not recorded');
  }
}

/**
 * appliedNotRecorded — the answer to a change made in the cluster whose record failed: APPLIED_NOT_RECORDED with the
 * change that is in effect (docs/karpenter.md#applied-but-not-recorded). A dry run changed nothing: its failed record
 * is answered as the failure it is (the database unavailable).
 */
function appliedNotRecorded({ change, cause }: AppliedNotRecorded): CodedError {
  const why = CodedError.from(cause);
  if (change.dryRun) return why;
  const recordError = why.code === 'INTERNAL' ? 'the record could not be written' : why.message;
  const details: AppliedNotRecordedDetails = {
    applied: true,
    recorded: false,
    change: { resource: 'nodepool', name: change.nodePool, action: change.action, result: change.result, actor: change.meta.actor, correlationId: change.meta.correlationId, after: change.after ?? null },
    recordError,
  };
  return new CodedError(
    'APPLIED_NOT_RECORDED',
    `the ${change.action} of NodePool ${change.nodePool} was applied, but recording it failed (${recordError}): it is in effect; its history row and event are missing`,
    details,
    { cause },
  );
}

/**
 * NodePoolAccess — what every NodePool answer and change shares: Karpenter's presence (reads KARPENTER_NOT_INSTALLED,
 * writes KARPENTER_NOT_INSTALLED_FOR_WRITE), the API server's failures as coded errors, and every mutation outcome —
 * refusals included — recorded as a `nodepool_changes` row, successes with their event in the same transaction.
 */
@Injectable()
export class NodePoolAccess {
  constructor(
    @Inject(KARPENTER_KUBE) private readonly kube: KarpenterKube,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    private readonly changes: NodePoolChangesRepository,
  ) {}

  async requireInstalledForWrite(): Promise<void> {
    if (!(await this.kube.installed())) {
      throw new CodedError('KARPENTER_NOT_INSTALLED_FOR_WRITE', 'Karpenter is not installed in this cluster (no karpenter.sh/v1 NodePool API): nothing to change', { api: KARPENTER_API_VERSION });
    }
  }

  /** readPool — the pool, or NOT_FOUND; or the given not-installed code when Karpenter is (or just went) absent. */
  async readPool(name: string, absent: 'KARPENTER_NOT_INSTALLED' | 'KARPENTER_NOT_INSTALLED_FOR_WRITE'): Promise<NodePool> {
    const notInstalled = () => new CodedError(absent, 'Karpenter is not installed in this cluster (no karpenter.sh/v1 NodePool API)', { api: KARPENTER_API_VERSION });
    if (!(await this.kube.installed())) throw notInstalled();
    const pool = await this.kube.getNodePool(name).catch((err) => Promise.reject(this.coded(err, name)));
    if (pool) return pool;
    // A 404 is either "no such pool" or "the CRDs went away since discovery": ask discovery afresh.
    if (!(await this.kube.installed({ fresh: true }))) throw notInstalled();
    throw new CodedError('NOT_FOUND', `nodepool ${name} not found`, { nodePool: name });
  }

  /** vanished — a 404 on a collection means the CRDs went away since discovery was cached. */
  async vanished(err: unknown): Promise<boolean> {
    return err instanceof KubeFailure && err.status === 404 && !(await this.kube.installed({ fresh: true }));
  }

  coded(err: unknown, name?: string): CodedError {
    if (err instanceof CodedError) return err;
    if (err instanceof KubeFailure) {
      if (err.status === 409) {
        const msg = err.reason === 'AlreadyExists' ? `nodepool ${name} already exists` : err.message;
        return new CodedError('CONFLICT', msg, { reason: err.reason ?? 'Conflict' });
      }
      if (err.status === 404) return new CodedError('NOT_FOUND', err.message);
      if (err.status === 400 || err.status === 422) return validationFailed([{ in: 'body', field: 'body', message: `the API server refused it: ${err.message}` }]);
      return new CodedError('UPSTREAM_ERROR', err.message, { status: err.status ?? null, reason: err.reason ?? null });
    }
    return CodedError.from(err);
  }

  /**
   * recordApplied — records a change already made in the cluster (the repository retries). If it still cannot be
   * recorded, the caller is told the change was applied but not recorded — never that it was refused.
   */
  async recordApplied(change: NodePoolChange, event?: { type: EventType; data: unknown }): Promise<void> {
    try {
      await this.changes.record(change, event);
    } catch (err) {
      this.logger.error('a NodePool change was applied but could not be recorded', { nodePool: change.nodePool, action: change.action, err: (err as Error).message });
      throw new AppliedNotRecorded(change, err);
    }
  }

  /** refusalsRecorded — runs a mutation; a refusal is recorded as `refused:<CODE>` (no event) and rethrown. */
  async refusalsRecorded<T>(base: Omit<NodePoolChange, 'result' | 'after'>, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AppliedNotRecorded) throw appliedNotRecorded(err);
      const coded = this.coded(err);
      await this.changes
        .record({ ...base, before: base.before, now: this.clock.now(), after: coded.toBody(), result: `refused:${coded.code}` })
        .catch((e) => this.logger.error('could not record a refused nodepool change', { nodePool: base.nodePool, err: (e as Error).message }));
      throw coded;
    }
  }
}
