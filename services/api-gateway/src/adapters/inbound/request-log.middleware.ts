import type { NextFunction, Request, Response } from 'express';
import {
  contextFrom,
  contextWithSpan,
  REQUEST_ID_HEADER,
  requestIdFrom,
  runWithRequestId,
  SpanKind,
  SpanStatusCode,
  startSpan,
  tracingOn,
  withContext,
  type JsonLogger,
  type Metrics,
  type Span,
} from '@nodes-manager/platform';

/** Probes and scrapes: logged at debug, so the access log shows what callers asked for. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * requestLog — the gateway's first middleware: it takes the caller's `X-Request-Id` (or makes one), answers with it,
 * runs the rest of the request with it (so the gateway's log lines and the command it forwards carry it — the
 * handling service logs with the same id), and when the answer is sent writes one access log line and observes
 * `nodes_manager_http_request_duration_seconds` by method, route pattern (bounded: `unmatched` for unknown paths)
 * and status. The query string is not logged: only the path. With tracing on, every request but a probe is an HTTP
 * server span (continuing the caller's `traceparent`), named by method and route once the answer is sent; the rest
 * of the request runs inside it, so the command it forwards carries the trace (docs/observability.md). No header is
 * recorded on the span.
 */
export function requestLog(logger: JsonLogger, metrics: Metrics) {
  const histogram = metrics.histogram('nodes_manager_http_request_duration_seconds', 'HTTP requests served by the gateway, by method, route and status', ['method', 'route', 'status'], HTTP_BUCKETS);
  return (req: Request & { requestId?: string }, res: Response, next: NextFunction): void => {
    // One id per request: kept on the request, so anything later in the gateway (the error filter's body) reads the same.
    const requestId = (req.requestId ??= requestIdFrom(req.headers[REQUEST_ID_HEADER]));
    const started = process.hrtime.bigint();
    res.setHeader('X-Request-Id', requestId);
    const span = tracingOn() && !PROBES.has(req.path) ? serverSpan(req, requestId) : undefined;
    const run = (fn: () => void) => (span ? withContext(contextWithSpan(span, contextFrom(req.headers)), fn) : fn());
    runWithRequestId(requestId, () => {
      res.once('finish', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const route = routeOf(req);
        if (span) endServerSpan(span, req, route, res.statusCode);
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
      run(next);
    });
  };
}

/** serverSpan — the request's HTTP server span, child of the caller's `traceparent` when it sent one. */
function serverSpan(req: Request, requestId: string): Span {
  return startSpan(req.method, {
    kind: SpanKind.SERVER,
    parent: contextFrom(req.headers),
    // originalUrl: `path` is relative to where the middleware is mounted; the query string is left out.
    attributes: { 'http.request.method': req.method, 'url.path': req.originalUrl.split('?')[0]!, 'url.scheme': req.protocol, 'nodes_manager.request_id': requestId },
  });
}

/** endServerSpan — named `METHOD /route/{param}` (low cardinality), with the status; a 5xx is an error. */
function endServerSpan(span: Span, req: Request, route: string, status: number): void {
  const user = (req as Request & { user?: { sub?: string } }).user;
  span.updateName(route === 'unmatched' ? req.method : `${req.method} ${route.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
  span.setAttributes({ 'http.response.status_code': status, ...(route !== 'unmatched' ? { 'http.route': route } : {}), ...(user?.sub ? { 'enduser.id': user.sub } : {}) });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** routeOf — the matched route's pattern (`/api/v1/nodes/:id`), never the raw path, so labels stay few. */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
}
