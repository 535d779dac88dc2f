import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest, type RequestOf } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import type { ProvisionRequest } from '../../domain/provisioning.js';
import { SpotAdvisorService, type MarketQuery } from '../../spot-advisor.service.js';
import { InstanceControlService } from '../../instance-control.service.js';

/**
 * SpotAdvisorCommands — the spot-advisor service's commands on `nodes-manager.spot-advisor`. Thin: each request was
 * checked against its command's schema (libs/contracts) before the handler runs.
 */
@CommandController()
export class SpotAdvisorCommands {
  constructor(
    @Inject(SpotAdvisorService) private readonly spot: SpotAdvisorService,
    @Inject(InstanceControlService) private readonly instances: InstanceControlService,
  ) {}

  /** spot.market — the gateway validated the query (GET /api/v1/spot/market). */
  @CommandHandler(Commands.spotMarket)
  market(@Payload() req: CommandRequest<MarketQuery>) {
    return this.spot.market(req.data ?? {});
  }

  /** spot.prices — `{ instanceTypes?, zones?, region? }` → PriceInfo per (type, zone), for scheduler-scoring. */
  @CommandHandler(Commands.spotPrices)
  prices(@Payload() req: CommandRequest<RequestOf<typeof Commands.spotPrices>>) {
    return this.spot.spotPrices(req.data);
  }

  /** spot.history — `{ instanceType, region? }` → that type's price points per zone over the window (GET /api/v1/spot/history). */
  @CommandHandler(Commands.spotHistory)
  history(@Payload() req: CommandRequest<RequestOf<typeof Commands.spotHistory>>) {
    return this.spot.history(req.data);
  }

  /** instancetypes.list — `{ region?, instanceTypes? }` → the instance-type catalog. */
  @CommandHandler(Commands.instanceTypesList)
  instanceTypes(@Payload() req: CommandRequest<RequestOf<typeof Commands.instanceTypesList>>) {
    return this.spot.instanceTypes(req.data);
  }

  /** instance.provision — the gateway validated the body (POST /api/v1/instances, write scope). */
  @CommandHandler(Commands.instanceProvision)
  provision(@Payload() req: CommandRequest<ProvisionRequest>) {
    return this.spot.provision(req.data, req.meta);
  }

  /** instance.fence — `{ instanceId, action: stop|terminate, force }`, from uncordon's fencing (docs/fencing.md). */
  @CommandHandler(Commands.instanceFence)
  fence(@Payload() req: CommandRequest<RequestOf<typeof Commands.instanceFence>>) {
    return this.instances.fence(req.data, req.meta);
  }

  /** instances.describe — `{ instanceIds }` → state and state reason of each, and the ids EC2 does not know. */
  @CommandHandler(Commands.instancesDescribe)
  describe(@Payload() req: CommandRequest<RequestOf<typeof Commands.instancesDescribe>>) {
    return this.instances.describe(req.data.instanceIds);
  }
}
