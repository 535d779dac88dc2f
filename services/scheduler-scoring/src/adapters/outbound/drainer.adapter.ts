import { Commands, type CommandMeta, type DrainRequest } from '@nodes-manager/contracts';
import type { CommandBus } from '@nodes-manager/platform';

/** DrainHandle — what the uncordon service answers for a drain operation (the fields read here). */
export interface DrainHandle {
  readonly id: string;
  readonly node: string;
  readonly status: string;
  readonly reason?: string;
}

/** Drainer — drains through the uncordon service, which owns every change to a node's schedulability (port). */
export interface Drainer {
  drain(node: string, meta: CommandMeta): Promise<DrainHandle>;
  get(id: string, meta: CommandMeta): Promise<DrainHandle>;
}

/** BusDrainer — `node.drain` / `drain.get` on the command bus. */
export class BusDrainer implements Drainer {
  constructor(
    private readonly bus: CommandBus,
    private readonly timeoutSeconds = 600,
  ) {}
  drain(node: string, meta: CommandMeta): Promise<DrainHandle> {
    const req: DrainRequest = { node, timeoutSeconds: this.timeoutSeconds, force: false, deleteEmptyDirData: false };
    return this.bus.send(Commands.nodeDrain, req, meta);
  }
  get(id: string, meta: CommandMeta): Promise<DrainHandle> {
    return this.bus.send(Commands.drainGet, { id }, meta);
  }
}
