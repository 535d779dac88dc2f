import { commonShape, COMMON_SECRETS, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig } from '@nodes-manager/platform';

/** spot-advisor's configuration (README table). */
export const spotAdvisorConfigSpec = defineConfigSpec({
  service: 'spot-advisor',
  shape: {
    ...commonShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['spot-advisor']),
    AWS_REGION: env.optionalString(),
    AWS_ACCESS_KEY_ID: env.optionalString(),
    AWS_SECRET_ACCESS_KEY: env.optionalString(),
    SPOT_PRICE_CACHE_SECONDS: env.number({ dflt: 300, min: 1, int: true }),
  },
  secrets: [...COMMON_SECRETS, 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
});

export type SpotAdvisorConfig = ReturnType<typeof loadSpotAdvisorConfig>;
export const loadSpotAdvisorConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(spotAdvisorConfigSpec, source);
