import { MessagePattern, Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, notImplemented } from '@nodes-manager/platform';

/** SchedulerScoringCommands — the scheduler-scoring service's commands on `nodes-manager.scheduler-scoring`. */
@CommandController()
export class SchedulerScoringCommands {
  @MessagePattern(Commands.decisionsList)
  decisions(@Payload() _req: CommandRequest) {
    throw notImplemented('decisions.list');
  }

  @MessagePattern(Commands.optimizePlan)
  plan(@Payload() _req: CommandRequest) {
    throw notImplemented('optimize.plan');
  }

  @MessagePattern(Commands.optimizeTrigger)
  trigger(@Payload() _req: CommandRequest) {
    throw notImplemented('optimize.trigger');
  }

  @MessagePattern(Commands.simulate)
  simulate(@Payload() _req: CommandRequest) {
    throw notImplemented('simulate.run');
  }

  @MessagePattern(Commands.placementList)
  placement(@Payload() _req: CommandRequest) {
    throw notImplemented('placement.list');
  }

}
