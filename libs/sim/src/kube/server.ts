import type { IncomingMessage, ServerResponse } from 'node:http';
import { type KubeApi, type PatchType, type WriteContext } from './api/index.js';
import { apiVerb } from '@nodes-manager/kube';
import { ApiError, badRequest } from './errors.js';
import type { RbacGate } from './rbac-gate.js';
import {
  apiGroupList, apiResourceList, apiVersionOf, findResource, groupVersions, type KubeObject, type ResourceDef,
} from './resources.js';
import { tableFor, wantsTable } from './table.js';

/** Faults — injected failures; see KubeSim.faults. */
export interface Faults {
  rate500: number;
  rate429: number;
  latencyMs: number;
  dropWatchesAfterMs: number;
  gone410Next: boolean;
  conflictNextWrite: boolean;
  /**
   * The next `hangRequests` API requests (of verb `hangVerb`, any verb when empty) stall: a watch answers its headers
   * and then sends nothing at all (no events, no bookmarks, no close, whatever its timeoutSeconds); any other request
   * is never answered. The connection stays open until the client gives up.
   */
  hangRequests: number;
  hangVerb: string;
}

export const NO_FAULTS: Faults = { rate500: 0, rate429: 0, latencyMs: 0, dropWatchesAfterMs: 0, gone410Next: false, conflictNextWrite: false, hangRequests: 0, hangVerb: '' };

export interface Stats {
  requests: number;
  byVerb: Record<string, number>;
  /** `verb resource[/subresource]`, e.g. `list pods`, `create pods/eviction`, `patch nodes`. */
  byVerbResource: Record<string, number>;
  /** Watches open now, by resource (`nodes`, `pods`…). */
  openWatches: Record<string, number>;
  /** Requests stalled by the hang fault. */
  hung: number;
}

/** SimRoute — handler for `/_sim/...` (scenario control over HTTP); returns the JSON to answer. */
export type SimRoute = (method: string, path: string[], body: unknown) => unknown;

export const VERSION_INFO = {
  major: '1', minor: '31', gitVersion: 'v1.31.0-sim', gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean', buildDate: '2024-08-13T00:00:00Z', goVersion: 'go1.22.5', compiler: 'gc', platform: 'linux/amd64',
};

interface Route {
  def: ResourceDef;
  version: string;
  ns: string | undefined;
  name?: string;
  sub?: string;
  watchPath: boolean;
}

/** readBody — the request body as text (bounded at 32 MiB). */
async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 32 * 1024 * 1024) throw new ApiError(413, 'BadRequest', 'request entity too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${(e as Error).message}`);
  }
}

/** managerOf — fieldManager query parameter, else the User-Agent up to its first '/' (as the API server does). */
export function managerOf(req: IncomingMessage, q: URLSearchParams): string {
  const fm = q.get('fieldManager');
  if (fm) return fm;
  const ua = req.headers['user-agent'] ?? '';
  return ua.split('/')[0] || 'unknown';
}

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+json': 'apply',
};

const verbOf = (method: string, r: Route, watch: boolean): string => apiVerb(method, { named: !!r.name, watch });

/**
 * KubeHttp — the REST surface: discovery, resource paths, watch streaming, faults and stats. Semantics
 * live in KubeApi; this class parses, serializes and injects failures.
 */
export class KubeHttp {
  faults: Faults = { ...NO_FAULTS };
  stats: Stats = { requests: 0, byVerb: {}, byVerbResource: {}, openWatches: {}, hung: 0 };
  private readonly openWatches = new Set<ServerResponse>();
  /** Answers `GET /api/v1/nodes/{name}/proxy/{path}` (the kubelet behind the API server's node proxy). */
  nodeProxy?: (node: string, path: string) => unknown;
  private readonly hanging = new Set<ServerResponse>();
  /** Authentication and RBAC in front of every API request (the `/_sim` control paths excepted); see rbac-gate.ts. */
  rbac?: RbacGate;

  constructor(
    private readonly api: KubeApi,
    private readonly clock: () => Date,
    private readonly simRoute: SimRoute,
  ) {}

