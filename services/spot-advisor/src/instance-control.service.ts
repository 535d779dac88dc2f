import { Inject, Injectable } from '@nestjs/common';
import type { CommandMeta, InstanceFenceReply, InstanceFenceRequest, InstancesDescribeReply } from '@nodes-manager/contracts';
import { CodedError, LOGGER, type JsonLogger } from '@nodes-manager/platform';
import { awsConfigProblem, SPOT_ADVISOR_CONFIG, type SpotAdvisorConfig } from './config.js';
import { Ec2Error } from './adapters/outbound/ec2.adapter.js';
import { Ec2Regions } from './adapters/outbound/ec2-regions.adapter.js';
import { EC2_REGIONS } from './spot-advisor.service.js';

/**
 * InstanceControlService — the EC2 instance calls other services need because spot-advisor owns EC2: stopping or
 * terminating a hung node's instance for fencing (uncordon asks, docs/fencing.md) and reading instances' states.
 * Always in the configured AWS_REGION; every failure leaves as a CodedError with EC2's own code in `details`.
 */
@Injectable()
export class InstanceControlService {
  constructor(
    @Inject(SPOT_ADVISOR_CONFIG) private readonly config: SpotAdvisorConfig,
    @Inject(EC2_REGIONS) private readonly ec2: Ec2Regions,
    @Inject(LOGGER) private readonly logger: JsonLogger,
  ) {}

  async fence(req: InstanceFenceRequest, meta: CommandMeta): Promise<InstanceFenceReply> {
    const region = this.region();
    try {
      const r = await this.ec2.for(region).fenceInstance(req.instanceId, req.action, req.force);
      this.logger.info(`instance ${req.action} requested`, { instanceId: req.instanceId, force: req.force, actor: meta.actor, correlationId: meta.correlationId, ...r });
      return { instanceId: req.instanceId, ...r };
    } catch (e) {
      throw coded(e);
    }
  }

  async describe(instanceIds: readonly string[]): Promise<InstancesDescribeReply> {
    const region = this.region();
    try {
      return await this.ec2.for(region).describeInstanceStates(instanceIds);
    } catch (e) {
      throw coded(e);
    }
  }

  private region(): string {
    const problem = awsConfigProblem(this.config);
    if (problem) throw new CodedError('AWS_NOT_CONFIGURED', `EC2 is not configured: ${problem.message}`, { missing: problem.missing });
    return this.config.AWS_REGION!;
  }
}

const coded = (e: unknown): CodedError => (e instanceof Ec2Error ? new CodedError(e.code, e.message, e.details) : CodedError.from(e));
