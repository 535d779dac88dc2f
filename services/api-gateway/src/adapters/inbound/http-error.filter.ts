import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import type { ErrorBody, ErrorCode, FieldProblem } from '@nodes-manager/contracts';
import { CodedError, INTERNAL_MESSAGE, type JsonLogger } from '@nodes-manager/platform';
import { httpStatusOf } from './error-status.js';
import { requestIdOf, type IdentifiedRequest } from './request-id.middleware.js';

export const AUTH_REALM = 'nodes-manager';

const HTTP_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

/** Addresses (IPv4/IPv6 with ports, URLs) never leave in a message, whatever produced it. */
const ADDRESS = /\bhttps?:\/\/\S+|\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b|\[[0-9a-f:]+\](:\d+)?/gi;
const scrub = (message: string): string => message.replace(ADDRESS, '[address]');

const invalid = (status: number, code: ErrorCode, error: FieldProblem): { status: number; body: ErrorBody } => ({
  status,
  body: { code, message: `${error.field}: ${error.message}`, details: { errors: [error] } },
});

/**
 * fromHttpException — Nest's and Express's own refusals in the project's words: a body that is not JSON, too large or
 * in a charset we do not read (body-parser, as Nest hands it over in `cause`), a path that is not valid
 * percent-encoding, a route that does not exist, and the guards' 401/403/429.
 */
interface RouterLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): false | { params: Record<string, string> };
}

/**
 * undecodableParam — the route parameter whose segment is not valid percent-encoding (`%ED%A0%80`): the first such
 * segment is replaced with a plain value and the path matched against the app's routes again, to find its name.
 */
function undecodableParam(req: IdentifiedRequest): string | undefined {
  try {
    const segments = (req.originalUrl ?? req.url).split('?')[0]!.split('/');
    const bad = segments.findIndex((seg) => {
      try {
        decodeURIComponent(seg);
        return false;
      } catch {
        return true;
      }
    });
    if (bad < 0) return undefined;
    const probe = '\u0001probe';
    const path = segments.map((seg, i) => (i === bad ? probe : seg)).join('/');
    const stack = (req.app as unknown as { router?: { stack?: RouterLayer[] } }).router?.stack ?? [];
    for (const layer of stack) {
      if (!layer.route?.methods[req.method.toLowerCase()]) continue;
      const m = layer.match(path);
      const name = m ? Object.entries(m.params).find(([, v]) => v === probe)?.[0] : undefined;
      if (name) return name;
    }
  } catch {
    /* no name to give */
  }
  return undefined;
}

function fromHttpException(err: HttpException, req: IdentifiedRequest): { status: number; body: ErrorBody } {
  const status = err.getStatus();
  const cause = err.cause as { type?: string } | undefined;
  switch (cause?.type) {
    case 'entity.parse.failed':
      return invalid(400, 'VALIDATION_FAILED', { in: 'body', field: 'body', message: 'must be valid JSON' });
    case 'entity.too.large':
      return invalid(413, 'PAYLOAD_TOO_LARGE', { in: 'body', field: 'body', message: 'must be at most 100 kB' });
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return invalid(415, 'UNSUPPORTED_MEDIA_TYPE', { in: 'header', field: 'content-type', message: 'must be UTF-8 JSON without content encoding' });
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return invalid(400, 'VALIDATION_FAILED', { in: 'body', field: 'body', message: 'could not be read' });
  }
  if (cause instanceof URIError) return invalid(400, 'VALIDATION_FAILED', { in: 'path', field: undecodableParam(req) ?? 'path', message: 'must be valid percent-encoding (UTF-8)' });
  if (status === 404) return { status, body: { code: 'NOT_FOUND', message: 'no such route' } };
  if (status >= 500) return { status: 500, body: { code: 'INTERNAL', message: INTERNAL_MESSAGE } };
  const r = err.getResponse();
  const message = typeof r === 'string' ? r : ((r as { message?: unknown }).message ?? err.message);
  return { status, body: { code: HTTP_CODES[status] ?? 'VALIDATION_FAILED', message: scrub(Array.isArray(message) ? message.join('; ') : String(message)) } };
}

/**
 * HttpErrorFilter — every failure leaves the gateway as `{code, message, details?, requestId}` with the mapped status
 * (docs/api.md, "Errors"). An unexpected one answers `500 INTERNAL "internal error"` and only the log, under the same
 * request id, holds what happened; messages of other server-side failures lose any address. A 401 or a missing write
 * scope carries `WWW-Authenticate: Bearer` (RFC 6750).
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(
    private readonly logger: JsonLogger,
    private readonly writeScope: string,
  ) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<IdentifiedRequest>();
    const res = host.switchToHttp().getResponse<Response>();
    const requestId = requestIdOf(req, res);
    let status: number;
    let body: ErrorBody;
    if (err instanceof CodedError) {
      status = httpStatusOf(err.code);
      body = err.toBody();
    } else if (err instanceof HttpException) {
      ({ status, body } = fromHttpException(err, req));
    } else {
      const coded = CodedError.from(err);
      status = httpStatusOf(coded.code);
      body = coded.toBody();
      err = coded.cause ?? err;
    }
    if (body.code === 'INTERNAL') {
      const e = (err instanceof CodedError && err.cause !== undefined ? err.cause : err) as Error;
      this.logger.error('internal error', {
        requestId,
        method: req.method,
        path: req.originalUrl?.split('?')[0],
        err: err instanceof CodedError ? `${err.message}${err.cause ? `: ${(err.cause as Error).message ?? String(err.cause)}` : ''}` : (e?.message ?? String(e)),
        ...(err instanceof CodedError && err.details !== undefined ? { details: err.details } : {}),
        stack: e?.stack,
      });
      body = { code: 'INTERNAL', message: INTERNAL_MESSAGE };
    } else if (status >= 500) {
      if (err instanceof CodedError && err.cause !== undefined) {
        this.logger.warn('dependency failure', { requestId, code: body.code, err: (err.cause as Error)?.message ?? String(err.cause) });
      }
      body = { ...body, message: scrub(body.message) };
    }
    if (status === 401) res.setHeader('WWW-Authenticate', this.bearerChallenge(req.headers.authorization ? 'invalid_token' : undefined, body.message));
    if (status === 403 && body.code === 'FORBIDDEN') res.setHeader('WWW-Authenticate', this.bearerChallenge('insufficient_scope', body.message));
    if (body.code === 'RATE_LIMITED' && !res.getHeader('Retry-After')) {
      const after = (body.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      if (after !== undefined) res.setHeader('Retry-After', String(after));
    }
    res.status(status).json({ ...body, requestId });
  }

  /** bearerChallenge — `Bearer realm="…"`, with RFC 6750's error code and, for a missing scope, the scope needed. */
  private bearerChallenge(error: 'invalid_token' | 'insufficient_scope' | undefined, description: string): string {
    const quoted = (s: string) => `"${s.replace(/["\\]/g, '').replace(/[^\x20-\x7e]/g, '')}"`;
    const parts = [`realm=${quoted(AUTH_REALM)}`];
    if (error) parts.push(`error=${quoted(error)}`, `error_description=${quoted(description)}`);
    if (error === 'insufficient_scope') parts.push(`scope=${quoted(this.writeScope)}`);
    return `Bearer ${parts.join(', ')}`;
  }
}
