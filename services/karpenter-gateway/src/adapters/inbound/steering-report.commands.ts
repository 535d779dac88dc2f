import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest, type RequestOf } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { SteeringPoolsService } from '../../steering-report/steering-pools.service.js';
import { SteeringReportService } from '../../steering-report/steering-report.service.js';

/** SteeringReportCommands — `steering.report` and `steering.pools` (docs/steering.md). Thin. */
@CommandController()
export class SteeringReportCommands {
  constructor(
    @Inject(SteeringReportService) private readonly svc: SteeringReportService,
    @Inject(SteeringPoolsService) private readonly poolsSvc: SteeringPoolsService,
  ) {}

  @CommandHandler(Commands.steeringPools)
  pools(@Payload() req: CommandRequest) {
    return this.poolsSvc.pools(req.meta);
  }

  @CommandHandler(Commands.steeringReport)
  report(@Payload() req: CommandRequest<RequestOf<typeof Commands.steeringReport>>) {
    return this.svc.report(req.data, req.meta);
  }
}
