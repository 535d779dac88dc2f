import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest, type DecisionsListQuery, type OptimizeReplaceRequest, type OptimizeTriggerRequest, type PlacementListQuery, type SimulateRequest } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { SchedulingQueriesService } from '../../scheduling-queries.service.js';
import { OptimizeReplaceService } from '../../optimize-replace.service.js';
import { OptimizeController } from '../../optimize.controller.js';

/** SchedulerScoringCommands — the scheduler-scoring service's commands on `nodes-manager.scheduler-scoring` (its approvals: libs/platform `approvalCommands`). */
@CommandController()
export class SchedulerScoringCommands {
  constructor(
    private readonly queries: SchedulingQueriesService,
    private readonly optimize: OptimizeController,
    private readonly replacements: OptimizeReplaceService,
  ) {}

  /** decisions.list — the decision log, newest first; filters kind and subject. */
  @CommandHandler(Commands.decisionsList)
  decisions(@Payload() req: CommandRequest<Partial<DecisionsListQuery>>) {
    return this.queries.decisions(req.data ?? {});
  }

  /** optimize.plan — `{nodePool?}` → the consolidation plan now (`remove`, `blocked`, `pdbImpact`, savings). */
  @CommandHandler(Commands.optimizePlan)
  plan(@Payload() req: CommandRequest<{ nodePool?: string }>) {
    return this.queries.plan(req.data ?? {}, req.meta);
  }

  /** optimize.trigger — `{dryRun}`: a cycle now for the caller (triggers meanwhile share it); `dryRun: false` executes the plan. */
  @CommandHandler(Commands.optimizeTrigger)
  trigger(@Payload() req: CommandRequest<OptimizeTriggerRequest>) {
    return this.optimize.trigger(req.data ?? { dryRun: true }, req.meta);
  }

  /** optimize.replace — `{nodePool, nodes, reason, evidence?}`: those nodes drained a few at a time through the optimizer's gate. */
  @CommandHandler(Commands.optimizeReplace)
  replace(@Payload() req: CommandRequest<OptimizeReplaceRequest>) {
    return this.replacements.replace(req.data, req.meta);
  }

  /** simulate.run — pod groups → placements on the fleet and new nodes with cost. */
  @CommandHandler(Commands.simulate)
  simulate(@Payload() req: CommandRequest<SimulateRequest>) {
    return this.queries.simulate(req.data, req.meta);
  }

  /** placement.list — every running workload pod with node, class, score and rationale. */
  @CommandHandler(Commands.placementList)
  placement(@Payload() req: CommandRequest<Partial<PlacementListQuery>>) {
    return this.queries.placement(req.data ?? {}, req.meta);
  }
}
