import * as k8s from '@kubernetes/client-node';
import { apiVerb } from '@nodes-manager/kube';
import type { Metrics } from '../health/metrics.js';
import { carrierOf, inChildSpan, SpanKind, SpanStatusCode, tracingOn } from '../tracing/tracing.js';

/** KubeRequestCounter — `nodes_manager_kube_requests_total{service,verb,resource,code}`: every request made to the API server. */
export interface KubeRequestCounter {
  inc(verb: string, resource: string, code: number | string): void;
}

/** kubeRequestCounter — the counter of one service (the metric is shared by every service module in a process). */
export function kubeRequestCounter(metrics: Metrics, service: string): KubeRequestCounter {
  const counter = metrics.counter('nodes_manager_kube_requests_total', 'Requests made to the Kubernetes API server, by verb, resource and HTTP code (or timeout/network)', ['verb', 'resource', 'code']);
  return { inc: (verb, resource, code) => counter.inc({ service, verb, resource, code: String(code) }) };
}

/**
 * resourceOfPath — the resource (and subresource) a REST path names: `/api/v1/nodes` → `nodes`,
 * `/api/v1/namespaces/a/pods/b/eviction` → `pods/eviction`, `/apis/karpenter.sh/v1/nodepools/x` → `nodepools`.
 */
export function resourceOfPath(path: string): string {
  const segs = path.split('?')[0]!.split('/').filter(Boolean);
  let rest = segs[0] === 'api' ? segs.slice(2) : segs.slice(3);
  if (rest[0] === 'watch') rest = rest.slice(1);
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  if (rest.length === 0) return 'discovery';
  return rest.length >= 3 ? `${rest[0]}/${rest[2]}` : rest[0]!;
}

/** verbOf — the Kubernetes verb of a request, as the API server's audit log names it. */
export function verbOf(method: string, path: string): string {
  const url = new URL(path, 'http://x');
  const rest = url.pathname.split('/').filter(Boolean);
  const named = (() => {
    let r = rest[0] === 'api' ? rest.slice(2) : rest.slice(3);
    if (r[0] === 'namespaces' && r.length >= 3) r = r.slice(2);
    return r.length >= 2;
  })();
  return apiVerb(method, { named, watch: url.searchParams.get('watch') === 'true' });
}

/**
 * makeCountedApiClient — `kc.makeApiClient(type)` whose every request is counted in
 * `nodes_manager_kube_requests_total` (with a counter) and, with tracing on, is a CLIENT span `<verb> <resource>`
 * inside a traced caller's work, its `traceparent` sent to the API server: the client's own HTTP library, wrapped.
 */
export function makeCountedApiClient<T extends k8s.ApiType>(kc: k8s.KubeConfig, type: new (config: k8s.Configuration) => T, requests: KubeRequestCounter | undefined): T {
  if (!requests && !tracingOn()) return kc.makeApiClient(type as never) as T;
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster in the kubeconfig');
  const inner = k8s.createConfiguration().httpApi;
  const httpApi = k8s.wrapHttpLibrary({
    async send(req: k8s.RequestContext): Promise<k8s.ResponseContext> {
      const url = new URL(req.getUrl());
      const verb = verbOf(req.getHttpMethod(), url.pathname + url.search);
      const resource = resourceOfPath(url.pathname);
      const send = async (): Promise<k8s.ResponseContext> => {
        try {
          const res = await inner.send(req).toPromise();
          requests?.inc(verb, resource, res.httpStatusCode);
          return res;
        } catch (err) {
          requests?.inc(verb, resource, 'network');
          throw err;
        }
      };
      if (!tracingOn()) return send();
      return inChildSpan(`${verb} ${resource}`, { kind: SpanKind.CLIENT, attributes: kubeSpanAttributes(req, url, verb, resource) }, async (span) => {
        if (!span) return send();
        for (const [k, v] of Object.entries(carrierOf() ?? {})) req.setHeaderParam(k, v);
        const res = await send();
        span.setAttribute('http.response.status_code', res.httpStatusCode);
        if (res.httpStatusCode >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${res.httpStatusCode}` });
        return res;
      });
    },
  });
  const config = k8s.createConfiguration({ baseServer: new k8s.ServerConfiguration(cluster.server, {}), authMethods: { default: kc }, httpApi });
  return new type(config);
}

/**
 * kubeSpanAttributes — what a Kubernetes API span records: the method, the path (never the query string, the body or
 * a header: the bearer token stays out), the API server's address, and the verb and resource as RBAC names them.
 */
function kubeSpanAttributes(req: k8s.RequestContext, url: URL, verb: string, resource: string): Record<string, string | number> {
  const ns = /\/namespaces\/([^/]+)\//.exec(url.pathname)?.[1];
  return {
    'http.request.method': req.getHttpMethod(),
    'url.path': url.pathname,
    'server.address': url.hostname,
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    'k8s.verb': verb,
    'k8s.resource': resource,
    ...(ns ? { 'k8s.namespace.name': ns } : {}),
  };
}
