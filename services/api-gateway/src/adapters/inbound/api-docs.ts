import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ErrorCodes, EVENT_DATA_SCHEMAS, NODE_STATES, UNCORDON_REASONS, type ErrorCode } from '@nodes-manager/contracts';
import { httpStatusOf } from './error-status.js';

/**
 * Documentation of the gateway's routes for OpenAPI (docs/api.md; served at /api/docs). Request schemas are derived
 * from the controllers' own zod schemas, so the documented shape is the validated shape. Error statuses come from
 * {@link httpStatusOf}: each documented status lists the codes that produce it. Documentation only — nothing here
 * changes what a route accepts or answers.
 */

export const BEARER_SCHEME = 'bearer';

type Schema = Record<string, unknown>;

/** jsonSchemaOf — a zod schema's input side as JSON Schema (draft 2020-12, as OpenAPI 3.1 embeds it). */
export function jsonSchemaOf(schema: z.ZodType): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema;
  return rest;
}

export const ERROR_BODY_SCHEMA: Schema = {
  type: 'object',
  description: 'Every failure: a stable code, a message for people, and details for programs (e.g. each bad field).',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', enum: [...ErrorCodes] },
    message: { type: 'string' },
    details: { description: 'VALIDATION_FAILED: `{in, problems: [{field, problem}]}`; other codes: context such as the node or the API' },
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input: every bad field is named',
  401: 'Missing, invalid or expired bearer token',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict with the current state',
  429: 'Throttled upstream; retry later',
  500: 'Internal error',
  501: 'Not implemented by the owning service yet',
  502: 'Upstream (AWS, Kubernetes) error',
  503: 'The owning service (or what it depends on) is unavailable',
  504: 'The owning service did not answer in time (COMMAND_TIMEOUT_MS)',
};

/** codesFor — the error codes that map to `status` (the one exhaustive switch decides). */
const codesFor = (status: number): ErrorCode[] => ErrorCodes.filter((c) => httpStatusOf(c) === status);

function errorResponse(status: number, note: string | undefined, write: boolean) {
  // FORBIDDEN comes only from the write-scope guard; elsewhere a 403 is the upstream's (EC2_UNAUTHORIZED).
  const codes = codesFor(status).filter((c) => write || c !== 'FORBIDDEN');
  return ApiResponse({
    status,
    description: `${STATUS_TEXT[status] ?? 'Error'}${note ? ` — ${note}` : ''}. Codes: ${codes.join(', ')}.`,
    content: { 'application/json': { schema: { ...ERROR_BODY_SCHEMA, properties: { ...(ERROR_BODY_SCHEMA['properties'] as Schema), code: { type: 'string', enum: codes } } } } },
  });
}

export interface RouteDoc {
  tag: string;
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
  ok: { status: number; description: string; schema?: Schema };
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
    ApiResponse({ status: doc.ok.status, description: doc.ok.description, ...(doc.ok.schema ? { content: { 'application/json': { schema: doc.ok.schema } } } : {}) }),
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
  if (doc.body) decorators.push(ApiBody({ required: false, schema: jsonSchemaOf(doc.body) as never }));
  const statuses: Record<number, string | undefined> = {
    401: undefined,
    500: undefined,
    501: undefined,
    503: 'the service that owns this route is down or not ready',
    504: undefined,
  };
  if (doc.params || doc.query || doc.body) statuses[400] = undefined;
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
export function ApiPublicRoute(doc: { tag: string; summary: string; description?: string; responses: Record<number, { description: string; schema?: Schema; contentType?: string }> }): MethodDecorator {
  return applyDecorators(
    ApiTags(doc.tag),
    ApiOperation({ summary: doc.summary, ...(doc.description ? { description: doc.description } : {}), security: [] }),
    ...Object.entries(doc.responses).map(([status, r]) =>
      ApiResponse({ status: Number(status), description: r.description, ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: r.schema } } } : {}) }),
    ),
  );
}

// ---- response shapes (what the owning services answer; open objects: services may add fields) ----

