import { commonShape, COMMON_SECRETS, defineConfigSpec, env, loadConfig } from '@nodes-manager/platform';

const { DATABASE_URL: _gatewayOwnsNoTables, ...shared } = commonShape;

/** api-gateway's configuration (README table). It owns no tables, so it needs no DATABASE_URL. */
export const apiGatewayConfigSpec = defineConfigSpec({
  service: 'api-gateway',
  shape: {
    ...shared,
    APP_PORT: env.port(8115),
    AUTH_WRITE_SCOPE: env.string().default('nodes:write'),
    AUTH_JWT_ISSUER: env.optionalString(),
    AUTH_JWT_AUDIENCE: env.optionalString(),
    /** Per-actor rate limits (docs/api.md, "Rate limits"): requests per RATE_LIMIT_WINDOW_SECONDS. */
    RATE_LIMIT_WINDOW_SECONDS: env.number({ dflt: 60, min: 1, max: 3600, int: true }),
    /** Requests to mutating routes (those that need the write scope) per actor and window. */
    RATE_LIMIT_WRITES: env.number({ dflt: 60, min: 1, max: 100000, int: true }),
    /** Requests to the expensive routes (drain, instances, simulate, optimize/trigger) per actor and window. */
    RATE_LIMIT_EXPENSIVE: env.number({ dflt: 20, min: 1, max: 100000, int: true }),
    /**
     * The Postgres database the gateway replicas share their rate-limit counts in (the system's database; the gateway
     * keeps one table there, `rate_limit_windows`). Unset: each replica counts on its own (docs/api.md#rate-limits).
     */
    RATE_LIMIT_DATABASE_URL: env.url(['postgres', 'postgresql']).optional(),
  },
  secrets: [...COMMON_SECRETS],
});

export type ApiGatewayConfig = ReturnType<typeof loadApiGatewayConfig>;
export const loadApiGatewayConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(apiGatewayConfigSpec, source);
