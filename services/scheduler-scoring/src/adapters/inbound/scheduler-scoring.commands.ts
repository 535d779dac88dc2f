import { MessagePattern, Payload } from '@nestjs/microservices';
import { approvalPattern, Commands, type ApprovalDecisionRequest, type ApprovalsListQuery, type CommandRequest, type DecisionsListQuery, type OptimizeTriggerRequest, type PlacementListQuery, type SimulateRequest } from '@nodes-manager/contracts';
import { CommandController } from '@nodes-manager/platform';
import { SchedulerScoringService } from '../../scheduler-scoring.service.js';

/** SchedulerScoringCommands — the scheduler-scoring service's commands on `nodes-manager.scheduler-scoring`. */
@CommandController()
export class SchedulerScoringCommands {
  constructor(private readonly svc: SchedulerScoringService) {}

  /** decisions.list — the decision log, newest first; filters kind and subject. */
  @MessagePattern(Commands.decisionsList)
  decisions(@Payload() req: CommandRequest<Partial<DecisionsListQuery>>) {
    return this.svc.decisions(req.data ?? {});
  }

  /** optimize.plan — `{nodePool?}` → the consolidation plan now (`remove`, `blocked`, `pdbImpact`, savings). */
  @MessagePattern(Commands.optimizePlan)
  plan(@Payload() req: CommandRequest<{ nodePool?: string }>) {
    return this.svc.plan(req.data ?? {}, req.meta);
  }

  /** optimize.trigger — `{dryRun}`: a cycle now for the caller; `dryRun: false` executes the plan. */
  @MessagePattern(Commands.optimizeTrigger)
  trigger(@Payload() req: CommandRequest<OptimizeTriggerRequest>) {
    return this.svc.trigger(req.data ?? { dryRun: true }, req.meta);
  }

  /** simulate.run — pod groups → placements on the fleet and new nodes with cost. */
  @MessagePattern(Commands.simulate)
  simulate(@Payload() req: CommandRequest<SimulateRequest>) {
    return this.svc.simulate(req.data, req.meta);
  }

  /** placement.list — every running workload pod with node, class, score and rationale. */
  @MessagePattern(Commands.placementList)
  placement(@Payload() req: CommandRequest<Partial<PlacementListQuery>>) {
    return this.svc.placement(req.data ?? {}, req.meta);
  }

  /** approvals.list.scheduler-scoring — the optimizer's approvals, newest first (the gateway merges them with karpenter-gateway's). */
  @MessagePattern(approvalPattern('scheduler-scoring', 'list'))
  approvals(@Payload() req: CommandRequest<ApprovalsListQuery>) {
    return this.svc.approvalsList(req.data);
  }

  /** approval.get — one approval `{id}`. */
  @MessagePattern(approvalPattern('scheduler-scoring', 'get'))
  approval(@Payload() req: CommandRequest<{ id: string }>) {
    return this.svc.approvalGet(req.data.id);
  }

  /** approval.approve — `{id, comment?}` as the caller; the next loop pass inside a window carries it out. */
  @MessagePattern(approvalPattern('scheduler-scoring', 'approve'))
  approve(@Payload() req: CommandRequest<ApprovalDecisionRequest>) {
    return this.svc.approvalDecide(req.data.id, 'approve', req.meta, req.data.comment);
  }

  /** approval.reject — `{id, comment?}` as the caller: nothing is done. */
  @MessagePattern(approvalPattern('scheduler-scoring', 'reject'))
  reject(@Payload() req: CommandRequest<ApprovalDecisionRequest>) {
    return this.svc.approvalDecide(req.data.id, 'reject', req.meta, req.data.comment);
  }
}
