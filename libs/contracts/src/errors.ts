/**
 * ErrorCode — every coded failure that crosses a process boundary. The gateway maps each to one HTTP status in an
 * exhaustive switch (services/api-gateway/src/adapters/inbound/error-status.ts); adding a code fails the build
 * until it is mapped.
 */
export const ErrorCodes = [
  'VALIDATION_FAILED',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'NOT_IMPLEMENTED',
  'SERVICE_UNAVAILABLE',
  'TIMEOUT',
  'NOT_LEADER',
  'KARPENTER_NOT_INSTALLED',
  /** A write (create, patch, delete, consolidate) while Karpenter's CRDs are absent: 409, see docs/karpenter.md. */
  'KARPENTER_NOT_INSTALLED_FOR_WRITE',
  'AWS_NOT_CONFIGURED',
  'EC2_UNAUTHORIZED',
  'EC2_THROTTLED',
  'UPSTREAM_ERROR',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ErrorCodes)[number];

/** ErrorBody — the JSON body of every failed command reply and every failed HTTP response. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/** CommandReply — what a command handler answers on the bus: data, or a coded error. */
export type CommandReply<T = unknown> = { ok: true; data: T } | { ok: false; error: ErrorBody };

/** CommandMeta — who asked, and the id that ties the request, the action and its events together. */
export interface CommandMeta {
  actor: string;
  correlationId: string;
  /** The HTTP request this command serves (`X-Request-Id`): the handling service logs with it. */
  requestId?: string;
}

/** CommandRequest — the body of every command on the bus. */
export interface CommandRequest<T = unknown> {
  meta: CommandMeta;
  data: T;
}
