import { Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  approvalPattern,
  Commands,
  type ApprovalDecisionRequest,
  type ApprovalsListQuery,
  type CommandRequest,
  type ConsolidateRequest,
  type NodePoolCreateRequest,
  type NodePoolNameQuery,
  type NodePoolUpdateRequest,
} from '@nodes-manager/contracts';
import { CommandController, type ApprovalStore } from '@nodes-manager/platform';
import { CONSOLIDATION_APPROVALS, KarpenterGatewayService } from '../../karpenter-gateway.service.js';

/** KarpenterGatewayCommands — the karpenter-gateway service's commands on `nodes-manager.karpenter-gateway`. Thin. */
@CommandController()
export class KarpenterGatewayCommands {
  constructor(
    @Inject(KarpenterGatewayService) private readonly svc: KarpenterGatewayService,
    @Inject(CONSOLIDATION_APPROVALS) private readonly approvals: ApprovalStore,
  ) {}

  @MessagePattern(Commands.nodepoolsList)
  list(@Payload() _req: CommandRequest) {
    return this.svc.list();
  }

  @MessagePattern(Commands.nodepoolGet)
  get(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.svc.get(req.data.name);
  }

  @MessagePattern(Commands.nodepoolCreate)
  create(@Payload() req: CommandRequest<NodePoolCreateRequest>) {
    return this.svc.create(req.data.nodePool, req.meta);
  }

  @MessagePattern(Commands.nodepoolUpdate)
  update(@Payload() req: CommandRequest<NodePoolUpdateRequest>) {
    return this.svc.update(req.data.name, req.data.patch, req.meta);
  }

  @MessagePattern(Commands.nodepoolDelete)
  remove(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.svc.remove(req.data.name, req.meta);
  }

  @MessagePattern(Commands.nodeclaimsList)
  nodeclaims(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.svc.nodeclaims(req.data.name);
  }

  @MessagePattern(Commands.nodepoolConsolidate)
  consolidate(@Payload() req: CommandRequest<ConsolidateRequest>) {
    return this.svc.consolidate(req.data.name, req.data.dryRun !== false, req.meta);
  }

  /** approvals.list.karpenter-gateway — the consolidation approvals, newest first (merged by the gateway). */
  @MessagePattern(approvalPattern('karpenter-gateway', 'list'))
  approvalsList(@Payload() req: CommandRequest<ApprovalsListQuery>) {
    return this.approvals.list(req.data);
  }

  @MessagePattern(approvalPattern('karpenter-gateway', 'get'))
  approvalGet(@Payload() req: CommandRequest<{ id: string }>) {
    return this.approvals.get(req.data.id);
  }

  /** approvals.approve.karpenter-gateway — the next pass of the loop inside the pool's window carries it out. */
  @MessagePattern(approvalPattern('karpenter-gateway', 'approve'))
  approve(@Payload() req: CommandRequest<ApprovalDecisionRequest>) {
    return this.approvals.decide(req.data.id, 'approve', req.meta, req.data.comment);
  }

  @MessagePattern(approvalPattern('karpenter-gateway', 'reject'))
  reject(@Payload() req: CommandRequest<ApprovalDecisionRequest>) {
    return this.approvals.decide(req.data.id, 'reject', req.meta, req.data.comment);
  }
}
