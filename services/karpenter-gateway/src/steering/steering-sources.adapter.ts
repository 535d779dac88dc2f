import { Inject, Injectable } from '@nestjs/common';
import { Commands, type CommandMeta, type OptimizeReplaceRequest, type OptimizeReplaceResult } from '@nodes-manager/contracts';
import { COMMAND_BUS, type CommandBus } from '@nodes-manager/platform';
import { nameLabels, type LedgerRowLike, type Offering, type PoolPrice } from '@nodes-manager/steering';
import { poolKey } from '@nodes-manager/contracts';

/** The most ledger pages one pass reads (500 rows each): a bound, logged when reached. */
const MAX_PAGES = 200;

/** SteeringSources — what a steering pass reads from the other services (a port: tests hand-write one). */
export interface SteeringSources {
  /** The rebalance ledger's rows seen since `from` (uncordon, `rebalances.list`). */
  ledger(from: Date, meta: CommandMeta): Promise<LedgerRowLike[]>;
  /** Prices by pool and the offerings they make (spot-advisor, `spot.prices`): each priced pool, Spot and on-demand. */
  market(meta: CommandMeta): Promise<{ prices: Map<string, PoolPrice>; offerings: Offering[] }>;
}
export const STEERING_SOURCES = Symbol('STEERING_SOURCES');

/** CommandSteeringSources — {@link SteeringSources} over the command bus: services never read each other's tables. */
@Injectable()
export class CommandSteeringSources implements SteeringSources {
  constructor(@Inject(COMMAND_BUS) private readonly bus: CommandBus) {}

  async ledger(from: Date, meta: CommandMeta): Promise<LedgerRowLike[]> {
    const rows: LedgerRowLike[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const reply = await this.bus.send(Commands.rebalancesList, { limit: 500, from: from.toISOString(), ...(cursor ? { cursor } : {}) }, meta);
      rows.push(...reply.items);
      cursor = reply.nextCursor;
      if (!cursor) break;
    }
    return rows;
  }

  async market(meta: CommandMeta): Promise<{ prices: Map<string, PoolPrice>; offerings: Offering[] }> {
    const reply = await this.bus.send(Commands.spotPrices, {}, meta);
    return marketOf(reply.prices);
  }
}

/** OnDemandReplacer — where steering sends the on-demand nodes to move back to Spot (scheduler-scoring's optimizer). */
export interface OnDemandReplacer {
  replace(req: OptimizeReplaceRequest, meta: CommandMeta): Promise<OptimizeReplaceResult>;
}
export const ON_DEMAND_REPLACER = Symbol('ON_DEMAND_REPLACER');

/** CommandOnDemandReplacer — {@link OnDemandReplacer} over the command bus: `optimize.replace`, owned by scheduler-scoring. */
@Injectable()
export class CommandOnDemandReplacer implements OnDemandReplacer {
  constructor(@Inject(COMMAND_BUS) private readonly bus: CommandBus) {}

  replace(req: OptimizeReplaceRequest, meta: CommandMeta): Promise<OptimizeReplaceResult> {
    return this.bus.send(Commands.optimizeReplace, req, meta);
  }
}

/** marketOf — prices by pool, and a Spot and an on-demand offering for every pool with a price. */
export function marketOf(items: ReadonlyArray<{ instanceType: string; zone: string; spotUsdPerHour?: number; onDemandUsdPerHour?: number }>) {
  const prices = new Map<string, PoolPrice>();
  const offerings: Offering[] = [];
  for (const p of items) {
    prices.set(poolKey(p), { spotPerHour: p.spotUsdPerHour ?? null, onDemandPerHour: p.onDemandUsdPerHour ?? null });
    const labels = nameLabels(p.instanceType);
    offerings.push({ instanceType: p.instanceType, zone: p.zone, capacityType: 'spot', labels }, { instanceType: p.instanceType, zone: p.zone, capacityType: 'on-demand', labels });
  }
  return { prices, offerings };
}
