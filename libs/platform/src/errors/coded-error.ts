import type { ErrorBody, ErrorCode } from '@nodes-manager/contracts';

/**
 * CodedError — a failure with a stable code that crosses process boundaries intact. Expected outcomes (not found,
 * conflict, not ours) are results in domain code; this is for the adapters and the bus.
 */
export class CodedError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'CodedError';
  }
  toBody(): ErrorBody {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
  static from(err: unknown): CodedError {
    if (err instanceof CodedError) return err;
    const e = err as { code?: unknown; message?: unknown; details?: unknown };
    if (e && typeof e.code === 'string' && typeof e.message === 'string' && isErrorCode(e.code)) {
      return new CodedError(e.code, e.message, e.details);
    }
    return new CodedError('INTERNAL', err instanceof Error ? err.message : String(err));
  }
}

const KNOWN = new Set<string>([
  'VALIDATION_FAILED', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'NOT_IMPLEMENTED',
  'SERVICE_UNAVAILABLE', 'TIMEOUT', 'NOT_LEADER', 'KARPENTER_NOT_INSTALLED', 'KARPENTER_NOT_INSTALLED_FOR_WRITE', 'AWS_NOT_CONFIGURED',
  'EC2_UNAUTHORIZED', 'EC2_THROTTLED', 'UPSTREAM_ERROR', 'INTERNAL',
]);
export const isErrorCode = (s: string): s is ErrorCode => KNOWN.has(s);

/** notImplemented — the coded answer of a command whose capability has not landed yet (HTTP 501). */
export const notImplemented = (what: string): CodedError =>
  new CodedError('NOT_IMPLEMENTED', `${what} is not implemented yet`);