/** page — `{items, nextCursor?}`: pass `nextCursor` back as `cursor` for the next page; absent on the last page. */
export const page = (item: Schema): Schema => ({
  type: 'object',
  required: ['items'],
  properties: { items: { type: 'array', items: item }, nextCursor: { type: 'string', description: 'absent on the last page' } },
});

const str = { type: 'string' };
const nstr = { type: ['string', 'null'] };
const time = { type: 'string', format: 'date-time' };
const resources = { type: 'object', properties: { cpuMilli: { type: 'integer' }, memoryBytes: { type: 'integer' }, gpu: { type: 'integer' }, pods: { type: 'integer' } } };

export const NODE_SCHEMA: Schema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' }, name: str, uid: str, providerId: nstr, instanceId: nstr, instanceType: nstr, zone: nstr,
    capacityType: { type: ['string', 'null'], enum: ['spot', 'on-demand', null] }, nodePool: nstr,
    state: { type: 'string', enum: [...NODE_STATES] }, ready: { type: 'boolean' }, unschedulable: { type: 'boolean' },
    taints: { type: 'array', items: { type: 'object' } }, labels: { type: 'object', additionalProperties: str }, conditions: { type: 'array', items: { type: 'object' } },
    allocatable: resources, requested: resources, podCount: { type: 'integer' },
  },
};

export const DRAIN_OPERATION_SCHEMA: Schema = {
  type: 'object',
  description: 'A drain operation (docs/uncordon.md#drain): poll GET /api/v1/drains/{id} until status is completed or failed.',
  required: ['id', 'node', 'status'],
  properties: {
    id: { type: 'string', format: 'uuid' }, node: str, status: { type: 'string', enum: ['pending', 'running', 'completed', 'failed'] },
    reason: str, message: str, actor: str, options: { type: 'object' }, progress: { type: 'object' }, startedAt: time, updatedAt: time, finishedAt: time,
  },
};

export const CORDON_SCHEMA: Schema = {
  type: 'object',
  description: "A cordoned node and auto-uncordon's current verdict on it: why it will, will not, or will later be uncordoned.",
  properties: {
    node: str,
    decision: { type: 'string', enum: ['uncordon', 'wait', 'skip'] },
    reason: { type: 'string', enum: [...UNCORDON_REASONS] },
    description: { type: 'string', description: 'the reason in words (waiting 7 m more; not ours: kubectl-cordon; …)' },
    evidence: { type: 'object', description: 'what the verdict was based on: cordon owner, cordoned since, Ready since, grace' },
    requeueAfterMs: { type: 'number' },
    uncordonAt: { ...time, description: 'when waiting: the moment the (backed-off) grace period ends' },
    firstSeenCordonedAt: time,
    evaluatedAt: time,
  },
};

export const SCALING_EVENT_SCHEMA: Schema = {
  type: 'object',
  properties: {
    id: str, node: str, action: str, decision: nstr, reason: str, actor: str, correlationId: nstr, operationId: nstr,
    dryRun: { type: 'boolean' }, evidence: { type: 'object' }, createdAt: time,
  },
};

export const DECISION_SCHEMA: Schema = { ...EVENT_DATA_SCHEMAS['scheduling.decided'], additionalProperties: true };
export const CONSOLIDATION_RESULT_SCHEMA: Schema = {
  ...EVENT_DATA_SCHEMAS['nodepool.consolidation.requested'],
  additionalProperties: true,
  description: 'With dryRun, `nodeClaims` are those that would be deleted.',
};
export const NODEPOOL_SCHEMA: Schema = { type: 'object', description: 'A Karpenter NodePool (karpenter.sh/v1) as the API server returns it.' };
export const NODEPOOL_LIST_SCHEMA: Schema = {
  type: 'object',
  required: ['items', 'karpenterInstalled'],
  properties: { items: { type: 'array', items: NODEPOOL_SCHEMA }, karpenterInstalled: { type: 'boolean', description: 'false: Karpenter is absent and the list is empty' } },
};
export const OBJECT_SCHEMA: Schema = { type: 'object' };
