import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest, type RequestOf } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { SteeringReportService } from '../../steering-report/steering-report.service.js';

/** SteeringReportCommands — `steering.report` (docs/steering.md#the-report). Thin. */
@CommandController()
export class SteeringReportCommands {
  constructor(@Inject(SteeringReportService) private readonly svc: SteeringReportService) {}

  @CommandHandler(Commands.steeringReport)
  report(@Payload() req: CommandRequest<RequestOf<typeof Commands.steeringReport>>) {
    return this.svc.report(req.data, req.meta);
  }
}
