import { Commands, poolKey, type PoolFigures, type RebalancesSummary } from '@nodes-manager/contracts';
import { newMeta, type Clock, type CommandBus, type JsonLogger } from '@nodes-manager/platform';

/** MeasuredPools — the rebalance ledger's per-pool figures as spot-advisor last heard them. */
export interface MeasuredPools {
  readonly pools: ReadonlyMap<string, PoolFigures>;
  readonly horizonHours: number;
  /** ISO 8601 of the answer these figures come from; null before any. */
  readonly asOf: string | null;
  /** Why the figures are missing or old (uncordon down, timing out…). */
  readonly detail?: string;
}

/**
 * BusMeasuredRebalances — uncordon's `rebalances.summary` over the command bus (the ledger is uncordon's table; we
 * never read it), cached for `ttlMs`. When uncordon does not answer, the last answer is served with a `detail`;
 * the market never fails for want of it.
 */
export class BusMeasuredRebalances {
  private last?: { at: number; value: MeasuredPools };
  private inFlight?: Promise<MeasuredPools>;

  constructor(
    private readonly bus: CommandBus,
    private readonly clock: Clock,
    private readonly logger: JsonLogger,
    private readonly ttlMs: number,
    private readonly timeoutMs = 2_000,
  ) {}

  /**
   * peek — the last figures at once (none yet: empty), refreshing them in the background when they are older than
   * the TTL: for `spot.prices`, which scheduler-scoring waits on, so that it never waits on uncordon as well.
   */
  peek(): MeasuredPools {
    const now = this.clock.now().getTime();
    if (!this.last || now - this.last.at >= this.ttlMs) void this.get();
    return this.last?.value ?? { pools: new Map(), horizonHours: 24, asOf: null, detail: 'not asked yet' };
  }

  async get(): Promise<MeasuredPools> {
    const now = this.clock.now().getTime();
    if (this.last && now - this.last.at < this.ttlMs) return this.last.value;
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.fetch(now).finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async fetch(now: number): Promise<MeasuredPools> {
    try {
      const s = await this.bus.send(Commands.rebalancesSummary, {}, newMeta('system:spot-advisor'), { timeoutMs: this.timeoutMs });
      const value: MeasuredPools = { pools: new Map(s.byPool.map((p) => [poolKey({ instanceType: p.instanceType ?? '?', zone: p.zone ?? '?' }), p])), horizonHours: s.horizonHours, asOf: s.to };
      this.last = { at: now, value };
      return value;
    } catch (err) {
      const detail = `${(err as { code?: string }).code ?? 'ERROR'}: ${(err as Error).message}`;
      this.logger.debug('rebalance figures unavailable', { reason: detail });
      const stale = this.last?.value ?? { pools: new Map(), horizonHours: 24, asOf: null };
      this.last = { at: now, value: { ...stale, detail } };
      return this.last.value;
    }
  }
}
