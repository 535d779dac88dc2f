import { Commands, type InstancesDescribeReply, type InstanceState } from '@nodes-manager/contracts';
import { newMeta, type CommandBus } from '@nodes-manager/platform';

/** InstanceStatesAnswer — what spot-advisor (which owns EC2) said, or that EC2 is not configured, or no answer. */
export type InstanceStatesAnswer = { kind: 'states'; states: InstanceState[] } | { kind: 'not-configured' } | { kind: 'unavailable'; detail: string };

/** InstanceStates — EC2's view of instances, asked of spot-advisor over the command bus (port). */
export interface InstanceStates {
  states(instanceIds: readonly string[]): Promise<InstanceStatesAnswer>;
}

/** BusInstanceStates — spot-advisor's `instances.describe`; never throws (a failure is an answer too). */
export class BusInstanceStates implements InstanceStates {
  constructor(
    private readonly bus: CommandBus,
    private readonly timeoutMs = 5_000,
  ) {}

  async states(instanceIds: readonly string[]): Promise<InstanceStatesAnswer> {
    try {
      const reply = await this.bus.send(
        Commands.instancesDescribe,
        { instanceIds: [...instanceIds] },
        newMeta('system:uncordon'),
        { timeoutMs: this.timeoutMs },
      );
      // An id EC2 does not know any more says nothing about why it went: left out, the row waits and then is removed.
      const states = (reply.instances ?? []).map((i): InstanceState => ({ instanceId: i.instanceId, state: i.state, stateReasonCode: i.stateReasonCode, stateReasonMessage: null }));
      return { kind: 'states', states };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'AWS_NOT_CONFIGURED') return { kind: 'not-configured' };
      return { kind: 'unavailable', detail: `${code ?? 'ERROR'}: ${(err as Error).message}` };
    }
  }
}
