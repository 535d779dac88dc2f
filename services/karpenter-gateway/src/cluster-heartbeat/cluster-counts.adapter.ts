import { Inject, Injectable } from '@nestjs/common';
import { Commands, type CommandMeta } from '@nodes-manager/contracts';
import { COMMAND_BUS, type CommandBus } from '@nodes-manager/platform';
import { countNodes } from '../domain/cluster-heartbeat.js';

/** The most pages one count reads (500 items each, so 100,000 nodes): a bound, so a beat always ends. */
const MAX_PAGES = 200;

/** ClusterCountSources — the counts a beat asks of their owners (a port: tests may hand-write one). */
export interface ClusterCountSources {
  /** Nodes and Spot nodes, from node-sync's `nodes.list` (deleted nodes left out). */
  nodes(meta: CommandMeta): Promise<{ total: number; spot: number }>;
  /** Cordoned nodes uncordon waits on, from uncordon's `cordons.list` with verdict `wait`. */
  cordonsWaiting(meta: CommandMeta): Promise<number>;
}
export const CLUSTER_COUNT_SOURCES = Symbol('CLUSTER_COUNT_SOURCES');

/** CommandClusterCounts — {@link ClusterCountSources} over the command bus: services never read each other's tables. */
@Injectable()
export class CommandClusterCounts implements ClusterCountSources {
  constructor(@Inject(COMMAND_BUS) private readonly bus: CommandBus) {}

  async nodes(meta: CommandMeta): Promise<{ total: number; spot: number }> {
    const all: { capacityType: string | null }[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await this.bus.send(Commands.nodesList, { limit: 500, sort: 'name', ...(cursor ? { cursor } : {}) }, meta);
      all.push(...reply.items.map((n) => ({ capacityType: n.capacityType })));
      cursor = reply.nextCursor;
      if (!cursor) break;
    }
    return countNodes(all);
  }

  async cordonsWaiting(meta: CommandMeta): Promise<number> {
    let n = 0;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await this.bus.send(Commands.cordonsList, { limit: 500, verdict: 'wait', ...(cursor ? { cursor } : {}) }, meta);
      n += reply.items.length;
      cursor = reply.nextCursor;
      if (!cursor) break;
    }
    return n;
  }
}
