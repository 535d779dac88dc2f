import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ApprovalView, CommandMeta, OptimizeReplaceRequest, OptimizeReplaceResult } from '@nodes-manager/contracts';
import { approvalModeFor, type ApprovalInPlay } from '@nodes-manager/disruption';
import { CLOCK, LOGGER, PAUSE_GATE, type ApprovalStore, type Clock, type JsonLogger, type PauseGate } from '@nodes-manager/platform';
import type { SchedulerScoringConfig } from './config.js';
import { admitNodes } from './domain/gate-disruption.js';
import { outcomeOf, recheckReplacement, type Replacement } from './domain/replace.js';
import type { SchedulingRepository } from './adapters/outbound/scheduling.repository.js';
import { OptimizeCycleService } from './optimize-cycle.service.js';
import { OptimizeExecutionService } from './optimize-execution.service.js';
import { OPTIMIZE_APPROVALS_STORE, SCHEDULER_SCORING_CONFIG, SCHEDULING_REPOSITORY } from './tokens.js';

type Results = OptimizeReplaceResult['results'];
/** The approval subject of a NodePool's replacement: one open request per NodePool, apart from the cluster's plan. */
const subjectOf = (nodePool: string) => `replace:${nodePool}`;

/**
 * OptimizeReplaceService — `optimize.replace` (docs/scoring.md#replacing-nodes): nodes a caller wants moved off (the
 * on-demand nodes a NodePool launched while it fell back from Spot) drained through the optimizer's own execution
 * path, never all at once — the fleet-wide pause (`optimize`), the execution lock and OPTIMIZE_MAX_DISRUPTIONS
 * counted with every drain still in flight, the NodePool's maintenance window, approvals of kind `optimize` in
 * `manual`, and each node re-read and re-checked just before its drain (`recheckReplacement`). What is not drained
 * now is `queued` (the caller asks again on its next pass) or `refused` (it no longer qualifies), each with its reason.
 * Every request that reaches the gate is stored as a plan row (kind `replace`) with its reason, evidence and actor.
 */
