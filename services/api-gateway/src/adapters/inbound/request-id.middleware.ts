import type { Request, Response } from 'express';
import { REQUEST_ID_HEADER, requestIdFrom } from '@nodes-manager/platform';

/** A request as the gateway sees it once requestLog (request-log.middleware.ts) gave it its id. */
export type IdentifiedRequest = Request & { requestId?: string };

/**
 * requestIdOf — the request's id, as requestLog set it; for a failure before that middleware ran (a body that is not
 * JSON), the same rule gives it one now and the answer carries it, so an error body always has its `requestId`.
 */
export function requestIdOf(req: IdentifiedRequest, res?: Response): string {
  req.requestId ??= requestIdFrom(req.headers[REQUEST_ID_HEADER]);
  if (res && !res.headersSent && !res.getHeader('X-Request-Id')) res.setHeader('X-Request-Id', req.requestId);
  return req.requestId;
}
