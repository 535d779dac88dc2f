import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { BEARER_SCHEME, ERROR_BODY_SCHEMA, ROUTE_OWNERS, type RouteTag } from './adapters/inbound/api-docs.js';
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
        'Every failure is an `ErrorBody` `{code, message, details?, requestId}` with the status the code maps to; a bad input is a 400 naming the',
        'parameter or field (`details.errors[].field`). Every answer carries `X-Request-Id` (yours, or a new one). Lists are pages: `limit` (1–500,',
        'default 50) and an opaque `cursor` taken from the previous page’s `nextCursor`. Mutating and expensive routes are rate-limited per caller',
        '(429 with `Retry-After`). See docs/api.md; events are described in docs/asyncapi.yaml.',
      ].join(' '),
    )
    .setVersion(version)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addServer('/', 'this gateway (the document is served by the gateway it describes)')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'HS256 token signed with AUTH_JWT_ACCESS_SECRET' }, BEARER_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config, { include: [ApiGatewayModule], autoTagControllers: false });
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ErrorBody: ERROR_BODY_SCHEMA as never } };
  // One tag per operation (its resource); Nest's scanner can repeat a tag given on the method.
  for (const ops of Object.values(document.paths)) for (const op of Object.values(ops as Record<string, { tags?: string[] }>)) if (op.tags) op.tags = [...new Set(op.tags)];
  document.tags = [...new Set(Object.values(document.paths).flatMap((ops) => Object.values(ops as Record<string, { tags?: string[] }>).flatMap((op) => op.tags ?? [])))].sort().map((name) => ({ name }));
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

/** The README's route table sits between these two lines. */
export const ROUTE_TABLE_START = "<!-- routes: generated from the gateway's routes (services/api-gateway/test/openapi.int.ts, UPDATE_DOCS=1) -->";
export const ROUTE_TABLE_END = '<!-- /routes -->';

/**
 * routeTableMarkdown — the README's route table: every route of the document, one row per family (its tag), in the
 * order of {@link ROUTE_OWNERS}, with who answers it. Pure: the document in, the lines out.
 */
export function routeTableMarkdown(document: Pick<OpenAPIObject, 'paths'>): string[] {
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(ops as Record<string, { tags?: string[] }>)) {
      for (const tag of op.tags ?? ['(untagged)']) byTag.set(tag, [...(byTag.get(tag) ?? []), `\`${method.toUpperCase()} ${path}\``]);
    }
  }
  const unknown = [...byTag.keys()].filter((t) => !(t in ROUTE_OWNERS));
  if (unknown.length) throw new Error(`routes tagged ${unknown.join(', ')} have no owner in ROUTE_OWNERS`);
  const rows = (Object.keys(ROUTE_OWNERS) as RouteTag[]).filter((t) => byTag.has(t)).map((t) => `| ${t} | ${byTag.get(t)!.join(', ')} | ${ROUTE_OWNERS[t]} |`);
  return [ROUTE_TABLE_START, '| family | routes | answered by |', '|---|---|---|', ...rows, ROUTE_TABLE_END];
}
