import { commonShape, COMMON_SECRETS, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig } from '@nodes-manager/platform';

/** uncordon's configuration (README table). */
export const uncordonConfigSpec = defineConfigSpec({
  service: 'uncordon',
  shape: {
    ...commonShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['uncordon']),
    KUBECONFIG: env.optionalString(),
    AUTO_UNCORDON_ENABLED: env.bool(true),
    AUTO_UNCORDON_GRACE_PERIOD_MINUTES: env.number({ dflt: 15, min: 0 }),
    AUTO_UNCORDON_CORDON_MANAGERS: env.list(['node-termination-handler']),
    AUTO_UNCORDON_MAX_PER_CYCLE: env.number({ dflt: 5, min: 1, int: true }),
    AUTO_UNCORDON_DRY_RUN: env.bool(false),
    DRAIN_TIMEOUT_SECONDS: env.number({ dflt: 600, min: 1, int: true }),
  },
  secrets: [...COMMON_SECRETS],
});

export type UncordonConfig = ReturnType<typeof loadUncordonConfig>;
export const loadUncordonConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(uncordonConfigSpec, source);
