import { Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { z } from 'zod';
import { Commands, type CommandRequest } from '@nodes-manager/contracts';
import { CodedError, CommandController, validationFailed } from '@nodes-manager/platform';
import type { ProvisionRequest } from '../../domain/provisioning.js';
import { SpotAdvisorService, type MarketQuery } from '../../spot-advisor.service.js';
import { InstanceControlService } from '../../instance-control.service.js';

const region = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be an AWS region such as us-east-1');
const names = z.array(z.string().min(1)).max(1000);
/** The internal commands (no gateway route validates them first): the caller is another service. */
const pricesInput = z.strictObject({ region: region.optional(), instanceTypes: names.optional(), zones: names.optional() });
const typesInput = z.strictObject({ region: region.optional(), instanceTypes: names.optional() });
const instanceId = z.string().regex(/^i-[0-9a-f]{8,17}$/, 'must be an EC2 instance id (i-…)');
const fenceInput = z.strictObject({ instanceId, action: z.enum(['stop', 'terminate']), force: z.boolean().default(true) });
const describeInput = z.strictObject({ instanceIds: z.array(instanceId).min(1).max(1000) });
const historyInput = z.strictObject({ region: region.optional(), instanceType: z.string().min(1) });

function parse<S extends z.ZodType>(schema: S, data: unknown, pattern: string): z.infer<S> {
  const r = schema.safeParse(data ?? {});
  if (r.success) return r.data;
  throw validationFailed(
    r.error.issues.map((i) => ({ in: 'query', field: i.path.join('.') || 'query', message: i.message })),
    pattern,
  );
}

/** SpotAdvisorCommands — the spot-advisor service's commands on `nodes-manager.spot-advisor`. Thin: parse, delegate. */
@CommandController()
export class SpotAdvisorCommands {
  constructor(
    @Inject(SpotAdvisorService) private readonly spot: SpotAdvisorService,
    @Inject(InstanceControlService) private readonly instances: InstanceControlService,
  ) {}

  /** spot.market — the gateway validated the query (GET /api/v1/spot/market). */
  @MessagePattern(Commands.spotMarket)
  market(@Payload() req: CommandRequest<MarketQuery>) {
    return this.spot.market(req.data ?? {});
  }

  /** spot.prices — `{ instanceTypes?, zones?, region? }` → PriceInfo per (type, zone), for scheduler-scoring. */
  @MessagePattern(Commands.spotPrices)
  prices(@Payload() req: CommandRequest) {
    return this.spot.spotPrices(parse(pricesInput, req.data, Commands.spotPrices));
  }

  /** spot.history — `{ instanceType, region? }` → that type's price points per zone over the window (GET /api/v1/spot/history). */
  @MessagePattern(Commands.spotHistory)
  history(@Payload() req: CommandRequest) {
    return this.spot.history(parse(historyInput, req.data, Commands.spotHistory));
  }

  /** instancetypes.list — `{ region?, instanceTypes? }` → the instance-type catalog. */
  @MessagePattern(Commands.instanceTypesList)
  instanceTypes(@Payload() req: CommandRequest) {
    return this.spot.instanceTypes(parse(typesInput, req.data, Commands.instanceTypesList));
  }

  /** instance.provision — the gateway validated the body (POST /api/v1/instances, write scope). */
  @MessagePattern(Commands.instanceProvision)
  provision(@Payload() req: CommandRequest<ProvisionRequest>) {
    return this.spot.provision(req.data, req.meta);
  }

  /** instance.fence — `{ instanceId, action: stop|terminate, force }`, from uncordon's fencing (docs/fencing.md). */
  @MessagePattern(Commands.instanceFence)
  fence(@Payload() req: CommandRequest) {
    return this.instances.fence(parse(fenceInput, req.data, Commands.instanceFence), req.meta);
  }

  /** instances.describe — `{ instanceIds }` → state and state reason of each, and the ids EC2 does not know. */
  @MessagePattern(Commands.instancesDescribe)
  describe(@Payload() req: CommandRequest) {
    return this.instances.describe(parse(describeInput, req.data, Commands.instancesDescribe).instanceIds);
  }
}
