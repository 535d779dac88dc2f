import { commonShape, COMMON_SECRETS, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig } from '@nodes-manager/platform';

/** scheduler-scoring's configuration (README table). */
export const schedulerScoringConfigSpec = defineConfigSpec({
  service: 'scheduler-scoring',
  shape: {
    ...commonShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['scheduler-scoring']),
    KUBECONFIG: env.optionalString(),
    OPTIMIZE_MODE: env.oneOf(['off', 'plan', 'execute'] as const, 'plan'),
    OPTIMIZE_MAX_DISRUPTIONS: env.number({ dflt: 1, min: 0, int: true }),
    OPTIMIZE_UTILIZATION_THRESHOLD: env.number({ dflt: 0.5, min: 0, max: 1 }),
    SCORING_WEIGHTS: env.optionalString(),
  },
  secrets: [...COMMON_SECRETS],
});

export type SchedulerScoringConfig = ReturnType<typeof loadSchedulerScoringConfig>;
export const loadSchedulerScoringConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(schedulerScoringConfigSpec, source);
