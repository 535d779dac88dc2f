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
    // Fencing of hung nodes through EC2 (docs/fencing.md): only nodes labelled nodes-manager/fencing=enabled.
    FENCING_ENABLED: env.bool(true),
    FENCING_ACTION: env.oneOf(['stop', 'terminate'] as const, 'stop'),
    FENCING_LEASE_TIMEOUT_SECONDS: env.number({ dflt: 60, min: 0, int: true }),
    FENCING_MAX_UNHEALTHY_PERCENT: env.number({ dflt: 20, min: 0, max: 100 }),
    FENCING_DRY_RUN: env.bool(false),
    FENCING_CONFIRM_TIMEOUT_SECONDS: env.number({ dflt: 300, min: 1, int: true }),
    FENCING_POD_DELETE_WAIT_SECONDS: env.number({ dflt: 30, min: 0, int: true }),
    // Pressure (PSI) watching (docs/pressure.md): only nodes labelled nodes-manager/pressure=watch|relieve.
    PRESSURE_INTERVAL_SECONDS: env.number({ dflt: 30, min: 1, int: true }),
    PRESSURE_CONCURRENCY: env.number({ dflt: 8, min: 1, max: 100, int: true }),
    PRESSURE_MEMORY_FULL_THRESHOLD: env.number({ dflt: 30, min: 0, max: 100 }),
    PRESSURE_SUSTAIN_SAMPLES: env.number({ dflt: 3, min: 1, int: true }),
  },
  secrets: [...COMMON_SECRETS],
});

export type UncordonConfig = ReturnType<typeof loadUncordonConfig>;
export const loadUncordonConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(uncordonConfigSpec, source);
