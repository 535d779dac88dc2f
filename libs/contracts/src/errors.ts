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
  /** The caller went over its rate limit on this kind of route: 429 with Retry-After (docs/api.md). */
  'RATE_LIMITED',
  /** The request body is in a media type the route does not take: 415. */
  'UNSUPPORTED_MEDIA_TYPE',
  /** The request body is larger than the gateway accepts: 413. */
  'PAYLOAD_TOO_LARGE',
  /**
   * A change was made (in the cluster) but its record could not be written: 500 whose `details`
   * ({@link AppliedNotRecordedDetails}) say what was applied — never a plain INTERNAL, never a refusal (docs/api.md).
   */
  'APPLIED_NOT_RECORDED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ErrorCodes)[number];

/**
 * FieldProblem — one bad input of a VALIDATION_FAILED: where it was (`path`, `query`, `body`, `header`; `command` for
 * the data of a command that breaks its schema in libs/contracts), the field by its real name (`id`, `limit`,
 * `spec.limits.cpu`; `body` for the body as a whole) and the problem in words.
 */
export interface FieldProblem {
  in: 'path' | 'query' | 'body' | 'header' | 'command';
  field: string;
  message: string;
}

/**
 * AppliedNotRecordedDetails — the `details` of APPLIED_NOT_RECORDED: the change is in effect (do not repeat it
 * blindly), its history row and its event are missing, and why recording failed in words (`database unavailable`).
 */
export interface AppliedNotRecordedDetails {
  applied: true;
  recorded: false;
  change: {
    /** What was changed: `nodepool`. */
    resource: string;
    name: string;
    action: string;
    /** The outcome that would have been recorded (`applied`, `partial`, `awaiting_approval`). */
    result: string;
    actor: string;
    correlationId: string;
    /** The object (or consolidation result) as it is after the change; null after a delete. */
    after: unknown;
  };
  /** Why the record failed, without addresses or internal text. */
  recordError: string;
}

/** ValidationDetails — the `details` of every VALIDATION_FAILED, from the gateway and from the services alike. */
export interface ValidationDetails {
  errors: FieldProblem[];
}

/** ErrorBody — the JSON body of every failed command reply and every failed HTTP response. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: unknown;
  /** The request's id (X-Request-Id) on answers of the HTTP API: quote it when reporting a problem. */
  requestId?: string;
}

/**
 * CommandReply — what a command handler answers on the bus: data, or a coded error. `checked` is the digest of the
 * command schemas the handler's process checked `data` against (libs/platform command-contracts.ts): a caller whose
 * schemas have the same digest need not check it again.
 */
export type CommandReply<T = unknown> = { ok: true; data: T; checked?: string } | { ok: false; error: ErrorBody };

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
