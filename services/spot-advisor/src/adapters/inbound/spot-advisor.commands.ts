import { MessagePattern, Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, notImplemented } from '@nodes-manager/platform';

/** SpotAdvisorCommands — the spot-advisor service's commands on `nodes-manager.spot-advisor`. */
@CommandController()
export class SpotAdvisorCommands {
  @MessagePattern(Commands.spotMarket)
  market(@Payload() _req: CommandRequest) {
    throw notImplemented('spot.market');
  }

  @MessagePattern(Commands.spotPrices)
  prices(@Payload() _req: CommandRequest) {
    throw notImplemented('spot.prices');
  }

  @MessagePattern(Commands.instanceTypesList)
  instanceTypes(@Payload() _req: CommandRequest) {
    throw notImplemented('instancetypes.list');
  }

  @MessagePattern(Commands.instanceProvision)
  provision(@Payload() _req: CommandRequest) {
    throw notImplemented('instance.provision');
  }

}