@Injectable()
export class OptimizeReplaceService {
  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) private readonly config: SchedulerScoringConfig,
    @Inject(SCHEDULING_REPOSITORY) private readonly repo: SchedulingRepository,
    @Inject(OPTIMIZE_APPROVALS_STORE) private readonly approvals: ApprovalStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    private readonly cycles: OptimizeCycleService,
    private readonly execution: OptimizeExecutionService,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
  ) {}

  async replace(req: OptimizeReplaceRequest, meta: CommandMeta): Promise<OptimizeReplaceResult> {
    const nodes = [...new Set(req.nodes)].sort();
    const requestId = randomUUID();
    const all = (reason: string, detail: string): Results => nodes.map((node) => ({ node, outcome: 'queued' as const, reason, detail }));
    const answer = (action: OptimizeReplaceResult['action'], detail: string, results: Results, approvalId?: string): OptimizeReplaceResult => {
      this.logger.info('replacement request', { nodePool: req.nodePool, decision: action, nodes: nodes.length, accepted: results.filter((r) => r.outcome === 'accepted').length, actor: meta.actor, correlationId: meta.correlationId });
      return { requestId, nodePool: req.nodePool, action, detail, results, ...(approvalId ? { approvalId } : {}) };
    };
    if (this.config.OPTIMIZE_MODE === 'off') return answer('off', 'OPTIMIZE_MODE=off: the optimizer drains nothing', all('optimizer_off', 'OPTIMIZE_MODE=off'));
    const out = await this.cycles.underExecutionLock(() => this.replaceLocked(req, nodes, requestId, meta, answer, all));
    return out ?? answer('busy', 'another optimisation run is in progress: asked again next pass', all('busy', 'an optimisation run is in progress'));
  }

  private async replaceLocked(
    req: OptimizeReplaceRequest,
    nodes: string[],
    requestId: string,
    meta: CommandMeta,
    answer: (action: OptimizeReplaceResult['action'], detail: string, results: Results, approvalId?: string) => OptimizeReplaceResult,
    all: (reason: string, detail: string) => Results,
  ): Promise<OptimizeReplaceResult> {
    // The disruption gate, in its one order (docs/approvals.md#one-gate): the pause (its owner asked afresh), then the
    // approval (an approved request of this NodePool is carried out), then the NodePool's window.
    const manual = approvalModeFor(this.config.DISRUPTION_APPROVAL, 'optimize') === 'manual';
    const open = manual ? await this.approvals.open(subjectOf(req.nodePool)) : undefined;
    const approval: ApprovalInPlay = !open ? { kind: 'none' } : open.status === 'approved' ? { kind: 'approved', id: open.id } : { kind: 'open', id: open.id, status: open.status };
    const pause = await this.pause.check('optimize', { fresh: true });
    const gate = admitNodes(nodes.map((node) => ({ node })), () => req.nodePool, { pause, policy: this.config.DISRUPTION_APPROVAL, windows: this.config.DISRUPTION_WINDOWS, now: this.clock.now(), approval });
    const refused = gate.refused;
    if (refused?.reason === 'paused' || refused?.reason === 'pause_unknown') return answer('paused', `the fleet-wide pause holds optimizer drains: ${refused.detail}`, all(refused.reason === 'paused' ? 'paused' : 'pause_unknown', refused.detail));
    if (refused?.reason === 'approval_open') return answer('approval_open', refused.detail, all('awaiting_approval', refused.detail), refused.approvalId);
    if (refused) {
      const a = await this.approvals.request(
        {
          subject: subjectOf(req.nodePool),
          reason: `Replace ${nodes.length} on-demand node${nodes.length === 1 ? '' : 's'} of NodePool ${req.nodePool}, a few at a time: ${req.reason}`,
          planId: null,
          nodes: nodes.map((node) => ({ node, nodePool: req.nodePool, reason: 'replace_on_demand' })),
          extra: { replace: nodes, nodePool: req.nodePool, reason: req.reason, evidence: req.evidence ?? [] },
        },
        meta,
      );
      return answer('approval_requested', `approval ${a.id} requested`, all('awaiting_approval', `approval ${a.id} requested`), a.id);
    }
    if (gate.inside.length === 0) {
      const when = gate.opensAt ? `; it opens at ${gate.opensAt.toISOString()}` : '';
      const approved = open ? `approval ${open.id} is approved; ` : '';
      return answer('wait_for_window', `${approved}NodePool ${req.nodePool} is outside its maintenance window${when}`, gate.outside.map((h) => ({ node: h.node, outcome: 'queued' as const, reason: h.reason, detail: h.detail })), open?.id);
    }
    if (open) return this.runApproved(open, req, nodes, requestId, meta, answer, all);
    return this.drain(req, gate.inside.map((r) => r.node), requestId, meta, answer, null);
  }

  /** runApproved — an approved request of this NodePool, admitted (inside its window): claimed (never twice), drained, finished. */
  private async runApproved(
    a: ApprovalView,
    req: OptimizeReplaceRequest,
    nodes: string[],
    requestId: string,
    meta: CommandMeta,
    answer: (action: OptimizeReplaceResult['action'], detail: string, results: Results, approvalId?: string) => OptimizeReplaceResult,
    all: (reason: string, detail: string) => Results,
  ): Promise<OptimizeReplaceResult> {
    if (!(await this.approvals.claim(a.id))) return answer('approval_open', `approval ${a.id} is being carried out`, all('awaiting_approval', `approval ${a.id} is being carried out`), a.id);
    // Only the nodes the approver saw and the caller still asks for; the others wait for a request of their own.
    const approved = new Set(((await this.approvals.extra(a.id))['replace'] as string[] | undefined) ?? []);
    const runMeta = { actor: a.decidedBy ?? meta.actor, correlationId: meta.correlationId };
    const out = await this.drain(req, nodes.filter((n) => approved.has(n)), requestId, runMeta, answer, a.id);
    await this.approvals.finish(
      a.id,
      out.results.map((r) => ({ node: r.node, outcome: r.outcome === 'accepted' ? ('started' as const) : ('skipped' as const), reason: r.reason, detail: r.detail, ...(r.operationId ? { operationId: r.operationId } : {}) })),
      runMeta,
    );
    const rest = nodes.filter((n) => !approved.has(n)).map((node) => ({ node, outcome: 'queued' as const, reason: 'not_approved', detail: `not in approval ${a.id}: asked for again next pass` }));
    return { ...out, results: [...out.results, ...rest] };
  }

  /** drain — the request stored as a plan row, then the optimizer's `execute` with the replacement re-check. */
  private async drain(
    req: OptimizeReplaceRequest,
    nodes: string[],
    requestId: string,
    meta: CommandMeta,
    answer: (action: OptimizeReplaceResult['action'], detail: string, results: Results, approvalId?: string) => OptimizeReplaceResult,
    approvalId: string | null,
  ): Promise<OptimizeReplaceResult> {
    const removals: Replacement[] = nodes.map((node) => ({ node, nodePool: req.nodePool }));
    await this.repo.savePlan({
      id: requestId,
      status: 'executing',
      nodePool: req.nodePool,
      plan: { kind: 'replace', nodes, reason: req.reason, evidence: req.evidence ?? [], ...(approvalId ? { approvalId } : {}) },
      hourlySavingsUsd: 0,
      monthlySavingsUsd: 0,
      dryRun: false,
      actor: meta.actor,
      correlationId: meta.correlationId,
      now: this.clock.now(),
    });
    const ex = await this.execution.execute(requestId, removals, meta, {
      recheck: (r, fresh, run) => recheckReplacement(r, fresh, run),
      drained: { reason: 'replace_on_demand', why: `asked by ${meta.actor} to move it off on-demand (${req.reason}): re-checked just before, still on-demand in NodePool ${req.nodePool} with nothing blocking` },
    });
    const results: Results = [
      ...ex.drained.map((d) => ({ node: d.node, outcome: 'accepted' as const, reason: 'drain_started', detail: `drain ${d.operationId} ${d.status}`, operationId: d.operationId })),
      ...ex.skipped.map((x) => ({ node: x.node, outcome: outcomeOf(x.reason), reason: x.reason, detail: x.detail })),
    ];
    const n = ex.drained.length;
    return answer('drain', `${n} node${n === 1 ? '' : 's'} draining (OPTIMIZE_MAX_DISRUPTIONS=${this.config.OPTIMIZE_MAX_DISRUPTIONS}); ${results.length - n} not now`, results, approvalId ?? undefined);
  }
}
