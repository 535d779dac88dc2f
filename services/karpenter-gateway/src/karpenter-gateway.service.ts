import { Inject, Injectable } from '@nestjs/common';
import { Commands, EventTypes, type AppliedNotRecordedDetails, type CommandMeta, type EventType, type OptimizePlan } from '@nodes-manager/contracts';
import { approvalModeFor, windowState, type ApprovalPolicy, type MaintenanceWindow } from '@nodes-manager/disruption';
import { CLOCK, CodedError, PAUSE_GATE, type PauseGate, COMMAND_BUS, LOGGER, type ApprovalStore, type Clock, type CommandBus, type JsonLogger, validationFailed } from '@nodes-manager/platform';
import { KARPENTER_KUBE, KubeFailure, type KarpenterKube } from './adapters/outbound/karpenter-kube.adapter.js';
import { NodePoolChangesRepository, type NodePoolChange } from './adapters/outbound/nodepool-changes.repository.js';
import { isObject } from './domain/merge-patch.js';
import { detailNodePool, summarizeNodePool, viewNodeClaim, type NodeClaimView, type NodePoolDetail, type NodePoolSummary } from './domain/nodepool-view.js';
import { KARPENTER_API_VERSION, type NodePool } from './domain/nodepool.types.js';
import { selectNodeClaims, type ClaimSelection, type PlannedRemoval } from './domain/select-nodeclaims.js';
import { applyNodePoolPatch, formatFieldErrors, validateNodePool, validateNodePoolPatch, type FieldError } from './domain/validate-nodepool.js';

export const KARPENTER_SERVICE_OPTIONS = Symbol('KARPENTER_SERVICE_OPTIONS');
export interface KarpenterServiceOptions {
  /** How long to wait for scheduler-scoring's plan; below the gateway's own timeout so its coded error arrives first. */
  planTimeoutMs: number;
}

export const CONSOLIDATION_APPROVALS = Symbol('CONSOLIDATION_APPROVALS');
export const DISRUPTION_GATE = Symbol('DISRUPTION_GATE');
/** DisruptionGateConfig — DISRUPTION_APPROVAL and DISRUPTION_WINDOWS as karpenter-gateway applies them (docs/approvals.md). */
export interface DisruptionGateConfig {
  policy: ApprovalPolicy;
  windows: readonly MaintenanceWindow[];
}

export interface ListResult<T> {
  items: T[];
  karpenterInstalled: boolean;
}

export interface ConsolidationResult {
  nodePool: string;
  dryRun: boolean;
  /** dryRun: the NodeClaims that would be deleted; else those deleted. */
  nodeClaims: { nodeClaim: string; node: string; reason: string }[];
  failed: { nodeClaim: string; node: string; error: string }[];
  skipped: ClaimSelection['skipped'];
  budget: ClaimSelection['budget'];
  planned: number;
  /** With DISRUPTION_APPROVAL=manual: the approval request made instead of deleting (docs/approvals.md). */
  approval?: { id: string; status: string; expiresAt: string };
}

const MAX_PATCH_ATTEMPTS = 3;

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

const validationError = (errors: readonly FieldError[]) => validationFailed(errors.map((e) => ({ in: 'body', field: e.field || '""', message: e.message })));

/**
 * KarpenterGatewayService — NodePools and NodeClaims through the dynamic client. Karpenter's absence is the
 * common case: lists answer empty, reads KARPENTER_NOT_INSTALLED (404), writes KARPENTER_NOT_INSTALLED_FOR_WRITE
 * (409). Every write is validated before anything is sent, and every mutation outcome — refusals included — is a
 * `nodepool_changes` row; successes also publish their event in the same transaction. See docs/karpenter.md.
 */
@Injectable()
export class KarpenterGatewayService {
  constructor(
    @Inject(KARPENTER_KUBE) private readonly kube: KarpenterKube,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(COMMAND_BUS) private readonly bus: CommandBus,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(KARPENTER_SERVICE_OPTIONS) private readonly opts: KarpenterServiceOptions,
    private readonly changes: NodePoolChangesRepository,
    @Inject(CONSOLIDATION_APPROVALS) private readonly approvals: ApprovalStore,
    @Inject(DISRUPTION_GATE) private readonly gate: DisruptionGateConfig,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
  ) {}

