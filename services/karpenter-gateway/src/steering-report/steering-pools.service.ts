import { Inject, Injectable } from '@nestjs/common';
import { Commands, poolKey, type CommandMeta } from '@nodes-manager/contracts';
import { CLOCK, COMMAND_BUS, type Clock, type CommandBus } from '@nodes-manager/platform';
import type { KarpenterGatewayConfig } from '../config.js';
import { poolsView, type MarketPool, type StoredPoolHealth } from '../domain/pools-view.js';
import { SteeringService } from '../steering/steering.service.js';
import { KARPENTER_GATEWAY_CONFIG } from '../tokens.js';

/** RUNNING_WINDOW_MS — how far back a node counts as running in its pool for the view. */
const RUNNING_WINDOW_MS = 60_000;

interface PlanRow {
  nodePool: string;
  status?: string;
  detail?: string | null;
  plannedAt?: string | Date | null;
  sentence?: string;
  changes?: string[];
  fallback?: boolean;
  exclusions?: { kind: string; value: string; sentence: string }[];
  drift?: unknown;
}

/**
 * SteeringPoolsService — `steering.pools`: steering's last pass (its pools' health, its NodePool plans) with each
 * pool's price and expected cost (spot-advisor's `spot.prices`; without it, the prices the pass recorded) and the
 * countdown to each restore. Reads only.
 */
@Injectable()
export class SteeringPoolsService {
  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG) private readonly config: KarpenterGatewayConfig,
    @Inject(SteeringService) private readonly steering: SteeringService,
    @Inject(COMMAND_BUS) private readonly bus: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async pools(meta: CommandMeta) {
    const reply = await this.steering.status();
    // The pools' and plans' rows as steering stores them (the reply carries them as open objects).
    const status = { ...reply, pools: reply.pools as unknown as StoredPoolHealth[], nodePools: reply.nodePools as PlanRow[] };
    const market = new Map<string, MarketPool>();
    try {
      const reply = await this.bus.send(Commands.spotPrices, {}, meta, { timeoutMs: 3000 });
      for (const p of reply.prices) market.set(poolKey(p), p);
    } catch {
      // Prices as the last pass recorded them (in each pool's evidence) stand in.
    }
    const now = this.clock.now();
    const running = await this.running(now, meta);
    return {
      mode: status.mode,
      karpenterInstalled: status.karpenterInstalled,
      decidedAt: status.decidedAt ? new Date(status.decidedAt).toISOString() : null,
      asOf: now.toISOString(),
      disruptionCostUsd: this.config.SCORING_DISRUPTION_COST_USD,
      pools: poolsView(status.pools, market, now, { disruptionCostUsd: this.config.SCORING_DISRUPTION_COST_USD, minSamples: this.config.STEERING_MIN_SAMPLES }, running),
      nodePools: status.nodePools.map((p) => ({
        nodePool: p.nodePool,
        status: p.status ?? 'planned',
        sentence: p.sentence ?? p.detail ?? '',
        // Why the plan is in its status (the pause that holds it, its window, its approval), when it says more.
        ...(p.detail && p.sentence && p.detail !== p.sentence ? { detail: p.detail } : {}),
        changes: p.changes ?? [],
        fallback: p.fallback === true,
        plannedAt: p.plannedAt ? new Date(p.plannedAt).toISOString() : null,
        excluded: (p.exclusions ?? []).map((e) => ({ kind: e.kind, value: e.value, sentence: e.sentence })),
        // The running nodes the write would drift (libs/steering DriftForecast); null when the plan has none.
        drift: p.drift ?? null,
      })),
    };
  }

  /**
   * running — the Spot nodes per pool now: node-sync's `nodehours.list` over the last minute (the Node objects that
   * lived in each pool then). Null when node-sync does not answer: the view then cannot tell the pools in use.
   */
  private async running(now: Date, meta: CommandMeta): Promise<Map<string, number> | null> {
    try {
      const from = new Date(now.getTime() - RUNNING_WINDOW_MS).toISOString();
      const reply = await this.bus.send(Commands.nodeHoursList, { from, to: now.toISOString(), capacityType: 'spot' }, meta, { timeoutMs: 3000 });
      const out = new Map<string, number>();
      for (const p of reply.pools) {
        if (!p.instanceType || !p.zone || p.nodes === 0) continue;
        const key = poolKey({ instanceType: p.instanceType, zone: p.zone });
        out.set(key, (out.get(key) ?? 0) + p.nodes);
      }
      return out;
    } catch {
      return null;
    }
  }
}
