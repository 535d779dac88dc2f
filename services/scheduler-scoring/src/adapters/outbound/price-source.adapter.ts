import { Commands, INSTANCE_TYPES, type CommandMeta } from '@nodes-manager/contracts';
import type { CommandBus, JsonLogger } from '@nodes-manager/platform';
import { catalogOnDemand, withExpectedCosts, type ExpectedCostConfig, type InterruptionBucket, type PriceInfo } from '@nodes-manager/scoring';
import type { PriceSnapshot } from '../../domain/cluster.js';
import { poolKey } from '@nodes-manager/contracts';

/** PriceSource — prices for scoring, simulate and consolidation (port). */
export interface PriceSource {
  prices(zones: readonly string[], meta: CommandMeta): Promise<PriceSnapshot>;
}

interface SpotPricesReply {
  prices?: { instanceType: string; zone: string; spotUsdPerHour?: number; onDemandUsdPerHour?: number; interruptionBucket?: InterruptionBucket; measured?: { samples: number; interrupted: number; share: number } }[];
}

/**
 * bundledPrices — the On-Demand catalog in @nodes-manager/contracts for the given zones of the region it covers
 * (elsewhere nothing is known); Spot unknown (so
 * scoring treats Spot cost as unknown and simulate buys On-Demand only), never invented.
 */
export function bundledPrices(zones: readonly string[]): Map<string, PriceInfo> {
  const table = new Map<string, PriceInfo>();
  for (const t of INSTANCE_TYPES) {
    for (const z of zones) {
      const od = catalogOnDemand(t, z);
      if (od !== undefined) table.set(poolKey({ instanceType: t.name, zone: z }), { onDemandUsdPerHour: od });
    }
  }
  return table;
}

/**
 * BusPriceSource — spot-advisor's `spot.prices` over the command bus, merged over the bundled catalog (a type
 * spot-advisor does not know keeps its catalog On-Demand price); the bundled table alone when spot-advisor does
 * not answer (absent, timing out, erroring) — the answer says which (`source`, `detail`).
 */
export class BusPriceSource implements PriceSource {
  constructor(
    private readonly bus: CommandBus,
    private readonly logger: JsonLogger,
    private readonly timeoutMs = 5000,
    /** With it, every Spot price gains its expected cost; pools measured with enough samples are judged on it. */
    private readonly expected?: ExpectedCostConfig,
  ) {}

  async prices(zones: readonly string[], meta: CommandMeta): Promise<PriceSnapshot> {
    const table = bundledPrices(zones);
    try {
      const reply = await this.bus.send(Commands.spotPrices, zones.length > 0 ? { zones: [...zones] } : {}, meta, { timeoutMs: this.timeoutMs });
      for (const p of reply?.prices ?? []) {
        const key = poolKey({ instanceType: p.instanceType, zone: p.zone });
        const prev = table.get(key);
        table.set(key, {
          ...prev,
          ...(p.spotUsdPerHour !== undefined ? { spotUsdPerHour: p.spotUsdPerHour } : {}),
          ...(p.onDemandUsdPerHour !== undefined ? { onDemandUsdPerHour: p.onDemandUsdPerHour } : {}),
          ...(p.interruptionBucket !== undefined ? { interruptionBucket: p.interruptionBucket } : {}),
          ...(p.measured ? { measured: p.measured } : {}),
        });
      }
      return { table: this.expected ? withExpectedCosts(table, this.expected) : table, source: 'spot-advisor' };
    } catch (err) {
      const detail = `${(err as { code?: string }).code ?? 'ERROR'}: ${(err as Error).message}`;
      this.logger.debug('spot-advisor prices unavailable, using the bundled catalog', { reason: detail });
      return { table, source: 'bundled-catalog', detail };
    }
  }
}
