import { Inject, Injectable } from '@nestjs/common';
import type { CommandMeta } from '@nodes-manager/contracts';
import { CLOCK, validationFailed, type Clock } from '@nodes-manager/platform';
import { poolHealthConfigOf, type KarpenterGatewayConfig } from '../config.js';
import { replaySteering, type ReplayRow } from '../domain/replay-steering.js';
import { STEERING_SOURCES, type SteeringSources } from '../steering/steering-sources.adapter.js';
import { KARPENTER_GATEWAY_CONFIG } from '../tokens.js';

/** MAX_REPORT_DAYS — the longest window a report replays (the ledger read grows with it). */
export const MAX_REPORT_DAYS = 31;
/** REPORT_STEP_MS — between two looks at the fleet when no ledger event happens. */
const REPORT_STEP_MS = 15 * 60_000;

/**
 * SteeringReportService — `steering.report`: the assessment a team reads before it turns `STEERING_MODE=execute` on.
 * Loads the ledger rows the window needs (its look-back included) and the current prices, replays (pure), shapes the
 * answer. Reads only; nothing is recorded or written.
 */
@Injectable()
export class SteeringReportService {
  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG) private readonly config: KarpenterGatewayConfig,
    @Inject(STEERING_SOURCES) private readonly sources: SteeringSources,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async report(q: { from: string; to?: string }, meta: CommandMeta) {
    const from = new Date(q.from);
    const to = q.to ? new Date(q.to) : this.clock.now();
    if (!(from.getTime() < to.getTime())) throw validationFailed([{ in: 'command', field: q.to ? 'to' : 'from', message: q.to ? 'must be after from' : 'must be in the past' }]);
    if (to.getTime() - from.getTime() > MAX_REPORT_DAYS * 86_400_000) throw validationFailed([{ in: 'command', field: 'to', message: `must be at most ${MAX_REPORT_DAYS} days after from` }]);
    const cfg = poolHealthConfigOf(this.config);
    const rows = (await this.sources.ledger(new Date(from.getTime() - cfg.windowMs), meta)).filter((r) => new Date(r.seenAt).getTime() <= to.getTime()) as ReplayRow[];
    const { prices } = await this.sources.market(meta);
    const r = replaySteering({ rows, from, to, prices, config: cfg, maxAvoidPerHour: this.config.STEERING_MAX_AVOID_PER_HOUR, stepMs: REPORT_STEP_MS });
    return {
      from: r.from.toISOString(),
      to: r.to.toISOString(),
      pools: r.pools,
      interruptions: r.interruptions,
      extraCostUsd: r.extraCostUsd,
      unpriced: r.unpriced,
      sentence: r.sentence,
      avoided: r.avoided.map((a) => ({
        instanceType: a.pool.instanceType,
        zone: a.pool.zone,
        from: a.from.toISOString(),
        to: a.to?.toISOString() ?? null,
        why: a.why,
        interruptionsAvoided: a.interruptionsAvoided,
        nodeHours: a.nodeHours,
        extraUsdPerNodeHour: a.extraUsdPerNodeHour,
        extraUsd: a.extraUsd,
      })),
      config: {
        avoidShare: cfg.avoidShare,
        watchShare: cfg.watchShare,
        minSamples: cfg.minSamples,
        burstSize: cfg.burstSize,
        burstWindowMinutes: cfg.burstWindowMs / 60_000,
        coolOffHours: cfg.coolOffMs / 3_600_000,
        windowHours: cfg.windowMs / 3_600_000,
        maxAvoidPerHour: this.config.STEERING_MAX_AVOID_PER_HOUR,
      },
    };
  }
}
