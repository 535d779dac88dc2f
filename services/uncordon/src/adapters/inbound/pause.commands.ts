import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest, type PauseRequest } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { PauseService } from '../../pause/pause.service.js';
import { PauseController } from '../../pause/pause.controller.js';

const actorOf = (req: CommandRequest<unknown>): string => req.meta?.actor ?? 'unknown';

/** PauseCommands — the fleet-wide pause on `nodes-manager.uncordon`, its owner (docs/pause.md). */
@CommandController()
export class PauseCommands {
  constructor(
    @Inject(PauseService) private readonly pause: PauseService,
    @Inject(PauseController) private readonly expiry: PauseController,
  ) {}

  /** pause.get — the pause in force, if any, and the latest changes (every service's gate asks it each interval). */
  @CommandHandler(Commands.pauseGet)
  get() {
    return this.pause.view();
  }

  /** pause.set — pauses as the caller; the end at `until` is watched from now. */
  @CommandHandler(Commands.pauseSet)
  async set(@Payload() req: CommandRequest<PauseRequest>) {
    const view = await this.pause.set(req.data, actorOf(req));
    this.expiry.enqueue();
    return view;
  }

  /** pause.clear — resumes as the caller. */
  @CommandHandler(Commands.pauseClear)
  clear(@Payload() req: CommandRequest<Record<string, never>>) {
    return this.pause.clear(actorOf(req));
  }
}
