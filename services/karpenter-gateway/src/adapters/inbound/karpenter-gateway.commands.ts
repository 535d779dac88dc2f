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
import { ConsolidationService } from '../../consolidation.service.js';
import { NodePoolQueriesService } from '../../nodepool-queries.service.js';
import { NodePoolWritesService } from '../../nodepool-writes.service.js';

/** KarpenterGatewayCommands — the karpenter-gateway service's commands on `nodes-manager.karpenter-gateway` (its approvals: libs/platform `approvalCommands`). Thin. */
@CommandController()
export class KarpenterGatewayCommands {
  constructor(
    @Inject(NodePoolQueriesService) private readonly queries: NodePoolQueriesService,
    @Inject(NodePoolWritesService) private readonly writes: NodePoolWritesService,
    @Inject(ConsolidationService) private readonly consolidation: ConsolidationService,
  ) {}

  @CommandHandler(Commands.nodepoolsList)
  list(@Payload() _req: CommandRequest) {
    return this.queries.list();
  }

  @CommandHandler(Commands.nodepoolGet)
  get(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.queries.get(req.data.name);
  }

  @CommandHandler(Commands.nodepoolCreate)
  create(@Payload() req: CommandRequest<NodePoolCreateRequest>) {
    return this.writes.create(req.data.nodePool, req.meta);
  }

  @CommandHandler(Commands.nodepoolUpdate)
  update(@Payload() req: CommandRequest<NodePoolUpdateRequest>) {
    return this.writes.update(req.data.name, req.data.patch, req.meta);
  }

  @CommandHandler(Commands.nodepoolDelete)
  remove(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.writes.remove(req.data.name, req.meta);
  }

  @CommandHandler(Commands.nodeclaimsList)
  nodeclaims(@Payload() req: CommandRequest<NodePoolNameQuery>) {
    return this.queries.nodeclaims(req.data.name);
  }

  @CommandHandler(Commands.nodepoolConsolidate)
  consolidate(@Payload() req: CommandRequest<ConsolidateRequest>) {
    return this.consolidation.consolidate(req.data.name, req.data.dryRun !== false, req.meta);
  }
}
