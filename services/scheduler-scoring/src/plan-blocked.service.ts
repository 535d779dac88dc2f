import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, LOGGER, METRICS, NodeEventRecorder, PDB_BLOCKED_EVENT_REASON, PdbBlockedNodes, type Clock, type JsonLogger, type Metrics } from '@nodes-manager/platform';
import type { ConsolidationPlan } from '@nodes-manager/scoring';
import type { SchedulerScoringConfig } from './config.js';
import { budgetKept, decideBlockedEvents, type AnnouncedBlock } from './domain/decide-blocked-events.js';
import type { KubeNodeEvents } from './adapters/outbound/kube-node-events.adapter.js';
import { NODE_EVENTS, SCHEDULER_SCORING_CONFIG } from './tokens.js';

/** At most this many Events written (or counted again) after one plan; the others follow with the next plans. */
export const BLOCKED_EVENTS_PER_PLAN = 50;

/** NodeEventsPort — what this needs of the Kubernetes API (KubeNodeEvents). */
export type NodeEventsPort = Pick<KubeNodeEvents, 'nodeUid' | 'create' | 'repeat'>;

/**
 * PlanBlockedService — the consolidation plan's nodes a PodDisruptionBudget keeps (docs/pause.md#blocked): every plan
 * sets `nodes_manager_pdb_blocked_nodes{source="plan"}`; the leader's loop plans also write the Node Events
 * `DisruptionBlockedByPDB` naming the budgets — one Event per node, counted again (not a new one) when the node is
 * kept again or still kept after PDB_BLOCKED_EVENT_REFRESH_MINUTES ({@link decideBlockedEvents}, NodeEventRecorder).
 */
@Injectable()
export class PlanBlockedService {
  private readonly gauge: PdbBlockedNodes;
  private readonly recorder: NodeEventRecorder;
  /** The nodes whose Event this process wrote, with the budgets it named and when. */
  private readonly announced = new Map<string, AnnouncedBlock>();

  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) private readonly config: SchedulerScoringConfig,
    @Inject(NODE_EVENTS) private readonly kube: NodeEventsPort,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.gauge = new PdbBlockedNodes(metrics, 'scheduler-scoring', 'plan');
    this.recorder = new NodeEventRecorder(kube);
  }

  /** count — the plan's budget-kept nodes, by budget, in the gauge; nodes it no longer keeps leave it. */
  count(plan: ConsolidationPlan): void {
    const held = budgetKept(plan.blocked);
    this.gauge.only(new Set(held.map((b) => b.node)));
    for (const { node, pdbs } of held) if (this.gauge.block(node, pdbs)) this.logger.info('node kept by a PodDisruptionBudget', { node, pdb: pdbs.join(',') });
  }

  /**
   * announce — the Node Events of a loop plan (the leader's; a caller's trigger only counts). A write that fails is
   * logged and left unannounced, so the next plan tries again.
   */
  async announce(plan: ConsolidationPlan): Promise<void> {
    const now = this.clock.now();
    const { events, forget } = decideBlockedEvents(plan.blocked, this.announced, now, {
      refreshMs: this.config.PDB_BLOCKED_EVENT_REFRESH_MINUTES * 60_000,
      max: BLOCKED_EVENTS_PER_PLAN,
    });
    for (const node of forget) this.announced.delete(node);
    for (const e of events) {
      try {
        const uid = await this.kube.nodeUid(e.node);
        if (uid === undefined) continue; // gone since the plan's snapshot: nothing to describe
        const written = await this.recorder.record({ name: e.node, ...(uid ? { uid } : {}) }, PDB_BLOCKED_EVENT_REASON, e.message, now);
        this.announced.set(e.node, { pdbs: e.pdbs, at: now });
        this.logger.info('node event written: kept by a PodDisruptionBudget', { node: e.node, pdb: e.pdbs.join(','), reason: e.why, event: written.name, ...(written.action === 'repeated' ? { count: written.count } : {}) });
      } catch (err) {
        this.logger.warn('node event not written', { node: e.node, err: (err as Error).message });
      }
    }
  }
}