  /** closeWatches — drops every open watch connection (and every stalled request) without ending it properly. */
  closeWatches(): void {
    for (const res of [...this.openWatches, ...this.hanging]) res.destroy();
    this.openWatches.clear();
    this.hanging.clear();
  }

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.dispatch(req, res).catch((e: unknown) => this.fail(res, e));
  };

  private send(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private fail(res: ServerResponse, e: unknown): void {
    const err = e instanceof ApiError ? e : new ApiError(500, 'InternalError', `Internal error occurred: ${(e as Error)?.message ?? String(e)}`);
    const headers: Record<string, string> = {};
    if (err.code === 429 && err.details?.retryAfterSeconds) headers['Retry-After'] = String(err.details.retryAfterSeconds);
    this.send(res, err.code, err.toStatus(), headers);
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const segs = url.pathname.split('/').filter((s) => s.length > 0).map(decodeURIComponent);
    const method = req.method ?? 'GET';
    if (segs[0] === '_sim') {
      const body = method === 'GET' || method === 'DELETE' ? undefined : parseJson(await readBody(req));
      this.send(res, 200, this.simRoute(method, segs.slice(1), body) ?? { ok: true });
      return;
    }
    this.rbac?.check(req, url);
    this.stats.requests++;
    const f = this.faults;
    if (f.latencyMs > 0) await new Promise((r) => setTimeout(r, f.latencyMs));
    if (f.rate500 > 0 && Math.random() < f.rate500) {
      throw new ApiError(500, 'InternalError', 'Internal error occurred: injected fault');
    }
    if (f.rate429 > 0 && Math.random() < f.rate429) {
      throw new ApiError(429, 'TooManyRequests', 'the server has received too many requests and has asked us to try again later', { retryAfterSeconds: 1 });
    }

    // Discovery.
    const p = url.pathname.replace(/\/+$/, '');
    if (method === 'GET') {
      if (p === '/version') return this.send(res, 200, VERSION_INFO);
      if (p === '/healthz' || p === '/livez' || p === '/readyz') return this.send(res, 200, 'ok');
      if (p === '/api') {
        return this.send(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: req.headers.host ?? '' }] });
      }
      if (p === '/apis') return this.send(res, 200, apiGroupList(this.api.karpenter));
      if (p === '/api/v1') return this.send(res, 200, apiResourceList('', 'v1', this.api.karpenter));
      if (segs[0] === 'apis' && segs.length === 2) {
        const g = groupVersions(this.api.karpenter).find((x) => x.group === segs[1]);
        if (!g) throw notFoundPath();
        return this.send(res, 200, {
          kind: 'APIGroup', apiVersion: 'v1', name: g.group,
          versions: g.versions.map((v) => ({ groupVersion: `${g.group}/${v}`, version: v })),
          preferredVersion: { groupVersion: `${g.group}/${g.versions[0]}`, version: g.versions[0] },
        });
      }
      if (segs[0] === 'apis' && segs.length === 3) {
        const list = apiResourceList(segs[1]!, segs[2]!, this.api.karpenter);
        if (!list) throw notFoundPath();
        return this.send(res, 200, list);
      }
    }

    if (method === 'GET' && segs[0] === 'api' && segs[1] === 'v1' && segs[2] === 'nodes' && segs[4] === 'proxy' && segs[3]) {
      this.stats.byVerb['get'] = (this.stats.byVerb['get'] ?? 0) + 1;
      this.stats.byVerbResource['get nodes/proxy'] = (this.stats.byVerbResource['get nodes/proxy'] ?? 0) + 1;
      if (!this.nodeProxy) throw notFoundPath();
      return this.send(res, 200, this.nodeProxy(segs[3], segs.slice(5).join('/')));
    }

    const route = this.route(segs);
    if (!route) throw notFoundPath();
    const q = url.searchParams;
    const watch = route.watchPath || q.get('watch') === 'true' || q.get('watch') === '1';
    const verb = verbOf(method, route, watch);
    this.stats.byVerb[verb] = (this.stats.byVerb[verb] ?? 0) + 1;
    const vr = `${verb} ${route.def.plural}${route.sub ? `/${route.sub}` : ''}`;
    this.stats.byVerbResource[vr] = (this.stats.byVerbResource[vr] ?? 0) + 1;

    if (f.hangRequests > 0 && (f.hangVerb === '' || f.hangVerb === verb)) {
      f.hangRequests--;
      this.stats.hung++;
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      if (watch) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        res.flushHeaders();
      }
      return;
    }

    const ctx: WriteContext = { manager: managerOf(req, q), now: this.clock(), dryRun: q.get('dryRun') === 'All' };
    const { def, ns, name, sub } = route;
    const nsOrEmpty = ns ?? '';
    const writes = method === 'PUT' || method === 'PATCH';
    if (writes && f.conflictNextWrite) {
      f.conflictNextWrite = false;
      throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${def.plural} "${name ?? ''}": the object has been modified; please apply your changes to the latest version and try again`, { name: name ?? '', kind: def.plural });
    }
    if (sub && sub !== 'status' && !(sub === 'eviction' && def.plural === 'pods')) throw notFoundPath();
    if (sub === 'status' && !def.hasStatus) throw notFoundPath();

    switch (method) {
      case 'GET': {
        if (watch) return this.watch(req, res, route, q);
        if (name) {
          const entry = this.api.getEntry(def, nsOrEmpty, name);
          if (wantsTable(req.headers.accept)) {
            return this.send(res, 200, tableFor(def, [entry], { resourceVersion: String(entry.rv) }, this.clock(), q.get('includeObject') ?? 'Metadata'));
          }
          return this.send(res, 200, entry.json);
        }
        const limit = q.get('limit');
        if (q.get('continue') && q.get('resourceVersion')) {
          throw badRequest('specifying resource version is not allowed when using continue');
        }
        const list = this.api.list(def, ns, {
          labelSelector: q.get('labelSelector') ?? undefined,
          fieldSelector: q.get('fieldSelector') ?? undefined,
          limit: limit ? Number(limit) : undefined,
          continue: q.get('continue') ?? undefined,
        });
        const meta: Record<string, unknown> = { resourceVersion: String(list.resourceVersion) };
        if (list.continue) meta.continue = list.continue;
        if (list.remainingItemCount !== undefined) meta.remainingItemCount = list.remainingItemCount;
        if (wantsTable(req.headers.accept)) {
          return this.send(res, 200, tableFor(def, list.items, meta, this.clock(), q.get('includeObject') ?? 'Metadata'));
        }
        const head = `{"kind":"${def.kind}List","apiVersion":"${apiVersionOf(def.group, route.version)}","metadata":${JSON.stringify(meta)},"items":[`;
        return this.send(res, 200, head + list.items.map((e) => e.json).join(',') + ']}');
      }
      case 'POST': {
        const body = parseJson(await readBody(req)) as KubeObject;
        if (sub === 'eviction' && name) {
          this.api.evict(nsOrEmpty, name, body, ctx);
          return this.send(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
        }
        if (name) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
        return this.send(res, 201, this.api.create(def, nsOrEmpty, body, ctx));
      }
      case 'PUT': {
        if (!name) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
        const body = parseJson(await readBody(req)) as KubeObject;
        const existed = !!this.api.store.get(def, nsOrEmpty, name);
        return this.send(res, existed ? 200 : 201, this.api.update(def, nsOrEmpty, name, body, ctx, sub));
      }
      case 'PATCH': {
        if (!name) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
        const ct = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
        const type = PATCH_TYPES[ct];
        if (!type || (type === 'strategic' && def.karpenter)) {
          throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml${def.karpenter ? '' : ', application/strategic-merge-patch+json'}`);
        }
        if (type === 'apply' && !q.get('fieldManager')) {
          throw new ApiError(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
        }
        const text = await readBody(req);
        const body = type === 'apply' ? parseApplyBody(text) : parseJson(text);
        const existed = !!this.api.store.get(def, nsOrEmpty, name);
        const out = this.api.patch(def, nsOrEmpty, name, type, body, ctx, sub, q.get('force') === 'true');
        return this.send(res, existed ? 200 : 201, out);
      }
      case 'DELETE': {
        if (!name) throw new ApiError(405, 'MethodNotAllowed', 'deletecollection is not supported by the simulator');
        const body = (parseJson(await readBody(req)) ?? {}) as KubeObject;
        const grace = q.get('gracePeriodSeconds') ?? body.gracePeriodSeconds;
        const out = this.api.delete(def, nsOrEmpty, name, ctx, {
          ...(grace !== undefined && grace !== null ? { gracePeriodSeconds: Number(grace) } : {}),
          ...(body.preconditions?.resourceVersion ? { preconditionRv: body.preconditions.resourceVersion } : {}),
          ...(body.preconditions?.uid ? { preconditionUid: body.preconditions.uid } : {}),
        });
        return this.send(res, 200, out);
      }
      default:
        throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    }
  }

  /** route — `/api/v1[/watch][/namespaces/NS]/PLURAL[/NAME[/SUB]]` and `/apis/GROUP/VERSION/...`. */
  private route(segs: string[]): Route | undefined {
    let group: string;
    let version: string;
    let rest: string[];
    if (segs[0] === 'api' && segs[1] === 'v1') {
      group = '';
      version = 'v1';
      rest = segs.slice(2);
    } else if (segs[0] === 'apis' && segs.length >= 4) {
      group = segs[1]!;
      version = segs[2]!;
      rest = segs.slice(3);
    } else return undefined;
    let watchPath = false;
    if (rest[0] === 'watch') {
      watchPath = true;
      rest = rest.slice(1);
    }
    let ns: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      ns = rest[1]!;
      rest = rest.slice(2);
      const def = findResource(group, version, rest[0]!);
      if (!def || !def.namespaced || !this.api.served(def)) {
        // `/api/v1/namespaces/NAME/status` is the namespace's own status subresource.
        if (group === '' && rest.length === 1 && rest[0] === 'status') {
          return { def: findResource('', 'v1', 'namespaces')!, version, ns: undefined, name: ns, sub: 'status', watchPath };
        }
        return undefined;
      }
      return { def, version, ns, ...(rest[1] ? { name: rest[1] } : {}), ...(rest[2] ? { sub: rest[2] } : {}), watchPath };
    }
    const def = findResource(group, version, rest[0] ?? '');
    if (!def || !this.api.served(def) || rest.length > 3) return undefined;
    if (def.namespaced && rest.length > 1) return undefined;
    return { def, version, ns: undefined, ...(rest[1] ? { name: rest[1] } : {}), ...(rest[2] ? { sub: rest[2] } : {}), watchPath };
  }

  private watch(req: IncomingMessage, res: ServerResponse, r: Route, q: URLSearchParams): void {
    const timeout = q.get('timeoutSeconds');
    let stop: (() => void) | undefined;
    const started = () => {
      if (!res.headersSent) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        // Like the API server, answer the watch request at once; events follow as they happen.
        res.flushHeaders();
        this.openWatches.add(res);
        const plural = r.def.plural;
        this.stats.openWatches[plural] = (this.stats.openWatches[plural] ?? 0) + 1;
        res.on('close', () => {
          this.stats.openWatches[plural] = (this.stats.openWatches[plural] ?? 1) - 1;
        });
      }
    };
    const sink = {
      send: (type: string, object: string) => {
        started();
        res.write(`{"type":"${type}","object":${object}}\n`);
      },
      end: () => {
        started();
        this.openWatches.delete(res);
        res.end();
      },
    };
    if (this.faults.gone410Next) {
      this.faults.gone410Next = false;
      const gone = new ApiError(410, 'Gone', `too old resource version: ${q.get('resourceVersion') ?? '0'} (${this.api.store.resourceVersion})`);
      sink.send('ERROR', JSON.stringify(gone.toStatus()));
      sink.end();
      return;
    }
    if (r.name) {
      // A watch on one object is a watch on the collection with metadata.name fixed.
      const fs = q.get('fieldSelector');
      q.set('fieldSelector', fs ? `${fs},metadata.name=${r.name}` : `metadata.name=${r.name}`);
    }
    stop = this.api.watch(r.def, r.ns, {
      resourceVersion: q.get('resourceVersion') ?? undefined,
      labelSelector: q.get('labelSelector') ?? undefined,
      fieldSelector: q.get('fieldSelector') ?? undefined,
      allowWatchBookmarks: q.get('allowWatchBookmarks') === 'true',
      ...(timeout ? { timeoutSeconds: Number(timeout) } : {}),
    }, sink);
    started();
    req.on('close', () => stop?.());
    res.on('close', () => stop?.());
    if (this.faults.dropWatchesAfterMs > 0) {
      setTimeout(() => res.destroy(), this.faults.dropWatchesAfterMs).unref();
    }
  }
}

const notFoundPath = (): ApiError => new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});

/** parseApplyBody — apply configurations as JSON (YAML that is JSON); other YAML is refused with 415. */
function parseApplyBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(415, 'UnsupportedMediaType', 'the simulator accepts apply configurations as JSON only');
  }
}
