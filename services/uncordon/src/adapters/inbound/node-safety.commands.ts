import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { FencingService } from '../../fencing/fencing.service.js';
import { PressureService } from '../../pressure/pressure.service.js';

/** NodeSafetyCommands — fencing and pressure views on `nodes-manager.uncordon` (the gateway validated the input). */
@CommandController()
export class NodeSafetyCommands {
  constructor(
    @Inject(FencingService) private readonly fencing: FencingService,
    @Inject(PressureService) private readonly pressure: PressureService,
  ) {}

  /** fencing.status — settings, partition shares, verdicts of nodes that are not Ready, latest fencing operations. */
  @CommandHandler(Commands.fencingStatus)
  status(@Payload() req: CommandRequest<{ limit?: number; node?: string }>) {
    return this.fencing.view(req.data?.limit ?? 100, req.data?.node);
  }

  /** pressure.list — the last PSI reading of every opted-in node (or of `node`). */
  @CommandHandler(Commands.pressureList)
  async list(@Payload() req: CommandRequest<{ node?: string }>) {
    return { items: await this.pressure.list(req.data?.node) };
  }
}
