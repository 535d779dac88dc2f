import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ErrorCodes, type ErrorCode } from '@nodes-manager/contracts';
import { httpStatusOf } from './error-status.js';
import { errorBody } from './response-schemas.js';

/**
 * Documentation of the gateway's routes for OpenAPI (docs/api.md; served at /api/docs). Request schemas are derived
 * from the controllers' own zod schemas, so the documented shape is the validated shape. Error statuses come from
 * {@link httpStatusOf}: each documented status lists the codes that produce it. Documentation only — nothing here
 * changes what a route accepts or answers.
 */

export const BEARER_SCHEME = 'bearer';

/**
 * ROUTE_OWNERS — who answers each family of routes (its OpenAPI tag): the service that owns the commands the routes
 * forward, or the gateway itself. Every route's tag is one of these; the README's route table is generated from the
 * gateway's routes and this (services/api-gateway/test/openapi.int.ts), in this order.
 */
export const ROUTE_OWNERS = {
  nodes: 'node-sync',
  drains: 'uncordon',
  cordons: 'uncordon',
  events: 'uncordon',
  fencing: 'uncordon',
  pressure: 'uncordon',
  pause: 'uncordon',
  rebalances: 'uncordon',
  decisions: 'scheduler-scoring',
  placement: 'scheduler-scoring',
  optimize: 'scheduler-scoring',
  simulate: 'scheduler-scoring',
  nodepools: 'karpenter-gateway',
  steering: 'karpenter-gateway',
  spot: 'spot-advisor',
  instances: 'spot-advisor',
  approvals: 'the owner of the approval’s kind (scheduler-scoring, karpenter-gateway, uncordon)',
  stream: 'api-gateway (nodes.events)',
  health: 'api-gateway',
} as const;
export type RouteTag = keyof typeof ROUTE_OWNERS;

type Schema = Record<string, unknown>;

/** jsonSchemaOf — a zod schema's input side as JSON Schema (draft 2020-12, as OpenAPI 3.1 embeds it). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Schema;
  return rest;
}

/** schemaOf — a documented response: a zod schema (what the service answers) or a JSON Schema taken as it is. */
const schemaOf = (s: z.ZodType | Schema): Schema => (s instanceof z.ZodType ? jsonSchemaOf(s, 'output') : s);

/** The error body every failure has, shared by reference (`#/components/schemas/ErrorBody`). */
export const ERROR_BODY_SCHEMA: Schema = {
  ...jsonSchemaOf(errorBody(ErrorCodes), 'output'),
  description: 'Every failure: a stable code, a message for people, details for programs (each bad field, the dependency…), and the request id.',
};
export const ERROR_BODY_REF = '#/components/schemas/ErrorBody';

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input: every bad field is named',
  401: 'Missing, invalid or expired bearer token (WWW-Authenticate: Bearer)',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'The body is larger than 100 kB',
  415: 'The body is not in a media type this route takes',
  429: 'Rate limited; retry after the Retry-After seconds',
  500: 'Internal error: the body says only "internal error"; the log has the rest under the request id',
  501: 'Not implemented by the owning service yet',
  502: 'Upstream (AWS, Kubernetes) error',
  503: 'The owning service, or what it depends on (database, broker), is unavailable',
  504: 'The owning service did not answer in time (COMMAND_TIMEOUT_MS)',
};

/** codesFor — the error codes that map to `status` (the one exhaustive switch decides). */
const codesFor = (status: number): ErrorCode[] => ErrorCodes.filter((c) => httpStatusOf(c) === status);

const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, { message: string; details?: unknown }>> = {
  VALIDATION_FAILED: { message: 'limit: must be at most 500', details: { errors: [{ in: 'query', field: 'limit', message: 'must be at most 500' }] } },
  UNAUTHENTICATED: { message: 'jwt expired' },
  FORBIDDEN: { message: 'this action needs the nodes:write scope' },
  NOT_FOUND: { message: 'node ip-10-0-0-1.ec2.internal not found' },
  CONFLICT: { message: 'a drain already runs on ip-10-0-0-1.ec2.internal' },
  RATE_LIMITED: { message: 'rate limit reached: at most 20 such requests per 60 s; retry in 42 s', details: { limit: 20, windowSeconds: 60, retryAfterSeconds: 42 } },
  UNSUPPORTED_MEDIA_TYPE: { message: 'the body must be application/json, not text/plain', details: { errors: [{ in: 'header', field: 'content-type', message: 'must be application/json' }] } },
  PAYLOAD_TOO_LARGE: { message: 'body: must be at most 100 kB', details: { errors: [{ in: 'body', field: 'body', message: 'must be at most 100 kB' }] } },
  INTERNAL: { message: 'internal error' },
  SERVICE_UNAVAILABLE: { message: 'database unavailable', details: { dependency: 'database' } },
  TIMEOUT: { message: 'uncordon did not answer nodes.drain within 10000 ms' },
};

