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
  },
  secrets: [...COMMON_SECRETS],
});

export type ApiGatewayConfig = ReturnType<typeof loadApiGatewayConfig>;
export const loadApiGatewayConfig = (source: NodeJS.ProcessEnv = process.env) => loadConfig(apiGatewayConfigSpec, source);
