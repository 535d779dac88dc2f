import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { SteeringService } from '../../steering/steering.service.js';

/** SteeringCommands — steering's read command (`steering.status`, docs/steering.md). Thin. */
@CommandController()
export class SteeringCommands {
  constructor(@Inject(SteeringService) private readonly svc: SteeringService) {}

  @CommandHandler(Commands.steeringStatus)
  status(@Payload() _req: CommandRequest) {
    return this.svc.status();
  }
}
