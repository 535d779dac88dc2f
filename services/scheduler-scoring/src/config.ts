import { z } from 'zod';
import { validateWeights, type ScoringWeights } from '@nodes-manager/scoring';
import { assertRetention, commonShape, COMMON_SECRETS, disruptionShape, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig, retentionShape } from '@nodes-manager/platform';
import { schedulerScoringRetention } from './retention.js';

/** scheduler-scoring's configuration (README table). */
export const schedulerScoringConfigSpec = defineConfigSpec({
  service: 'scheduler-scoring',
  shape: {
    ...commonShape,
    ...disruptionShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['scheduler-scoring']),
    KUBECONFIG: env.optionalString(),
    OPTIMIZE_MODE: env.oneOf(['off', 'plan', 'execute'] as const, 'plan'),
    // The optimizer's drain budget in two numbers (docs/fencing.md#limits): more in flight than the count *and* than the
    // percentage of the cluster's nodes, and no drain starts. The default percentage (0) leaves the count alone.
    OPTIMIZE_MAX_DISRUPTIONS: env.number({ dflt: 1, min: 0, int: true }),
    OPTIMIZE_MAX_DISRUPTIONS_PERCENT: env.number({ dflt: 0, min: 0, max: 100 }),
    OPTIMIZE_UTILIZATION_THRESHOLD: env.number({ dflt: 0.5, min: 0, max: 1 }),
    /**
     * How old a node's `DisruptionBlockedByPDB` Event may grow while the plan still keeps it before it is counted once
     * more (docs/pause.md#blocked): under the API server's Event TTL (1 h by default), so a blocked node keeps a live Event.
     */
    PDB_BLOCKED_EVENT_REFRESH_MINUTES: env.number({ dflt: 30, min: 0.01, max: 1440 }),
    /** How long spot-advisor's instance-type catalog (EC2 DescribeInstanceTypes) is reused before it is asked again. */
    CATALOG_CACHE_SECONDS: env.number({ dflt: 300, min: 1, int: true }),
    /** The cost of one Spot interruption (a replacement node's start, work redone), added to a measured pool's price × its rate (docs/scoring.md#expected-cost). */
    SCORING_DISRUPTION_COST_USD: env.number({ dflt: 1, min: 0 }),
    /** Rebalances with a known follow-up a pool needs before scoring and simulate use its measured interruptions. */
    SCORING_MEASURED_MIN_SAMPLES: env.number({ dflt: 20, min: 1, int: true }),
    /** Parsed here, once: the service takes the weights from its config. */
    SCORING_WEIGHTS: env.optionalString().transform((raw, ctx) => {
      const parsed = parseWeights(raw);
      if (parsed.ok) return parsed.weights;
      ctx.addIssue({ code: 'custom', message: parsed.problem });
      return z.NEVER;
    }),
    /** How long the decision log, plans and approvals are kept (docs/retention.md). */
    ...retentionShape(schedulerScoringRetention),
  },
  secrets: [...COMMON_SECRETS],
});

export type SchedulerScoringConfig = ReturnType<typeof loadSchedulerScoringConfig>;
export const loadSchedulerScoringConfig = (source: NodeJS.ProcessEnv = process.env) => assertRetention(schedulerScoringRetention, loadConfig(schedulerScoringConfigSpec, source));

/**
 * parseWeights — SCORING_WEIGHTS: absent (the default weights), or JSON `{resourceFit, zoneSpread, costEfficiency,
 * interruptionRisk, dataLocality}`, non-negative, summing to 1; otherwise why not.
 */
export function parseWeights(raw: string | undefined): { ok: true; weights: ScoringWeights | undefined } | { ok: false; problem: string } {
  if (raw === undefined) return { ok: true, weights: undefined };
  let w: unknown;
  try {
    w = JSON.parse(raw);
  } catch {
    return { ok: false, problem: 'must be JSON such as {"resourceFit":0.35,"zoneSpread":0.25,"costEfficiency":0.2,"interruptionRisk":0.15,"dataLocality":0.05}' };
  }
  if (!w || typeof w !== 'object' || Array.isArray(w)) return { ok: false, problem: 'must be a JSON object of the five weights' };
  const v = validateWeights(w as Record<string, number>);
  return v.ok ? { ok: true, weights: w as ScoringWeights } : { ok: false, problem: v.message };
}
