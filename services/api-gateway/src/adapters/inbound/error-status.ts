import type { ErrorCode } from '@nodes-manager/contracts';

/** httpStatusOf — the one place a coded error becomes an HTTP status. Exhaustive: a new code fails the build. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION_FAILED':
      return 400;
    case 'UNAUTHENTICATED':
      return 401;
    case 'FORBIDDEN':
    case 'EC2_UNAUTHORIZED':
      return 403;
    case 'NOT_FOUND':
    case 'KARPENTER_NOT_INSTALLED':
      return 404;
    case 'CONFLICT':
    // Karpenter's CRDs are absent: the cluster's state, not a passing outage, refuses the write (docs/karpenter.md).
    case 'KARPENTER_NOT_INSTALLED_FOR_WRITE':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'EC2_THROTTLED':
    case 'RATE_LIMITED':
      return 429;
    case 'INTERNAL':
    // The change is in effect but unrecorded: a server failure, with what was applied in `details` (docs/api.md).
    case 'APPLIED_NOT_RECORDED':
      return 500;
    case 'NOT_IMPLEMENTED':
      return 501;
    case 'UPSTREAM_ERROR':
      return 502;
    case 'SERVICE_UNAVAILABLE':
    case 'NOT_LEADER':
    case 'AWS_NOT_CONFIGURED':
      return 503;
    case 'TIMEOUT':
      return 504;
    default: {
      const unmapped: never = code;
      throw new Error(`unmapped error code ${String(unmapped)}`);
    }
  }
}
