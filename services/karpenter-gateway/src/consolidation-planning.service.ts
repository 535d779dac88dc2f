import { Inject, Injectable } from '@nestjs/common';
import { Commands, type CommandMeta, type OptimizePlan } from '@nodes-manager/contracts';
import { CLOCK, COMMAND_BUS, type Clock, type CommandBus } from '@nodes-manager/platform';
import { KARPENTER_KUBE, type KarpenterKube } from './adapters/outbound/karpenter-kube.adapter.js';
import { selectNodeClaims, type PlannedRemoval } from './domain/select-nodeclaims.js';
import { NodePoolAccess } from './nodepool-access.js';
import { KARPENTER_SERVICE_OPTIONS, type KarpenterServiceOptions } from './tokens.js';

/**
 * ConsolidationPlanningService — what a consolidation of a NodePool would delete now: scheduler-scoring's plan for
 * the pool, mapped to the pool's NodeClaims and kept within its disruption budgets in force now and away from
 * `karpenter.sh/do-not-disrupt` (domain/select-nodeclaims.ts). Reads only.
 */
@Injectable()
export class ConsolidationPlanningService {
  constructor(
    @Inject(KARPENTER_KUBE) private readonly kube: KarpenterKube,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(COMMAND_BUS) private readonly bus: CommandBus,
    @Inject(KARPENTER_SERVICE_OPTIONS) private readonly opts: KarpenterServiceOptions,
    @Inject(NodePoolAccess) private readonly access: NodePoolAccess,
  ) {}

  /** select — the plan for the pool, its NodeClaims and the selection within the budgets in force now. */
  async select(name: string, meta: CommandMeta, only?: ReadonlySet<string>) {
    await this.access.requireInstalledForWrite();
    const pool = await this.access.readPool(name, 'KARPENTER_NOT_INSTALLED_FOR_WRITE');
    const fromPlan = plannedRemovals(await this.bus.send(Commands.optimizePlan, { nodePool: name }, meta, { timeoutMs: this.opts.planTimeoutMs }));
    const planned = fromPlan.filter((p) => !only || only.has(p.node));
    const claims = await this.kube.listNodeClaims(name).catch((err) => Promise.reject(this.access.coded(err, name)));
    const claimNodes = new Set(claims.flatMap((c) => (c.status?.nodeName ? [c.status.nodeName] : [])));
    const nodeAnnotations = new Map<string, Record<string, string>>();
    await Promise.all(
      [...new Set(planned.map((p) => p.node))].filter((n) => claimNodes.has(n)).map(async (n) => {
        const a = await this.kube.nodeAnnotations(n).catch((err) => Promise.reject(this.access.coded(err)));
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

}

/** plannedRemovals — the nodes scheduler-scoring's `optimize.plan` reply removes, with why. */
export const plannedRemovals = (plan: OptimizePlan): PlannedRemoval[] => plan.remove.map((r) => ({ node: r.node, reason: r.reason }));
