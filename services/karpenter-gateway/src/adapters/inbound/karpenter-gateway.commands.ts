import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  Commands,
  type CommandRequest,
  type ConsolidateRequest,
  type NodePoolCreateRequest,
  type NodePoolNameQuery,
  type NodePoolUpdateRequest,
} from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { KarpenterGatewayService } from '../../karpenter-gateway.service.js';

/** KarpenterGatewayCommands — the karpenter-gateway service's commands on `nodes-manager.karpenter-gateway` (its approvals: libs/platform `approvalCommands`). Thin. */
@CommandController()
export class KarpenterGatewayCommands {
  constructor(@Inject(KarpenterGatewayService) private readonly svc: KarpenterGatewayService) {}

  @CommandHandler(Commands.nodepoolsList)
  list(@Payload() _req: CommandRequest) {
    return this.svc.list();
  }

  @CommandHandler(Commands.nodepoolGet)
  get(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.svc.get(req.data.name);
  }

  @CommandHandler(Commands.nodepoolCreate)
  create(@Payload() req: CommandRequest<NodePoolCreateRequest>) {
    return this.svc.create(req.data.nodePool, req.meta);
  }

  @CommandHandler(Commands.nodepoolUpdate)
  update(@Payload() req: CommandRequest<NodePoolUpdateRequest>) {
    return this.svc.update(req.data.name, req.data.patch, req.meta);
  }

  @CommandHandler(Commands.nodepoolDelete)
  remove(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.svc.remove(req.data.name, req.meta);
  }

  @CommandHandler(Commands.nodeclaimsList)
  nodeclaims(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.svc.nodeclaims(req.data.name);
  }

  @CommandHandler(Commands.nodepoolConsolidate)
  consolidate(@Payload() req: CommandRequest<ConsolidateRequest>) {
    return this.svc.consolidate(req.data.name, req.data.dryRun !== false, req.meta);
  }
}
