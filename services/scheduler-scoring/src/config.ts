import { validateWeights } from '@nodes-manager/scoring';
import { commonShape, COMMON_SECRETS, disruptionShape, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig } from '@nodes-manager/platform';

/** scheduler-scoring's configuration (README table). */
export const schedulerScoringConfigSpec = defineConfigSpec({
  service: 'scheduler-scoring',
  shape: {
    ...commonShape,
    ...disruptionShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['scheduler-scoring']),
    KUBECONFIG: env.optionalString(),
    OPTIMIZE_MODE: env.oneOf(['off', 'plan', 'execute'] as const, 'plan'),
    OPTIMIZE_MAX_DISRUPTIONS: env.number({ dflt: 1, min: 0, int: true }),
    OPTIMIZE_UTILIZATION_THRESHOLD: env.number({ dflt: 0.5, min: 0, max: 1 }),
    /** How long spot-advisor's instance-type catalog (EC2 DescribeInstanceTypes) is reused before it is asked again. */
    CATALOG_CACHE_SECONDS: env.number({ dflt: 300, min: 1, int: true }),
    SCORING_WEIGHTS: env.optionalString().superRefine((raw, ctx) => {
      const problem = weightsProblem(raw);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  },
  secrets: [...COMMON_SECRETS],
});

export type SchedulerScoringConfig = ReturnType<typeof loadSchedulerScoringConfig>;
export const loadSchedulerScoringConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(schedulerScoringConfigSpec, source);

/**
 * weightsProblem — why SCORING_WEIGHTS cannot be used, or undefined when it is absent or valid: JSON
 * `{resourceFit, zoneSpread, costEfficiency, interruptionRisk, dataLocality}`, non-negative, summing to 1.
 */
export function weightsProblem(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let w: unknown;
  try {
    w = JSON.parse(raw);
  } catch {
    return 'must be JSON such as {"resourceFit":0.35,"zoneSpread":0.25,"costEfficiency":0.2,"interruptionRisk":0.15,"dataLocality":0.05}';
  }
  if (!w || typeof w !== 'object' || Array.isArray(w)) return 'must be a JSON object of the five weights';
  const v = validateWeights(w as Record<string, number>);
  return v.ok ? undefined : v.message;
}
