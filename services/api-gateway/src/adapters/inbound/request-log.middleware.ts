import type { NextFunction, Request, Response } from 'express';
import { REQUEST_ID_HEADER, requestIdFrom, runWithRequestId, type JsonLogger, type Metrics } from '@nodes-manager/platform';

/** Probes and scrapes: logged at debug, so the access log shows what callers asked for. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * requestLog — the gateway's first middleware: it takes the caller's `X-Request-Id` (or makes one), answers with it,
 * runs the rest of the request with it (so the gateway's log lines and the command it forwards carry it — the
 * handling service logs with the same id), and when the answer is sent writes one access log line and observes
 * `nodes_manager_http_request_duration_seconds` by method, route pattern (bounded: `unmatched` for unknown paths)
 * and status. The query string is not logged: only the path.
 */
export function requestLog(logger: JsonLogger, metrics: Metrics) {
  const histogram = metrics.histogram('nodes_manager_http_request_duration_seconds', 'HTTP requests served by the gateway, by method, route and status', ['method', 'route', 'status'], HTTP_BUCKETS);
  return (req: Request & { requestId?: string }, res: Response, next: NextFunction): void => {
    // One id per request: kept on the request, so anything later in the gateway (the error filter's body) reads the same.
    const requestId = (req.requestId ??= requestIdFrom(req.headers[REQUEST_ID_HEADER]));
    const started = process.hrtime.bigint();
    res.setHeader('X-Request-Id', requestId);
    runWithRequestId(requestId, () => {
      res.once('finish', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = routeOf(req);
        histogram.observe({ service: 'api-gateway', method: req.method, route, status: String(res.statusCode) }, seconds);
        const user = (req as Request & { user?: { sub?: string } }).user;
        const fields = {
          method: req.method,
          path: req.path,
          route,
          status: res.statusCode,
          durationMs: Math.round(seconds * 1e4) / 10,
          ...(user?.sub ? { actor: user.sub } : {}),
        };
        if (PROBES.has(req.path)) logger.debug('request', fields);
        else logger.info('request', fields);
      });
      next();
    });
  };
}

/** routeOf — the matched route's pattern (`/api/v1/nodes/:id`), never the raw path, so labels stay few. */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
}
