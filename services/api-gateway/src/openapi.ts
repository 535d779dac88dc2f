import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { BEARER_SCHEME, ERROR_BODY_SCHEMA } from './adapters/inbound/api-docs.js';
import { ApiGatewayModule } from './api-gateway.module.js';

/** Where the Swagger UI is served; the document itself is at `${OPENAPI_PATH}-json` (and `-yaml`). */
export const OPENAPI_PATH = 'api/docs';

/**
 * buildOpenApiDocument — OpenAPI 3.1 of every route the gateway serves, from the controllers' decorators
 * (adapters/inbound/api-docs.ts). Only the gateway's module is scanned: in all-in-one mode the other services'
 * modules are in the same app but serve no REST routes of their own.
 */
export function buildOpenApiDocument(app: INestApplication, version = '0.1.0'): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('nodes-manager API')
    .setDescription(
      [
        'The REST API of nodes-manager (the api-gateway; docs/api.md). Every route but `/healthz`, `/readyz`, `/metrics` and these docs needs a',
        'bearer JWT (HS256, with `sub` and `exp`); mutating routes also need the write scope (`nodes:write` by default) in `scope`, `scopes` or `roles`.',
        'Every failure is `{code, message, details?}` with the status the code maps to. Lists are pages: `limit` (1–500, default 50) and an',
        'opaque `cursor` taken from the previous page’s `nextCursor`. See docs/api.md; events are described in docs/asyncapi.yaml.',
      ].join(' '),
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'HS256 token signed with AUTH_JWT_ACCESS_SECRET' }, BEARER_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config, { include: [ApiGatewayModule] });
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ErrorBody: ERROR_BODY_SCHEMA as never } };
  return document;
}

/**
 * setupOpenApi — serves the Swagger UI at `/api/docs` and the document at `/api/docs-json` (no token needed: these
 * routes are registered on the HTTP adapter, outside the controllers the JWT guard protects). Call after the app is
 * created and before it listens (or initialises): routes added later would sit behind Nest's 404 handler.
 */
export function setupOpenApi(app: INestApplication, version?: string): OpenAPIObject {
  const document = buildOpenApiDocument(app, version);
  SwaggerModule.setup(OPENAPI_PATH, app, document, {
    jsonDocumentUrl: `${OPENAPI_PATH}-json`,
    yamlDocumentUrl: `${OPENAPI_PATH}-yaml`,
    customSiteTitle: 'nodes-manager API',
    swaggerOptions: { persistAuthorization: true },
  });
  return document;
}
