import { assertRetention, commonShape, COMMON_SECRETS, ConfigError, disruptionShape, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig, retentionShape } from '@nodes-manager/platform';
import { karpenterGatewayRetention } from './retention.js';
import { DEFAULT_POOL_HEALTH_CONFIG as D, validatePoolHealthConfig, type PoolHealthConfig } from '@nodes-manager/steering';

/** karpenter-gateway's configuration (README table). The STEERING_* variables: docs/steering.md#configuration. */
export const karpenterGatewayConfigSpec = defineConfigSpec({
  service: 'karpenter-gateway',
  shape: {
    ...commonShape,
    ...disruptionShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['karpenter-gateway']),
    KUBECONFIG: env.optionalString(),
    KARPENTER_DISCOVERY_CACHE_SECONDS: env.number({ dflt: 30, min: 1, int: true }),
    /** The cost of one Spot interruption in a pool's expected cost, as scheduler-scoring counts it (docs/scoring.md#expected-cost). */
    SCORING_DISRUPTION_COST_USD: env.number({ dflt: 1, min: 0 }),
    /** `off`: no steering pass; `plan` (default): decide and record, write nothing; `execute`: write through approvals. */
    STEERING_MODE: env.oneOf(['off', 'plan', 'execute'] as const, 'plan'),
    /** How often a steering pass runs. */
    STEERING_INTERVAL_SECONDS: env.number({ dflt: 60, min: 1, int: true }),
    STEERING_AVOID_SHARE: env.number({ dflt: D.avoidShare, min: 0, max: 1 }),
    STEERING_WATCH_SHARE: env.number({ dflt: D.watchShare, min: 0, max: 1 }),
    STEERING_MIN_SAMPLES: env.number({ dflt: D.minSamples, min: 1, int: true }),
    STEERING_BURST_SIZE: env.number({ dflt: D.burstSize, min: 2, int: true }),
    STEERING_BURST_WINDOW_MINUTES: env.number({ dflt: D.burstWindowMs / 60_000, min: 0 }),
    STEERING_COOL_OFF_HOURS: env.number({ dflt: D.coolOffMs / 3_600_000, min: 0 }),
    /** The longest cool-off: it doubles with each earlier burst of the pool within the window, up to this. */
    STEERING_COOL_OFF_MAX_HOURS: env.number({ dflt: D.coolOffMaxMs / 3_600_000, min: 0 }),
    STEERING_WINDOW_HOURS: env.number({ dflt: D.windowMs / 3_600_000, min: 0 }),
    STEERING_PRICE_WATCH_RATIO: env.number({ dflt: D.priceWatchRatio, min: 0, max: 2 }),
    /** Rail: at most this many pools enter `avoid` per hour. */
    STEERING_MAX_AVOID_PER_HOUR: env.number({ dflt: 3, min: 0, int: true }),
    /** Rail: the share of a NodePool's offerings steering may exclude (the on-demand fallback is exempt). */
    STEERING_MAX_EXCLUDED_SHARE: env.number({ dflt: 0.5, min: 0, max: 1 }),
    /** Rail: a NodePool's cheapest Spot offerings that are not avoided, never excluded (0: none kept). */
    STEERING_KEEP_CHEAPEST: env.number({ dflt: 3, min: 0, int: true }),
    /** How often the leader publishes `cluster.heartbeat` with the cluster's counts (docs/fleet.md#the-cluster-heartbeat). */
    CLUSTER_HEARTBEAT_INTERVAL_SECONDS: env.number({ dflt: 60, min: 1, int: true }),
    /** How long NodePool changes, pool-health transitions and approvals are kept (docs/retention.md). */
    ...retentionShape(karpenterGatewayRetention),
  },
  secrets: [...COMMON_SECRETS],
});


export type KarpenterGatewayConfig = ReturnType<typeof loadConfig<typeof karpenterGatewayConfigSpec.shape>>;

/** poolHealthConfigOf — the pool-health rule's thresholds from the validated variables. */
export function poolHealthConfigOf(c: KarpenterGatewayConfig): PoolHealthConfig {
  return {
    avoidShare: c.STEERING_AVOID_SHARE,
    watchShare: c.STEERING_WATCH_SHARE,
    minSamples: c.STEERING_MIN_SAMPLES,
    burstSize: c.STEERING_BURST_SIZE,
    burstWindowMs: c.STEERING_BURST_WINDOW_MINUTES * 60_000,
    coolOffMs: c.STEERING_COOL_OFF_HOURS * 3_600_000,
    coolOffMaxMs: c.STEERING_COOL_OFF_MAX_HOURS * 3_600_000,
    windowMs: c.STEERING_WINDOW_HOURS * 3_600_000,
    priceWatchRatio: c.STEERING_PRICE_WATCH_RATIO,
  };
}

/**
 * assertSteeringConfig — the pool-health rule's cross-checks (watch below avoid, a window longer than the cool-off):
 * a ConfigError naming each variable, which refuses the start. Run by the loader and by the module (split mode).
 */
export function assertSteeringConfig<C extends Parameters<typeof poolHealthConfigOf>[0]>(c: C): C {
  const problems = validatePoolHealthConfig(poolHealthConfigOf(c));
  if (problems.length > 0) throw new ConfigError('karpenter-gateway', problems.map((p) => ({ variable: p.split(' ')[0]!, problem: p })));
  return c;
}

export const loadKarpenterGatewayConfig = (source: NodeJS.ProcessEnv = process.env) => assertRetention(karpenterGatewayRetention, assertSteeringConfig(loadConfig(karpenterGatewayConfigSpec, source)));