  async list(): Promise<ListResult<NodePoolSummary>> {
    if (!(await this.kube.installed())) return { items: [], karpenterInstalled: false };
    try {
      const pools = await this.kube.listNodePools();
      return { items: pools.map(summarizeNodePool).sort((a, b) => a.name.localeCompare(b.name)), karpenterInstalled: true };
    } catch (err) {
      if (await this.vanished(err)) return { items: [], karpenterInstalled: false };
      throw this.coded(err);
    }
  }

  async get(name: string): Promise<NodePoolDetail> {
    const pool = await this.readPool(name, 'KARPENTER_NOT_INSTALLED');
    const claims = await this.kube.listNodeClaims(name).catch((err) => Promise.reject(this.coded(err)));
    return detailNodePool(pool, claims);
  }

  async nodeclaims(name: string): Promise<ListResult<NodeClaimView>> {
    if (!(await this.kube.installed())) return { items: [], karpenterInstalled: false };
    await this.readPool(name, 'KARPENTER_NOT_INSTALLED');
    try {
      const claims = await this.kube.listNodeClaims(name);
      return { items: claims.map(viewNodeClaim).sort((a, b) => a.name.localeCompare(b.name)), karpenterInstalled: true };
    } catch (err) {
      if (await this.vanished(err)) return { items: [], karpenterInstalled: false };
      throw this.coded(err);
    }
  }

  async create(input: unknown, meta: CommandMeta): Promise<NodePool> {
    const name = isObject(input) && isObject(input.metadata) && typeof input.metadata.name === 'string' ? input.metadata.name : '(unnamed)';
    const base: Omit<NodePoolChange, 'result' | 'after'> = { nodePool: name, action: 'create', meta, dryRun: false, request: input ?? {}, before: null, now: this.clock.now() };
    return this.refusalsRecorded(base, async () => {
      const errors = validateNodePool(input);
      if (errors.length) throw validationError(errors);
      await this.requireInstalledForWrite();
      const body = { ...(input as unknown as NodePool), apiVersion: KARPENTER_API_VERSION, kind: 'NodePool' };
      const created = await this.kube.createNodePool(body).catch((err) => Promise.reject(this.coded(err, name)));
      await this.recordApplied(
        { ...base, now: this.clock.now(), after: created, result: 'applied' },
        { type: EventTypes.nodepoolCreated, data: { nodePool: name, spec: created.spec, resourceVersion: created.metadata.resourceVersion } },
      );
      this.logger.info('nodepool created', { nodePool: name, actor: meta.actor, correlationId: meta.correlationId });
      return created;
    });
  }

  /**
   * update — a JSON merge patch of `spec.limits` / `spec.disruption` only, checked against the schema after the
   * merge, sent as a merge patch guarded by the resourceVersion it was checked against (a concurrent change
   * means re-read, re-check, re-send; at most {@link MAX_PATCH_ATTEMPTS} times).
   */
  async update(name: string, body: unknown, meta: CommandMeta): Promise<NodePool> {
    const base: Omit<NodePoolChange, 'result' | 'after' | 'before'> = { nodePool: name, action: 'update', meta, dryRun: false, request: body ?? {}, now: this.clock.now() };
    let before: NodePool | null = null;
    return this.refusalsRecorded({ ...base, get before() { return before; } }, async () => {
      const { patch, errors } = validateNodePoolPatch(body);
      if (!patch) throw validationError(errors);
      await this.requireInstalledForWrite();
      for (let attempt = 1; ; attempt++) {
        const current = await this.readPool(name, 'KARPENTER_NOT_INSTALLED_FOR_WRITE');
        before = current;
        const merged = applyNodePoolPatch(current, patch);
        if (merged.errors.length) throw validationError(merged.errors);
        try {
          const updated = await this.kube.mergePatchNodePool(name, { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: patch.spec });
          const pick = (p: NodePool) => ({ limits: p.spec.limits ?? null, disruption: p.spec.disruption ?? null });
          await this.recordApplied(
            { ...base, now: this.clock.now(), before: current, after: updated, result: 'applied' },
            { type: EventTypes.nodepoolUpdated, data: { nodePool: name, patch: patch.spec, before: pick(current), after: pick(updated), resourceVersion: updated.metadata.resourceVersion } },
          );
          this.logger.info('nodepool updated', { nodePool: name, actor: meta.actor, correlationId: meta.correlationId, fields: Object.keys(patch.spec) });
          return updated;
        } catch (err) {
          if (err instanceof KubeFailure && err.status === 409 && attempt < MAX_PATCH_ATTEMPTS) {
            this.logger.debug('nodepool changed since read; re-reading', { nodePool: name, attempt });
            continue;
          }
          throw this.coded(err, name);
        }
      }
    });
  }

