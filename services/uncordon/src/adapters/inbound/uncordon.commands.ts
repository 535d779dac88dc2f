import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest, type DrainRequest, type EventsListQuery } from '@nodes-manager/contracts';
import { CodedError, CommandController, CommandHandler } from '@nodes-manager/platform';
import { DrainService } from '../../drain/drain.service.js';
import { DrainController } from '../../drain/drain.controller.js';
import { UncordonService } from '../../auto-uncordon/uncordon.service.js';
import { type UncordonRepository } from '../../auto-uncordon/uncordon.repository.js';
import { Inject } from '@nestjs/common';
import { UNCORDON_REPOSITORY } from '../../tokens.js';

/** UncordonCommands — the uncordon service's commands on `nodes-manager.uncordon`. */
@CommandController()
export class UncordonCommands {
  constructor(
    private readonly uncordon: UncordonService,
    private readonly drains: DrainService,
    private readonly drainController: DrainController,
    @Inject(UNCORDON_REPOSITORY) private readonly repo: UncordonRepository,
  ) {}

  /** cordons.list — every cordoned node with its verdict, reason, evidence and (waiting) `uncordonAt`. */
  @CommandHandler(Commands.cordonsList)
  cordons(@Payload() req: CommandRequest<{ limit?: number; cursor?: string; verdict?: string }>) {
    const q = req.data ?? {};
    return this.uncordon.cordons({ limit: q.limit ?? 50, ...(q.cursor ? { cursor: q.cursor } : {}), ...(q.verdict ? { verdict: q.verdict } : {}) });
  }

  /** events.list — scaling events newest first; cursor pagination; filters node and action. */
  @CommandHandler(Commands.eventsList)
  events(@Payload() req: CommandRequest<Partial<EventsListQuery>>) {
    const q = req.data ?? {};
    return this.repo
      .listEvents({ limit: q.limit ?? 50, ...(q.cursor ? { cursor: q.cursor } : {}), ...(q.node ? { node: q.node } : {}), ...(q.action ? { action: q.action } : {}) });
  }

  /** node.drain — records a drain operation and answers at once; the leader carries it on (at once when it is this replica). */
  @CommandHandler(Commands.nodeDrain)
  async drain(@Payload() req: CommandRequest<DrainRequest>) {
    const op = await this.drains.start(req.data, req.meta);
    this.drainController.enqueue(op.id);
    return op;
  }

  /** drain.get — `{id}`: one operation; `{node}`: the node's active drain, else its latest (for node views). */
  @CommandHandler(Commands.drainGet)
  drainGet(@Payload() req: CommandRequest<{ id?: string; node?: string }>) {
    return this.drains.get(req.data ?? {});
  }
}