function errorResponse(status: number, note: string | undefined, write: boolean) {
  // FORBIDDEN comes only from the write-scope guard; elsewhere a 403 is the upstream's (EC2_UNAUTHORIZED).
  const codes = codesFor(status).filter((c) => write || c !== 'FORBIDDEN');
  const code = codes.find((c) => EXAMPLE_MESSAGES[c]) ?? codes[0]!;
  const example = EXAMPLE_MESSAGES[code] ?? { message: STATUS_TEXT[status] ?? 'error' };
  return ApiResponse({
    status,
    description: `${STATUS_TEXT[status] ?? 'Error'}${note ? ` — ${note}` : ''}. Codes: ${codes.join(', ')}.`,
    ...(status === 401 || status === 403 ? { headers: { 'WWW-Authenticate': { description: 'RFC 6750 bearer challenge (on 401, and on 403 FORBIDDEN)', schema: { type: 'string' } } } } : {}),
    ...(status === 429 ? { headers: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer' } } } } : {}),
    content: {
      'application/json': {
        schema: { allOf: [{ $ref: ERROR_BODY_REF }, { type: 'object', properties: { code: { type: 'string', enum: codes } } }] } as never,
        example: { code, ...example, requestId: '7d3f6c1e-4b2a-4e8f-9c0d-1a2b3c4d5e6f' },
      },
    },
  });
}

export interface RouteDoc {
  tag: RouteTag;
  summary: string;
  description?: string;
  /** The route carries `@RequiresWrite()`: documents the bearer scope, 403 and 409. */
  write?: boolean;
  /** Path parameters and the zod schema each is validated with. */
  params?: Record<string, { schema: z.ZodType; description: string }>;
  /** The zod object the query string is validated with. */
  query?: z.ZodObject;
  /** The zod schema the JSON body is validated with. */
  body?: z.ZodType;
  /** The body must be sent (it has required fields); otherwise an absent body means `{}`. */
  bodyRequired?: boolean;
  /** An example body, shown in the document. */
  bodyExample?: unknown;
  /** The media types the body may come in (default `application/json`). */
  bodyTypes?: string[];
  ok: { status: number; description: string; schema: z.ZodType | Schema; contentType?: string };
  /** The route is marked `@Expensive()`: documents its 429. */
  rateLimited?: boolean;
  /** Further statuses this route can give (with a note), beyond those every forwarded route can. */
  errors?: Record<number, string>;
}

/**
 * ApiRoute — one forwarded route's OpenAPI operation: bearer auth, parameters and body from its zod schemas, its
 * success response, and the coded errors every forwarded route can give — 400 (when it takes input), 401, 403 and
 * 409 on write routes, 404 with a path parameter, 500, 501, 503, 504 — plus `errors`.
 */
export function ApiRoute(doc: RouteDoc): MethodDecorator {
  const decorators: (MethodDecorator | ClassDecorator)[] = [
    ApiTags(doc.tag),
    ApiOperation({
      summary: doc.summary,
      ...(doc.description || doc.write ? { description: [doc.description, doc.write ? 'Needs the write scope (`nodes:write`, AUTH_WRITE_SCOPE).' : undefined].filter(Boolean).join('\n\n') } : {}),
    }),
    ApiBearerAuth(BEARER_SCHEME),
    ApiResponse({ status: doc.ok.status, description: doc.ok.description, content: { [doc.ok.contentType ?? 'application/json']: { schema: schemaOf(doc.ok.schema) as never } } }),
  ];
  for (const [name, p] of Object.entries(doc.params ?? {})) {
    decorators.push(ApiParam({ name, required: true, description: p.description, schema: jsonSchemaOf(p.schema) as never }));
  }
  if (doc.query) {
    const schema = jsonSchemaOf(doc.query) as { properties?: Record<string, Schema>; required?: string[] };
    for (const [name, s] of Object.entries(schema.properties ?? {})) {
      // Lists arrive as one comma-separated value (`?zones=us-east-1a,us-east-1b`).
      const param = s['type'] === 'array' ? { type: 'string', description: 'comma-separated list' } : s;
      decorators.push(ApiQuery({ name, required: schema.required?.includes(name) ?? false, schema: param as never }));
    }
  }
  if (doc.body) {
    const schema = jsonSchemaOf(doc.body);
    if (doc.bodyTypes) decorators.push(ApiConsumes(...doc.bodyTypes));
    decorators.push(
      ApiBody({
        required: doc.bodyRequired ?? false,
        schema: schema as never,
        ...(doc.bodyExample === undefined ? {} : { examples: { example: { summary: 'an example', value: doc.bodyExample } } }),
      }),
    );
  }
  const statuses: Record<number, string | undefined> = {
    401: undefined,
    500: undefined,
    501: undefined,
    503: 'the service that owns this route is down or not ready',
    504: undefined,
  };
  if (doc.params || doc.query || doc.body) statuses[400] = undefined;
  if (doc.body) {
    statuses[413] = undefined;
    statuses[415] = undefined;
  }
  if (doc.write || doc.rateLimited) statuses[429] = doc.rateLimited ? 'RATE_LIMIT_EXPENSIVE per actor' : 'RATE_LIMIT_WRITES per actor';
  if (doc.params) statuses[404] = undefined;
  if (doc.write) {
    statuses[403] = 'the token lacks the write scope';
    statuses[409] = undefined;
  }
  for (const [status, note] of Object.entries(doc.errors ?? {})) {
    const before = statuses[Number(status)];
    statuses[Number(status)] = before ? `${before}; ${note}` : note;
  }
  for (const [status, note] of Object.entries(statuses)) decorators.push(errorResponse(Number(status), note, doc.write ?? false));
  return applyDecorators(...decorators);
}

/** ApiPublicRoute — a route that needs no token (health, readiness, metrics). */
export function ApiPublicRoute(doc: { tag: RouteTag; summary: string; description?: string; responses: Record<number, { description: string; schema?: Schema; contentType?: string }> }): MethodDecorator {
  return applyDecorators(
    ApiTags(doc.tag),
    ApiOperation({ summary: doc.summary, ...(doc.description ? { description: doc.description } : {}), security: [] }),
    ...Object.entries(doc.responses).map(([status, r]) =>
      ApiResponse({ status: Number(status), description: r.description, ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: r.schema } } } : {}) }),
    ),
  );
}

