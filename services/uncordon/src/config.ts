import { assertRetention, commonShape, COMMON_SECRETS, disruptionShape, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig, retentionShape } from '@nodes-manager/platform';
import { DEFAULT_POOL_HEALTH_CONFIG } from '@nodes-manager/steering';
import { uncordonRetention } from './retention.js';

/** uncordon's configuration (README table). */
export const uncordonConfigSpec = defineConfigSpec({
  service: 'uncordon',
  shape: {
    ...commonShape,
    // The approval and maintenance-window gate of fencing (`fence`; docs/approvals.md).
    ...disruptionShape,
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
    // Fencing stops where both are passed (docs/fencing.md#limits): overall, per zone and per node pool.
    FENCING_MAX_UNHEALTHY_PERCENT: env.number({ dflt: 20, min: 0, max: 100 }),
    FENCING_MAX_UNHEALTHY_COUNT: env.number({ dflt: 5, min: 1, int: true }),
    FENCING_DRY_RUN: env.bool(false),
    FENCING_CONFIRM_TIMEOUT_SECONDS: env.number({ dflt: 300, min: 1, int: true }),
    FENCING_POD_DELETE_WAIT_SECONDS: env.number({ dflt: 30, min: 0, int: true }),
    // Pressure (PSI) watching (docs/pressure.md): only nodes labelled nodes-manager/pressure=watch|relieve.
    PRESSURE_INTERVAL_SECONDS: env.number({ dflt: 30, min: 1, int: true }),
    PRESSURE_CONCURRENCY: env.number({ dflt: 8, min: 1, max: 100, int: true }),
    PRESSURE_MEMORY_FULL_THRESHOLD: env.number({ dflt: 30, min: 0, max: 100 }),
    PRESSURE_SUSTAIN_SAMPLES: env.number({ dflt: 3, min: 1, int: true }),
    /** `fixed`: the configured grace for every pool. `learned`: a pool's p90 rebalance → interruption lead time, never less. */
    AUTO_UNCORDON_GRACE_MODE: env.oneOf(['fixed', 'learned'], 'fixed'),
    /** `learned` mode: lead times a pool needs before its grace is learned. */
    AUTO_UNCORDON_LEARNED_MIN_SAMPLES: env.number({ dflt: 10, min: 1, int: true }),
    /** The rebalance ledger's observation horizon: not interrupted within it = `survived`. Decimals allowed. */
    REBALANCE_HORIZON_HOURS: env.number({ dflt: 24, min: 0.001, max: 720 }),
    /** Read NTH's Kubernetes Events on Nodes (RebalanceRecommendation, SpotInterruption) as ledger evidence. */
    REBALANCE_EVENTS_ENABLED: env.bool(true),
    /** How far back the figures (summary, learned grace, spot-advisor's measured basis) look. */
    REBALANCE_FIGURES_DAYS: env.number({ dflt: 30, min: 1, max: 365 }),
    /** How long a gone node's ledger row waits for EC2's answer (through spot-advisor) before it is `removed` without one. */
    REBALANCE_EC2_WAIT_SECONDS: env.number({ dflt: 600, min: 1, int: true }),
    /** The state the fleet starts in (docs/pause.md#configuration): `true` pauses every disruptive action, applied when it changed. */
    DISRUPTION_PAUSE: env.bool(false),
    /** The reason recorded for a pause by DISRUPTION_PAUSE (default "paused by configuration"). */
    DISRUPTION_PAUSE_REASON: env.optionalString(),
    /**
     * Steering's window (karpenter-gateway's variable, read here too): the ledger is kept at least this long, as at least
     * REBALANCE_FIGURES_DAYS (docs/retention.md).
     */
    STEERING_WINDOW_HOURS: env.number({ dflt: DEFAULT_POOL_HEALTH_CONFIG.windowMs / 3_600_000, min: 0 }),
    /** How long each history table is kept (docs/retention.md). */
    ...retentionShape(uncordonRetention),
  },
  secrets: [...COMMON_SECRETS],
});

export type UncordonConfig = ReturnType<typeof loadUncordonConfig>;
export const loadUncordonConfig = (source: NodeJS.ProcessEnv = process.env) => assertRetention(uncordonRetention, loadConfig(uncordonConfigSpec, source));
