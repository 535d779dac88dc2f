import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';
/** An id a caller may choose: printable, no spaces, at most 128 characters; anything else is replaced. */
const ACCEPTED_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** A request as the gateway sees it after {@link RequestIdMiddleware}. */
export type IdentifiedRequest = Request & { requestId?: string };

/**
 * requestIdOf — the request's id: the caller's `X-Request-Id` when it is acceptable, else a new uuid. Set once on the
 * request and echoed in the answer's `X-Request-Id`, so an error body, the answer and the log line share it.
 */
export function requestIdOf(req: IdentifiedRequest, res?: Response): string {
  if (!req.requestId) {
    const given = req.headers['x-request-id'];
    req.requestId = typeof given === 'string' && ACCEPTED_ID.test(given) ? given : randomUUID();
  }
  if (res && !res.headersSent && !res.getHeader(REQUEST_ID_HEADER)) res.setHeader(REQUEST_ID_HEADER, req.requestId);
  return req.requestId;
}

const current = new AsyncLocalStorage<string>();

/** currentRequestId — the id of the request being served, wherever in its handling this runs. */
export const currentRequestId = (): string | undefined => current.getStore();

/**
 * RequestIdMiddleware — gives every request its id before anything else of the gateway runs, and keeps it for the
 * rest of the request's handling ({@link currentRequestId}): the forwarder sends it as the command's correlation id.
 */
@Injectable()
export class RequestIdMiddleware implements NestMiddleware {
  use(req: IdentifiedRequest, res: Response, next: NextFunction): void {
    current.run(requestIdOf(req, res), next);
  }
}
