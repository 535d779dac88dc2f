/**
 * ApiError — an API failure carried to the HTTP layer as a `Status` object, the way the API server
 * reports every error (`{kind:'Status', status:'Failure', reason, code, message, details}`).
 */
export type StatusReason =
  | 'NotFound'
  | 'Conflict'
  | 'AlreadyExists'
  | 'Invalid'
  | 'BadRequest'
  | 'TooManyRequests'
  | 'Gone'
  | 'InternalError'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'Expired'
  | 'ServiceUnavailable'
  | 'Unauthorized'
  | 'Forbidden';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** resourceLabel — how the API server names a resource in messages: `nodes` or `nodepools.karpenter.sh`. */
export function resourceLabel(plural: string, group: string): string {
  return group ? `${plural}.${group}` : plural;
}

export const notFound = (plural: string, group: string, name: string): ApiError =>
  new ApiError(404, 'NotFound', `${resourceLabel(plural, group)} "${name}" not found`, {
    name,
    ...(group ? { group } : {}),
    kind: plural,
  });

export const alreadyExists = (plural: string, group: string, name: string): ApiError =>
  new ApiError(409, 'AlreadyExists', `${resourceLabel(plural, group)} "${name}" already exists`, {
    name,
    ...(group ? { group } : {}),
    kind: plural,
  });

export const conflict = (plural: string, group: string, name: string): ApiError =>
  new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${resourceLabel(plural, group)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, ...(group ? { group } : {}), kind: plural },
  );

export const invalid = (kind: string, name: string, field: string, message: string): ApiError =>
  new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${field}: ${message}`, {
    name,
    kind,
    causes: [{ reason: 'FieldValueInvalid', message, field }],
  });

export const badRequest = (message: string): ApiError => new ApiError(400, 'BadRequest', message);
