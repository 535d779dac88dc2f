import { commonShape, COMMON_SECRETS, disruptionShape, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig } from '@nodes-manager/platform';

/** karpenter-gateway's configuration (README table). */
export const karpenterGatewayConfigSpec = defineConfigSpec({
  service: 'karpenter-gateway',
  shape: {
    ...commonShape,
    ...disruptionShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['karpenter-gateway']),
    KUBECONFIG: env.optionalString(),
    KARPENTER_DISCOVERY_CACHE_SECONDS: env.number({ dflt: 30, min: 1, int: true }),
  },
  secrets: [...COMMON_SECRETS],
});

export type KarpenterGatewayConfig = ReturnType<typeof loadKarpenterGatewayConfig>;
export const loadKarpenterGatewayConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(karpenterGatewayConfigSpec, source);