  async remove(name: string, meta: CommandMeta): Promise<{ nodePool: string; deleted: true }> {
    let before: NodePool | null = null;
    const base = { nodePool: name, action: 'delete' as const, meta, dryRun: false, request: { name }, now: this.clock.now(), get before() { return before; } };
    return this.refusalsRecorded(base, async () => {
      await this.requireInstalledForWrite();
      const current = await this.readPool(name, 'KARPENTER_NOT_INSTALLED_FOR_WRITE');
      before = current;
      await this.kube.deleteNodePool(name, current.metadata.uid).catch((err) => Promise.reject(this.coded(err, name)));
      await this.recordApplied(
        { ...base, before: current, now: this.clock.now(), after: null, result: 'applied' },
        { type: EventTypes.nodepoolDeleted, data: { nodePool: name, uid: current.metadata.uid ?? null } },
      );
      this.logger.info('nodepool deleted', { nodePool: name, actor: meta.actor, correlationId: meta.correlationId });
      return { nodePool: name, deleted: true as const };
    });
  }

  /**
   * consolidate — Karpenter has no "consolidate now": its manual disruption is deleting a NodeClaim. Asks
   * scheduler-scoring for the plan restricted to the pool, maps planned nodes to the pool's NodeClaims, keeps
   * within the pool's disruption budgets in force now and away from `karpenter.sh/do-not-disrupt`
   * (domain/select-nodeclaims.ts), and deletes those NodeClaims — or, with dryRun, says which it would delete.
   */
  async consolidate(name: string, dryRun: boolean, meta: CommandMeta): Promise<ConsolidationResult> {
    const base = { nodePool: name, action: 'consolidate' as const, meta, dryRun, request: { name, dryRun }, before: null, now: this.clock.now() };
    return this.refusalsRecorded(base, async () => {
      if (dryRun) return this.consolidateLocked(name, dryRun, meta, base);
      if (approvalModeFor(this.gate.policy, 'consolidate') === 'manual') return this.requestApproval(name, meta, base);
      await this.requireNotPaused();
      this.requireWindow(name);
      return this.changes.withPoolLock(name, () => this.consolidateLocked(name, dryRun, meta, base));
    });
  }

  /** requireNotPaused — nothing disruptive starts while the fleet is paused or the pause is unknown (docs/pause.md). */
  private async requireNotPaused(): Promise<void> {
    const p = await this.pause.checkReady('consolidate');
    if (!p.go) throw new CodedError('CONFLICT', p.detail, { reason: p.reason });
  }

  /** requireWindow — nothing disruptive starts outside the pool's maintenance window: a CONFLICT saying when it opens. */
  private requireWindow(name: string): void {
    const w = windowState(this.gate.windows, name, this.clock.now());
    if (w.open) return;
    throw new CodedError('CONFLICT', `NodePool ${name} is outside its maintenance window${w.window ? ` "${w.window}"` : ''}${w.opensAt ? `; it opens at ${w.opensAt.toISOString()}` : ''}`, {
      reason: 'outside_window',
      ...(w.opensAt ? { opensAt: w.opensAt.toISOString() } : {}),
    });
  }

