import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { CodedError } from '@nodes-manager/platform';

/** The largest JSON body the gateway takes: the same as Nest's own JSON parser (100 kB). */
export const BODY_LIMIT = '100kb';
export const MERGE_PATCH = 'application/merge-patch+json';
const JSON_TYPE = 'application/json';

/**
 * registerJsonParser — the gateway's JSON body parser, for `application/json` and `application/merge-patch+json`
 * alike. Registered while the module is built, before the app initialises: Nest then sees a JSON parser in place and
 * adds no default one of its own (a parse failure still reaches the error filter, which answers it in our words).
 */
export function registerJsonParser(host: HttpAdapterHost): void {
  (host.httpAdapter as unknown as { useBodyParser?: (type: 'json', rawBody: boolean, options: object) => unknown })?.useBodyParser?.('json', false, {
    type: [JSON_TYPE, MERGE_PATCH],
    limit: BODY_LIMIT,
  });
}

const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * MediaTypeMiddleware — a body must be JSON: `application/json` on every route, and on PATCH also
 * `application/merge-patch+json` (RFC 7396, the media type of what a PATCH here is). Any other media type is a 415
 * UNSUPPORTED_MEDIA_TYPE naming what the route takes; a request without a body is left alone.
 */
@Injectable()
export class MediaTypeMiddleware implements NestMiddleware {
  use(req: Request, _res: Response, next: NextFunction): void {
    if (!hasBody(req) || req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') return next();
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const accepted = req.method === 'PATCH' ? [JSON_TYPE, MERGE_PATCH] : [JSON_TYPE];
    if (!accepted.includes(type)) {
      return next(
        new CodedError('UNSUPPORTED_MEDIA_TYPE', `the body must be ${accepted.join(' or ')}${type ? `, not ${type.slice(0, 100)}` : ''}`, {
          errors: [{ in: 'header', field: 'content-type', message: `must be ${accepted.join(' or ')}` }],
        }),
      );
    }
    next();
  }
}
