import { Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Commands,
  type CommandRequest,
  type ConsolidateRequest,
  type NodePoolCreateRequest,
  type NodePoolNameQuery,
  type NodePoolUpdateRequest,
} from '@nodes-manager/contracts';
import { CommandController } from '@nodes-manager/platform';
import { KarpenterGatewayService } from '../../karpenter-gateway.service.js';

/** KarpenterGatewayCommands — the karpenter-gateway service's commands on `nodes-manager.karpenter-gateway` (its approvals: libs/platform `approvalCommands`). Thin. */
@CommandController()
export class KarpenterGatewayCommands {
  constructor(@Inject(KarpenterGatewayService) private readonly svc: KarpenterGatewayService) {}

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
}
