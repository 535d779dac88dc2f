import { Inject, Injectable } from '@nestjs/common';
import type { CommandMeta, DecisionsListQuery, PlacementListQuery, SimulateRequest } from '@nodes-manager/contracts';
import { CLOCK, type Clock, validationFailed } from '@nodes-manager/platform';
import { lowerBoundCost, simulatePlacement } from '@nodes-manager/scoring';
import type { SchedulerScoringConfig } from './config.js';
import { placementAfter, placementPage } from './domain/placement.js';
import { toSimulateGroups } from './domain/simulate-request.js';
import type { SchedulingRepository } from './adapters/outbound/scheduling.repository.js';
import { ClusterMarketService } from './cluster-market.service.js';
import { SCHEDULER_SCORING_CONFIG, SCHEDULING_REPOSITORY } from './tokens.js';

/**
 * SchedulingQueriesService — the read-only answers: placement of the running pods, the decision log, the
 * consolidation plan now, and a simulation of pod groups. Nothing here writes or drains.
 */
@Injectable()
export class SchedulingQueriesService {
  constructor(
    @Inject(SCHEDULER_SCORING_CONFIG) private readonly config: SchedulerScoringConfig,
    @Inject(SCHEDULING_REPOSITORY) private readonly repo: SchedulingRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ClusterMarketService) private readonly market: ClusterMarketService,
  ) {}

  /** placement — every running workload pod with its node, class, score and rationale; filtered, paged. */
  async placement(q: Partial<PlacementListQuery>, meta: CommandMeta) {
    const snap = this.market.snapshot();
    const prices = await this.market.prices(snap, meta);
    const after = q.cursor === undefined ? undefined : placementAfter(q.cursor);
    const page = placementPage(snap.pods, snap.nodes, this.market.context(snap, prices), {
      limit: q.limit ?? 50,
      ...(after !== undefined ? { after } : {}),
      ...(q.namespace ? { namespace: q.namespace } : {}),
      ...(q.node ? { node: q.node } : {}),
      ...(q.workloadClass ? { workloadClass: q.workloadClass } : {}),
    });
    return { ...page, priceSource: prices.source };
  }

  async decisions(q: Partial<DecisionsListQuery>) {
    return this.repo.listDecisions({
      limit: q.limit ?? 50,
      ...(q.cursor ? { cursor: q.cursor } : {}),
      ...(q.kind ? { kind: q.kind } : {}),
      ...(q.subject ? { subject: q.subject } : {}),
    });
  }

  /** plan — the consolidation plan on the current cluster (read only; the loop and trigger store theirs). */
  async plan(q: { nodePool?: string }, meta: CommandMeta) {
    const snap = this.market.snapshot();
    const prices = await this.market.prices(snap, meta);
    const plan = this.market.consolidate(snap, prices, q.nodePool);
    const latest = await this.repo.latestPlan(q.nodePool ?? null);
    return {
      ...plan,
      threshold: this.config.OPTIMIZE_UTILIZATION_THRESHOLD,
      mode: this.config.OPTIMIZE_MODE,
      ...(q.nodePool ? { nodePool: q.nodePool } : {}),
      priceSource: prices.source,
      ...(prices.detail ? { priceSourceDetail: prices.detail } : {}),
      generatedAt: this.clock.now().toISOString(),
      ...(latest ? { latestStoredPlan: { id: latest.id, status: latest.status, createdAt: latest.createdAt, executedAt: latest.executedAt } } : {}),
    };
  }

  /** simulate — N pod groups → where they would go on the current fleet and what new nodes would cost. */
  async simulate(req: SimulateRequest, meta: CommandMeta) {
    const parsed = toSimulateGroups(req);
    if (!parsed.ok) throw validationFailed(parsed.problems.map((p) => ({ in: 'body', field: p.field, message: p.problem })));
    const snap = this.market.snapshot();
    const { prices, catalog } = await this.market.market(snap, meta);
    const input = { pods: parsed.groups, nodes: snap.nodes, catalog: catalog.types, prices: prices.table };
    const result = simulatePlacement(input);
    const bound = lowerBoundCost(input).usdPerHour;
    return {
      ...result,
      newNodes: result.additions.reduce((s, a) => s + a.count, 0),
      lowerBoundUsdPerHour: Math.round(bound * 1e6) / 1e6,
      priceSource: prices.source,
      ...(prices.detail ? { priceSourceDetail: prices.detail } : {}),
      catalogSource: catalog.source,
      ...(catalog.detail ? { catalogSourceDetail: catalog.detail } : {}),
      catalogTypes: catalog.types.length,
    };
  }

}
