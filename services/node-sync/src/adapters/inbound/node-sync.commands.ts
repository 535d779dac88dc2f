import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest, type NodeGetQuery, type NodeHoursQuery, type NodesListQuery } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { NodeSyncService } from '../../node-sync.service.js';

/** NodeSyncCommands — the node-sync service's commands on `nodes-manager.node-sync`. Reads: any replica answers. */
@CommandController()
export class NodeSyncCommands {
  constructor(private readonly sync: NodeSyncService) {}

  @CommandHandler(Commands.nodesList)
  list(@Payload() req: CommandRequest<NodesListQuery>) {
    return this.sync.list(req.data);
  }

  /** nodehours.list — node-hours per pool over a window (the interruption rate's denominator, and steering's). */
  @CommandHandler(Commands.nodeHoursList)
  nodeHours(@Payload() req: CommandRequest<NodeHoursQuery>) {
    return this.sync.nodeHours(req.data);
  }

  @CommandHandler(Commands.nodeGet)
  get(@Payload() req: CommandRequest<NodeGetQuery>) {
    return this.sync.get(req.data.id);
  }
}
