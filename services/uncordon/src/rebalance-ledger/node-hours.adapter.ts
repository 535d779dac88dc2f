import { Commands, type PoolNodeHours } from '@nodes-manager/contracts';
import { newMeta, type CommandBus } from '@nodes-manager/platform';

/** NodeHoursAnswer — node-sync's node-hours per pool, or why there are none. */
export type NodeHoursAnswer = { kind: 'hours'; pools: readonly PoolNodeHours[] } | { kind: 'unavailable'; detail: string };

/** NodeHours — node-hours per Spot pool over a window, asked of node-sync, which keeps when each node came and went (port). */
export interface NodeHours {
  spot(from: Date, to: Date): Promise<NodeHoursAnswer>;
}

/** BusNodeHours — node-sync's `nodehours.list` over the command bus (services never read each other's tables); never throws. */
export class BusNodeHours implements NodeHours {
  constructor(
    private readonly bus: CommandBus,
    private readonly timeoutMs = 5_000,
  ) {}

  async spot(from: Date, to: Date): Promise<NodeHoursAnswer> {
    try {
      const reply = await this.bus.send(Commands.nodeHoursList, { from: from.toISOString(), to: to.toISOString(), capacityType: 'spot' }, newMeta('system:uncordon'), {
        timeoutMs: this.timeoutMs,
      });
      return { kind: 'hours', pools: reply.pools };
    } catch (err) {
      const code = (err as { code?: string }).code;
      return { kind: 'unavailable', detail: `node-sync did not answer (${code ?? 'ERROR'}: ${(err as Error).message})` };
    }
  }
}