  /**
   * requestApproval — DISRUPTION_APPROVAL=manual: what the consolidation would delete now (a dry run's selection)
   * becomes an approval request by the caller; nothing is deleted. One open request per pool at a time.
   */
  private async requestApproval(name: string, meta: CommandMeta, base: Omit<NodePoolChange, 'result' | 'after'>): Promise<ConsolidationResult> {
    const open = await this.approvals.open(name);
    if (open) throw new CodedError('CONFLICT', `NodePool ${name} already has an open consolidation approval ${open.id} (${open.status})`, { approvalId: open.id, status: open.status });
    const preview = await this.select(name, meta);
    const selected = preview.selection.selected;
    if (selected.length === 0) {
      const result: ConsolidationResult = { nodePool: name, dryRun: false, nodeClaims: [], failed: [], skipped: preview.selection.skipped, budget: preview.selection.budget, planned: preview.planned.length };
      await this.recordApplied({ ...base, now: this.clock.now(), after: result, result: 'applied' });
      return result;
    }
    const approval = await this.approvals.request(
      {
        subject: name,
        reason: `Consolidation of NodePool ${name}: delete ${selected.length} NodeClaim${selected.length === 1 ? '' : 's'} (${selected.map((s) => `${s.nodeClaim} on ${s.node}, ${s.reason}`).join('; ')}) within its disruption budgets.`,
        planId: null,
        nodes: selected.map((s) => ({ node: s.node, nodePool: name, reason: s.reason, nodeClaim: s.nodeClaim })),
        extra: { budget: preview.selection.budget, skipped: preview.selection.skipped },
      },
      meta,
    );
    const result: ConsolidationResult = {
      nodePool: name,
      dryRun: false,
      nodeClaims: [],
      failed: [],
      skipped: preview.selection.skipped,
      budget: preview.selection.budget,
      planned: preview.planned.length,
      approval: { id: approval.id, status: approval.status, expiresAt: approval.expiresAt },
    };
    await this.recordApplied({ ...base, now: this.clock.now(), after: result, result: 'awaiting-approval' });
    return result;
  }

  /**
   * runApproved — carries out one approved request: under the pool's lock, claimed there (a conditional update: one
   * replica only, and an `executing` row seen under the lock is one whose run died), inside the pool's window, with
   * the selection made afresh (the plan, the budgets, do-not-disrupt, read now) and limited to the approved nodes.
   * Approved nodes the fresh selection no longer takes are skipped with its reason (`no_longer_planned` when the plan
   * dropped them). Undefined when it is not claimed (another replica has it) or waits for the window.
   */
  async runApproved(approvalId: string, pool: string, approvedNodes: readonly string[], meta: CommandMeta) {
    if (!windowState(this.gate.windows, pool, this.clock.now()).open) return undefined;
    // Paused (or the pause unknown): the approved request waits, unclaimed; the owner asked afresh (docs/pause.md).
    if (!(await this.pause.checkNow('consolidate')).go) return undefined;
    return this.changes.withPoolLock(pool, async () => {
      if (!(await this.approvals.claim(approvalId))) return undefined;
      const base = { nodePool: pool, action: 'consolidate' as const, meta, dryRun: false, request: { name: pool, approvalId }, before: null, now: this.clock.now() };
      let result: ConsolidationResult | undefined;
      let error: string | undefined;
      try {
        result = await this.consolidateLocked(pool, false, meta, base, new Set(approvedNodes));
      } catch (err) {
        error = `${(err as { code?: string }).code ?? 'ERROR'}: ${(err as Error).message}`;
      }
      const results = approvedNodes.map((node) => {
        if (error) return { node, outcome: 'failed' as const, reason: 'execution_failed', detail: error };
        const done = result!.nodeClaims.find((c) => c.node === node);
        if (done) return { node, outcome: 'started' as const, reason: 'planned_removal', detail: `NodeClaim ${done.nodeClaim} deleted`, nodeClaim: done.nodeClaim };
        const failed = result!.failed.find((c) => c.node === node);
        if (failed) return { node, outcome: 'failed' as const, reason: 'delete_failed', detail: failed.error, nodeClaim: failed.nodeClaim };
        const skipped = result!.skipped.find((c) => c.node === node);
        if (skipped) return { node, outcome: 'skipped' as const, reason: skipped.reason, detail: `re-checked at execution: ${skipped.reason}`, ...(skipped.nodeClaim ? { nodeClaim: skipped.nodeClaim } : {}) };
        return { node, outcome: 'skipped' as const, reason: 'no_longer_planned', detail: `scheduler-scoring's plan for ${pool} no longer removes ${node}` };
      });
      return this.approvals.finish(approvalId, results, meta);
    });
  }

