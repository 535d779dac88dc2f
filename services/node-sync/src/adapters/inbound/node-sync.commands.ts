import { MessagePattern, Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, notImplemented } from '@nodes-manager/platform';

/** NodeSyncCommands — the node-sync service's commands on `nodes-manager.node-sync`. */
@CommandController()
export class NodeSyncCommands {
  @MessagePattern(Commands.nodesList)
  list(@Payload() _req: CommandRequest) {
    throw notImplemented('nodes.list');
  }

  @MessagePattern(Commands.nodeGet)
  get(@Payload() _req: CommandRequest) {
    throw notImplemented('node.get');
  }

}
