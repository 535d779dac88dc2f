import { Inject, Injectable } from '@nestjs/common';
import { EventTypes, type CommandMeta } from '@nodes-manager/contracts';
import type { ApprovalInPlay, GateFacts } from '@nodes-manager/disruption';
import { CLOCK, CodedError, PAUSE_GATE, type PauseGate, LOGGER, type ApprovalStore, type Clock, type JsonLogger } from '@nodes-manager/platform';
import { KARPENTER_KUBE, type KarpenterKube } from './adapters/outbound/karpenter-kube.adapter.js';
import { NodePoolChangesRepository, type NodePoolChange } from './adapters/outbound/nodepool-changes.repository.js';
import type { ClaimSelection } from './domain/select-nodeclaims.js';
import { ConsolidationPlanningService } from './consolidation-planning.service.js';
import { NodePoolAccess } from './nodepool-access.js';
import { CONSOLIDATION_APPROVALS, DISRUPTION_GATE, type DisruptionGateConfig } from './tokens.js';

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

/**
 * ConsolidationService — the consolidation of a NodePool carried out. Karpenter has no "consolidate now": its manual
 * disruption is deleting a NodeClaim. The pause, the approval mode and the pool's maintenance window decide whether it
 * runs now; then, under the pool's lock, the selection of {@link ConsolidationPlanningService} is deleted one
 * NodeClaim at a time, the pause and the node's pods checked right before each. Approved requests run here too.
 */
@Injectable()
export class ConsolidationService {
  constructor(
    @Inject(KARPENTER_KUBE) private readonly kube: KarpenterKube,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    private readonly changes: NodePoolChangesRepository,
    @Inject(CONSOLIDATION_APPROVALS) private readonly approvals: ApprovalStore,
    @Inject(DISRUPTION_GATE) private readonly gate: DisruptionGateConfig,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
    @Inject(ConsolidationPlanningService) private readonly planning: ConsolidationPlanningService,
    @Inject(NodePoolAccess) private readonly access: NodePoolAccess,
  ) {}

  /**
   * consolidate — Karpenter has no "consolidate now": its manual disruption is deleting a NodeClaim. Asks
   * scheduler-scoring for the plan restricted to the pool, maps planned nodes to the pool's NodeClaims, keeps
   * within the pool's disruption budgets in force now and away from `karpenter.sh/do-not-disrupt`
   * (domain/select-nodeclaims.ts), and deletes those NodeClaims — or, with dryRun, says which it would delete.
   */
  async consolidate(name: string, dryRun: boolean, meta: CommandMeta): Promise<ConsolidationResult> {
    const base = { nodePool: name, action: 'consolidate' as const, meta, dryRun, request: { name, dryRun }, before: null, now: this.clock.now() };
    return this.access.refusalsRecorded(base, async () => {
      if (dryRun) return this.consolidateLocked(name, dryRun, meta, base);
      // The disruption gate, in its one order (docs/approvals.md#one-gate): paused (or the pause unknown), a request
      // in play, or outside the pool's window is a CONFLICT saying why; under `manual` a request is made instead.
      const open = await this.approvals.open(name);
      const admitted = await this.pause.admit('consolidate', this.gateFacts(name, open ? { kind: 'open', id: open.id, status: open.status } : { kind: 'none' }));
      if (admitted.admit) return this.changes.withPoolLock(name, () => this.consolidateLocked(name, dryRun, meta, base));
      switch (admitted.reason) {
        case 'request_approval':
          return this.requestApproval(name, meta, base);
        case 'approval_open':
          throw new CodedError('CONFLICT', `NodePool ${name} already has an open consolidation approval ${admitted.approvalId} (${admitted.status})`, { approvalId: admitted.approvalId, status: admitted.status });
        case 'outside_window':
          throw new CodedError('CONFLICT', admitted.detail, { reason: 'outside_window', ...(admitted.opensAt ? { opensAt: admitted.opensAt.toISOString() } : {}) });
        default:
          throw new CodedError('CONFLICT', admitted.detail, { reason: admitted.reason });
      }
    });
  }

  /** gateFacts — what the disruption gate needs of a consolidation of `pool`, but the pause. */
  private gateFacts(pool: string, approval: ApprovalInPlay, running = false): GateFacts {
    return { policy: this.gate.policy, windows: this.gate.windows, nodePool: pool, now: this.clock.now(), approval, ...(running ? { running } : {}) };
  }

  /**
   * requestApproval — DISRUPTION_APPROVAL=manual: what the consolidation would delete now (a dry run's selection)
   * becomes an approval request by the caller; nothing is deleted. One open request per pool at a time.
   */
  private async requestApproval(name: string, meta: CommandMeta, base: Omit<NodePoolChange, 'result' | 'after'>): Promise<ConsolidationResult> {
    const preview = await this.planning.select(name, meta);
    const selected = preview.selection.selected;
    if (selected.length === 0) {
      const result: ConsolidationResult = { nodePool: name, dryRun: false, nodeClaims: [], failed: [], skipped: preview.selection.skipped, budget: preview.selection.budget, planned: preview.planned.length };
      await this.access.recordApplied({ ...base, now: this.clock.now(), after: result, result: 'applied' });
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
    await this.access.recordApplied({ ...base, now: this.clock.now(), after: result, result: 'awaiting_approval' });
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
    // Paused (or the pause unknown; the owner asked afresh) or outside the pool's window: it waits, unclaimed.
    if (!(await this.pause.admit('consolidate', this.gateFacts(pool, { kind: 'approved', id: approvalId }), { fresh: true })).admit) return undefined;
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

  /** consolidateLocked — the consolidation itself; a real one runs holding the pool's lock (see withPoolLock). */
  private async consolidateLocked(
    name: string,
    dryRun: boolean,
    meta: CommandMeta,
    base: Omit<NodePoolChange, 'result' | 'after'>,
    only?: ReadonlySet<string>,
  ): Promise<ConsolidationResult> {
    {
      const { planned, claims, selection } = await this.planning.select(name, meta, only);
      const uidOf = new Map(claims.map((c) => [c.metadata.name, c.metadata.uid]));
      const done: ConsolidationResult['nodeClaims'] = [];
      const skipped = [...selection.skipped];
      const failed: ConsolidationResult['failed'] = [];
      if (dryRun) done.push(...selection.selected);
      else {
        for (const s of selection.selected) {
          // Right before each deletion: a pause since the start skips the rest (docs/pause.md).
          if (!(await this.pause.admit('consolidate', this.gateFacts(name, { kind: 'none' }, true))).admit) {
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
      await this.access.recordApplied(
        { ...base, now: this.clock.now(), after: result, result: dryRun ? 'dry_run' : failed.length ? 'partial' : 'applied' },
        dryRun ? undefined : { type: EventTypes.nodepoolConsolidationRequested, data: result },
      );
      this.logger.info(dryRun ? 'nodepool consolidation (dry run)' : 'nodepool consolidation requested', {
        nodePool: name, actor: meta.actor, correlationId: meta.correlationId, nodeClaims: done.map((d) => d.nodeClaim), skipped: skipped.length,
      });
      return result;
    }
  }
}
