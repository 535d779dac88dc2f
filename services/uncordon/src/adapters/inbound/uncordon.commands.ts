import { MessagePattern, Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, notImplemented } from '@nodes-manager/platform';

/** UncordonCommands — the uncordon service's commands on `nodes-manager.uncordon`. */
@CommandController()
export class UncordonCommands {
  @MessagePattern(Commands.cordonsList)
  cordons(@Payload() _req: CommandRequest) {
    throw notImplemented('cordons.list');
  }

  @MessagePattern(Commands.eventsList)
  events(@Payload() _req: CommandRequest) {
    throw notImplemented('events.list');
  }

  @MessagePattern(Commands.nodeDrain)
  drain(@Payload() _req: CommandRequest) {
    throw notImplemented('node.drain');
  }

  @MessagePattern(Commands.drainGet)
  drainGet(@Payload() _req: CommandRequest) {
    throw notImplemented('drain.get');
  }
}
