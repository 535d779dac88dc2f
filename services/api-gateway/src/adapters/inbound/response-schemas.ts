import { z } from 'zod';
import { COMMAND_SCHEMAS, DRAIN_OPERATION_SCHEMA, FENCING_VIEW_SCHEMA, NODE_DETAIL_SCHEMA, NODE_PRESSURE_SCHEMA, nullable, type CommandName, type ErrorCode } from '@nodes-manager/contracts';

/**
 * What the owning services answer, as the OpenAPI document's response schemas (docs/api.md): the reply schemas of the
 * command catalogue in libs/contracts (COMMAND_SCHEMAS), so that what is documented is what the bus checks. Objects
 * are open: a service may add a field without breaking a client; `required` lists what is always there. Only what
 * the gateway itself adds (a node's drain, pressure and fencing; the merged approvals page) is written here.
 * services/api-gateway/test and test/integration/api-contract.int.ts check real answers against them.
 */

const str = z.string();
const int = z.number().int();
const anyJson = z.record(z.string(), z.unknown());

type Schema = Record<string, unknown>;

/** reply — the reply schema of a command, as the route that forwards it answers. */
export const reply = (name: CommandName): Schema => COMMAND_SCHEMAS[name].reply;

/** nodeDetail — `node.get`'s node with what the gateway asks uncordon about it. */
export const nodeDetail: Schema = {
  ...NODE_DETAIL_SCHEMA,
  properties: {
    ...(NODE_DETAIL_SCHEMA['properties'] as Schema),
    drain: { ...nullable(DRAIN_OPERATION_SCHEMA), description: "the node's active drain, else its latest; null when it never drained" },
    drainUnavailable: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } }, description: 'set when the uncordon service could not say' },
    pressure: { ...nullable(NODE_PRESSURE_SCHEMA), description: 'the last PSI reading (GET /api/v1/pressure); null unless the node opted in to pressure watching' },
    fencing: {
      oneOf: [
        {
          type: 'object',
          required: ['verdict', 'operation'],
          properties: {
            verdict: nullable((FENCING_VIEW_SCHEMA['properties'] as { verdicts: { items: Schema } }).verdicts.items),
            operation: nullable((FENCING_VIEW_SCHEMA['properties'] as { operations: { items: Schema } }).operations.items),
          },
        },
        { type: 'null' },
      ],
      description: 'its fencing verdict while not Ready and its latest fence (GET /api/v1/fencing); null when neither exists',
    },
  },
};

// ---- errors ----

export const fieldProblem = z.object({
  in: z.enum(['path', 'query', 'body', 'header', 'command']),
  field: str.describe('the parameter or body field by its real name (`id`, `limit`, `spec.limits.cpu`; `body` for the body as a whole; for `command`, the field of the command the request became)'),
  message: str,
});
export const validationDetails = z.object({ errors: z.array(fieldProblem).min(1) }).describe('VALIDATION_FAILED (and 413/415): each bad input');
export const rateLimitDetails = z.object({ limit: int, windowSeconds: int, retryAfterSeconds: int }).describe('RATE_LIMITED');
export const errorBody = (codes: readonly ErrorCode[]) =>
  z.object({
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
    message: str,
    details: z.union([validationDetails, rateLimitDetails, anyJson.describe('other codes: context such as the node, the NodePool or the dependency')]).optional(),
    requestId: str.optional().describe('the X-Request-Id of the request: quote it when reporting a problem'),
  });