  /** withPoolLock — runs `fn` holding the pool's consolidation lock (for the approvals loop). */
  withPoolLock<T>(pool: string, fn: () => Promise<T>): Promise<T> {
    return this.changes.withPoolLock(pool, fn);
  }

  /** select — the plan for the pool, its NodeClaims and the selection within the budgets in force now. */
  private async select(name: string, meta: CommandMeta, only?: ReadonlySet<string>) {
    await this.requireInstalledForWrite();
    const pool = await this.readPool(name, 'KARPENTER_NOT_INSTALLED_FOR_WRITE');
    const fromPlan = plannedRemovals(await this.bus.send('scheduler-scoring', Commands.optimizePlan, { nodePool: name }, meta, { timeoutMs: this.opts.planTimeoutMs }));
    const planned = fromPlan.filter((p) => !only || only.has(p.node));
    const claims = await this.kube.listNodeClaims(name).catch((err) => Promise.reject(this.coded(err, name)));
    const claimNodes = new Set(claims.flatMap((c) => (c.status?.nodeName ? [c.status.nodeName] : [])));
    const nodeAnnotations = new Map<string, Record<string, string>>();
    await Promise.all(
      [...new Set(planned.map((p) => p.node))].filter((n) => claimNodes.has(n)).map(async (n) => {
        const a = await this.kube.nodeAnnotations(n).catch((err) => Promise.reject(this.coded(err)));
        if (a) nodeAnnotations.set(n, a);
      }),
    );
    const selection = selectNodeClaims({
      budgets: pool.spec.disruption?.budgets,
      claims: claims.map((c) => ({ name: c.metadata.name, ...(c.status?.nodeName ? { nodeName: c.status.nodeName } : {}), deleting: !!c.metadata.deletionTimestamp, annotations: c.metadata.annotations ?? {} })),
      planned,
      nodeAnnotations,
      now: this.clock.now(),
    });
    return { planned, claims, selection };
  }

  /** consolidateLocked — the consolidation itself; a real one runs holding the pool's lock (see withPoolLock). */
  private async consolidateLocked(
    name: string,
    dryRun: boolean,
    meta: CommandMeta,
    base: Omit<NodePoolChange, 'result' | 'after'>,
    only?: ReadonlySet<string>,
  ): Promise<ConsolidationResult> {
    {
      const { planned, claims, selection } = await this.select(name, meta, only);
      const uidOf = new Map(claims.map((c) => [c.metadata.name, c.metadata.uid]));
      const done: ConsolidationResult['nodeClaims'] = [];
      const skipped = [...selection.skipped];
      const failed: ConsolidationResult['failed'] = [];
      if (dryRun) done.push(...selection.selected);
      else {
        for (const s of selection.selected) {
          // Right before each deletion: a pause since the start skips the rest (docs/pause.md).
          const pause = this.pause.check('consolidate');
          if (!pause.go) {
            skipped.push({ node: s.node, nodeClaim: s.nodeClaim, reason: 'paused' });
            continue;
          }
          try {
            const blocking = await this.kube.podsBlockingDisruption(s.node);
            if (blocking.length > 0) {
              skipped.push({ node: s.node, nodeClaim: s.nodeClaim, reason: 'pod_do_not_disrupt' });
              this.logger.info('nodeclaim kept: a pod on its node carries karpenter.sh/do-not-disrupt', { nodePool: name, node: s.node, pods: blocking });
              continue;
            }
            await this.kube.deleteNodeClaim(s.nodeClaim, uidOf.get(s.nodeClaim));
            done.push(s);
          } catch (err) {
            failed.push({ nodeClaim: s.nodeClaim, node: s.node, error: (err as Error).message });
          }
        }
      }
      const result: ConsolidationResult = { nodePool: name, dryRun, nodeClaims: done, failed, skipped, budget: selection.budget, planned: planned.length };
      await this.recordApplied(
        { ...base, now: this.clock.now(), after: result, result: dryRun ? 'dry-run' : failed.length ? 'partial' : 'applied' },
        dryRun ? undefined : { type: EventTypes.nodepoolConsolidationRequested, data: result },
      );
      this.logger.info(dryRun ? 'nodepool consolidation (dry run)' : 'nodepool consolidation requested', {
        nodePool: name, actor: meta.actor, correlationId: meta.correlationId, nodeClaims: done.map((d) => d.nodeClaim), skipped: skipped.length,
      });
      return result;
    }
  }

  // ---- helpers ----

  private async requireInstalledForWrite(): Promise<void> {
    if (!(await this.kube.installed())) {
      throw new CodedError('KARPENTER_NOT_INSTALLED_FOR_WRITE', 'Karpenter is not installed in this cluster (no karpenter.sh/v1 NodePool API): nothing to change', { api: KARPENTER_API_VERSION });
    }
  }

  /** readPool — the pool, or NOT_FOUND; or the given not-installed code when Karpenter is (or just went) absent. */
  private async readPool(name: string, absent: 'KARPENTER_NOT_INSTALLED' | 'KARPENTER_NOT_INSTALLED_FOR_WRITE'): Promise<NodePool> {
    const notInstalled = () => new CodedError(absent, 'Karpenter is not installed in this cluster (no karpenter.sh/v1 NodePool API)', { api: KARPENTER_API_VERSION });
    if (!(await this.kube.installed())) throw notInstalled();
    const pool = await this.kube.getNodePool(name).catch((err) => Promise.reject(this.coded(err, name)));
    if (pool) return pool;
    // A 404 is either "no such pool" or "the CRDs went away since discovery": ask discovery afresh.
    if (!(await this.kube.installed({ fresh: true }))) throw notInstalled();
    throw new CodedError('NOT_FOUND', `nodepool ${name} not found`, { nodePool: name });
  }

  /** vanished — a 404 on a collection means the CRDs went away since discovery was cached. */
  private async vanished(err: unknown): Promise<boolean> {
    return err instanceof KubeFailure && err.status === 404 && !(await this.kube.installed({ fresh: true }));
  }

  private coded(err: unknown, name?: string): CodedError {
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

  /** refusalsRecorded — runs a mutation; a refusal is recorded as `refused:<CODE>` (no event) and rethrown. */
  /**
   * recordApplied — records a change already made in the cluster (the repository retries). If it still cannot be
   * recorded, the caller is told the change was applied but not recorded — never that it was refused.
   */
  private async recordApplied(change: NodePoolChange, event?: { type: EventType; data: unknown }): Promise<void> {
    try {
      await this.changes.record(change, event);
    } catch (err) {
      this.logger.error('a NodePool change was applied but could not be recorded', { nodePool: change.nodePool, action: change.action, err: (err as Error).message });
      throw new AppliedNotRecorded(change, err);
    }
  }

  private async refusalsRecorded<T>(base: Omit<NodePoolChange, 'result' | 'after'>, fn: () => Promise<T>): Promise<T> {
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

/** plannedRemovals — the nodes scheduler-scoring's `optimize.plan` reply removes, with why. */
export const plannedRemovals = (plan: OptimizePlan): PlannedRemoval[] => plan.remove.map((r) => ({ node: r.node, reason: r.reason }));
