import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module, RequestMethod, type INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { createRuntime, loadConfig } from '@nodes-manager/platform';
import { startTestApp, testEnv } from '@nodes-manager/platform/testing';
import { ApiGatewayModule } from '../src/api-gateway.module.js';
import { apiGatewayConfigSpec } from '../src/config.js';
import { OPENAPI_PATH, ROUTE_TABLE_END, ROUTE_TABLE_START, routeTableMarkdown, setupOpenApi } from '../src/openapi.js';
import SwaggerParser from '@apidevtools/swagger-parser';
import { readFileSync, writeFileSync } from 'node:fs';

type Schema = Record<string, unknown>;
interface ErrorSchema {
  allOf?: [{ $ref: string }, { properties: { code: { enum: string[] } } }];
}
interface Operation {
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema & ErrorSchema; example?: unknown }> }>;
}
interface OpenApi {
  openapi: string;
  servers?: { url: string }[];
  info: { license?: { name: string } };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }>; schemas: Record<string, Schema> };
}

/**
 * untyped — the places in a schema that say nothing: an object with neither properties nor a typed map, or an array
 * without typed items. `$ref`s, combinations and scalars are typed.
 */
function untyped(schema: unknown, at = '#'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as Schema;
  const out: string[] = [];
  const kids = (key: string) => (Array.isArray(s[key]) ? (s[key] as unknown[]) : []);
  for (const key of ['allOf', 'anyOf', 'oneOf']) kids(key).forEach((k, i) => out.push(...untyped(k, `${at}/${key}/${i}`)));
  if (s['$ref'] || kids('allOf').length || kids('anyOf').length || kids('oneOf').length) return out;
  const types = ([] as unknown[]).concat(s['type'] ?? []);
  if (types.includes('object')) {
    const props = (s['properties'] ?? {}) as Record<string, unknown>;
    const map = s['additionalProperties'];
    const typedMap = map && typeof map === 'object' && Object.keys(map).length > 0;
    if (Object.keys(props).length === 0 && !typedMap) out.push(at);
    for (const [k, v] of Object.entries(props)) out.push(...untyped(v, `${at}/properties/${k}`));
    if (typedMap) out.push(...untyped(map, `${at}/additionalProperties`));
  }
  if (types.includes('array')) {
    if (!s['items'] || Object.keys(s['items'] as object).length === 0) out.push(`${at}/items`);
    else out.push(...untyped(s['items'], `${at}/items`));
  }
  return out;
}

/** Maps whose values are deliberately free-form: Kubernetes objects' own fields and evidence records. */
const FREE_FORM = /\/properties\/(evidence|details|template|disruption|status|onDemand|volatility|labels|annotations|conditions|rationale)(\/|$)/;

/** ServedRoute — a route as the running app serves it: from Express's router, with the Nest handler's metadata. */
interface ServedRoute {
  method: string;
  path: string;
  public: boolean;
  write: boolean;
}

let app: INestApplication;
let url: string;

beforeAll(async () => {
  const config = loadConfig(apiGatewayConfigSpec, testEnv('postgres://unused@127.0.0.1/unused'));
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'error' });
  @Module({ imports: [ApiGatewayModule.forRoot(config)] })
  class Root {}
  const started = await startTestApp({ service: 'api-gateway', module: { module: Root }, runtime, transport: 'in-process', httpPort: 0, configure: (a) => void setupOpenApi(a) });
  app = started.app;
  url = started.url!;
});
afterAll(async () => {
  await app.close();
});

/** The gateway's middleware (request id, media types) is mounted on every path: not a route. */
const MIDDLEWARE_PATH = '/{*path}';
const docsRoute = (path: string) => path === `/${OPENAPI_PATH}` || path.startsWith(`/${OPENAPI_PATH}/`) || path.startsWith(`/${OPENAPI_PATH}-`);

/** servedRoutes — every method+path in Express's router stack (Swagger's own routes excluded). */
function expressRoutes(): { method: string; path: string }[] {
  const router = (app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router;
  return router.stack
    .flatMap((layer) => (layer.route ? Object.keys(layer.route.methods).map((m) => ({ method: m, path: layer.route!.path })) : []))
    .filter((r) => !docsRoute(r.path) && r.method !== '_all' && r.path !== MIDDLEWARE_PATH);
}

/** nestRoutes — every HTTP handler Nest registered, with its `@Public()` and `@RequiresWrite()` metadata. */
function nestRoutes(): ServedRoute[] {
  const out: ServedRoute[] = [];
  const join = (...parts: string[]) => '/' + parts.flatMap((p) => p.split('/')).filter(Boolean).join('/');
  for (const mod of app.get(ModulesContainer).values()) {
    for (const wrapper of mod.controllers.values()) {
      const type = wrapper.metatype as (new (...a: never[]) => object) | null;
      if (!type || Reflect.getMetadata(PATH_METADATA, type) === undefined) continue;
      const base = Reflect.getMetadata(PATH_METADATA, type) as string;
      for (const key of Object.getOwnPropertyNames(type.prototype)) {
        const handler = (type.prototype as Record<string, unknown>)[key];
        if (key === 'constructor' || typeof handler !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod]!.toLowerCase();
        const meta = (k: string) => Boolean(Reflect.getMetadata(k, handler) ?? Reflect.getMetadata(k, type));
        out.push({ method, path: join(base, path), public: meta('nodes-manager:public'), write: meta('nodes-manager:write') });
      }
    }
  }
  return out;
}

const openApiPath = (expressPath: string) => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const key = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;

let doc: OpenApi;
let served: ServedRoute[];

describe('OpenAPI at /api/docs', () => {
  beforeAll(async () => {
    const res = await fetch(`${url}/${OPENAPI_PATH}-json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenApi;
    served = nestRoutes();
  });

  it('finds the routes the app serves, the same from Express and from Nest', () => {
    expect(served.length).toBeGreaterThanOrEqual(20);
    expect(expressRoutes().map(key).sort()).toEqual(served.map(key).sort());
  });

  it('documents every served route, and nothing else', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(served.map((r) => key({ method: r.method, path: openApiPath(r.path) })).sort());
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes['bearer']).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('is a valid OpenAPI 3.1 document by @apidevtools/swagger-parser, with servers, a license and the error schema', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
    expect(doc.servers?.length).toBeGreaterThan(0);
    expect(doc.info.license?.name).toBe('Apache-2.0');
    expect(doc.components.schemas['ErrorBody']).toMatchObject({ required: ['code', 'message'] });
    expect(untyped(doc.components.schemas['ErrorBody']).filter((p) => !FREE_FORM.test(p))).toEqual([]);
  });

  it('types every success response: no object without properties, no array without items', () => {
    const problems: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, res] of Object.entries(op.responses).filter(([st]) => st.startsWith('2'))) {
          const content = res.content ?? {};
          if (Object.keys(content).length === 0) problems.push(`${method} ${path} ${status}: no content`);
          for (const [type, media] of Object.entries(content)) {
            if (!media.schema) problems.push(`${method} ${path} ${status} ${type}: no schema`);
            for (const at of untyped(media.schema).filter((p) => !FREE_FORM.test(p))) problems.push(`${method} ${path} ${status}: ${at}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives each operation one tag, and marks the bodies that must be sent as required', () => {
    for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) expect({ op: `${method} ${path}`, tags: op.tags }).toEqual({ op: `${method} ${path}`, tags: [expect.any(String)] });
    for (const [path, method] of [['/api/v1/instances', 'post'], ['/api/v1/simulate', 'post'], ['/api/v1/nodepools', 'post'], ['/api/v1/nodepools/{name}', 'patch']] as const) {
      expect({ op: `${method} ${path}`, required: doc.paths[path]![method]!.requestBody?.required }).toEqual({ op: `${method} ${path}`, required: true });
    }
    expect(Object.keys(doc.paths['/api/v1/nodepools/{name}']!['patch']!.requestBody!.content)).toContain('application/merge-patch+json');
  });

  it('states the formats of path and query parameters as patterns', () => {
    const param = (path: string, method: string, name: string) => doc.paths[path]![method]!.parameters!.find((p) => p.name === name)!.schema!;
    expect(param('/api/v1/nodepools/{name}', 'get', 'name')).toMatchObject({ maxLength: 63, pattern: expect.stringContaining('[a-z0-9]') });
    expect(param('/api/v1/nodes/{id}', 'get', 'id')).toMatchObject({ maxLength: 253, pattern: expect.any(String) });
    expect(param('/api/v1/nodes', 'get', 'zone')).toMatchObject({ pattern: expect.any(String) });
    expect(param('/api/v1/nodes', 'get', 'limit')).toMatchObject({ minimum: 1, maximum: 500 });
  });

  it('gives every protected route bearer security, and 401, 500, 501, 503 and 504 as ErrorBody by reference with an example', () => {
    for (const r of served.filter((s) => !s.public)) {
      const op = doc.paths[openApiPath(r.path)]![r.method]!;
      expect({ route: key(r), security: op.security }).toEqual({ route: key(r), security: [{ bearer: [] }] });
      for (const status of ['401', '500', '501', '503', '504']) {
        const media = op.responses[status]?.content?.['application/json'];
        expect({ route: key(r), status, ref: media?.schema?.allOf?.[0].$ref, example: media?.example !== undefined }).toEqual({ route: key(r), status, ref: '#/components/schemas/ErrorBody', example: true });
      }
    }
  });

  it('documents 403 FORBIDDEN exactly on the routes that need the write scope, and 409 on each of them', () => {
    for (const r of served.filter((s) => !s.public)) {
      const op = doc.paths[openApiPath(r.path)]![r.method]!;
      const codes403 = op.responses['403']?.content?.['application/json']?.schema?.allOf?.[1].properties.code.enum ?? [];
      expect({ route: key(r), forbidden: codes403.includes('FORBIDDEN') }).toEqual({ route: key(r), forbidden: r.write });
      if (r.write) expect({ route: key(r), has409: '409' in op.responses }).toEqual({ route: key(r), has409: true });
    }
    expect(served.filter((r) => r.write).length).toBeGreaterThanOrEqual(7);
  });

  it('documents 400 on routes that take input, and 404 on routes with a path parameter', () => {
    for (const r of served.filter((s) => !s.public)) {
      const op = doc.paths[openApiPath(r.path)]![r.method]!;
      const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined;
      if (takesInput) expect({ route: key(r), has400: '400' in op.responses }).toEqual({ route: key(r), has400: true });
      if (r.path.includes(':')) {
        expect({ route: key(r), has404: '404' in op.responses }).toEqual({ route: key(r), has404: true });
        const params = r.path.match(/:([A-Za-z0-9_]+)/g)!.map((p) => p.slice(1));
        expect(op.parameters!.filter((p) => p.in === 'path').map((p) => p.name).sort()).toEqual(params.sort());
      }
    }
  });

  it('documents the request schemas derived from the controllers’ validation', () => {
    const drain = doc.paths['/api/v1/nodes/{id}/drain']!['post']!;
    expect(JSON.stringify(drain.requestBody)).toContain('timeoutSeconds');
    const list = doc.paths['/api/v1/nodes']!['get']!;
    expect(list.parameters!.map((p) => p.name)).toEqual(expect.arrayContaining(['limit', 'cursor', 'state', 'capacityType', 'sort']));
  });

  it("is listed in the README's route table, one row per family (regenerate with UPDATE_DOCS=1)", () => {
    const readme = readFileSync('README.md', 'utf8');
    const [before, rest] = readme.split(ROUTE_TABLE_START) as [string, string | undefined];
    expect(rest).toBeDefined();
    const current = `${ROUTE_TABLE_START}${rest!.slice(0, rest!.indexOf(ROUTE_TABLE_END))}${ROUTE_TABLE_END}`;
    const generated = routeTableMarkdown(doc).join('\n');
    if (process.env['UPDATE_DOCS'] === '1') writeFileSync('README.md', before + generated + rest!.slice(rest!.indexOf(ROUTE_TABLE_END) + ROUTE_TABLE_END.length));
    else expect(current).toBe(generated);
    // A route family left out of the table, or a route whose family has no owner, fails.
    const withoutStream = { paths: Object.fromEntries(Object.entries(doc.paths).filter(([p]) => p !== '/api/v1/stream')) };
    expect(routeTableMarkdown(withoutStream).join('\n')).not.toBe(current);
    expect(() => routeTableMarkdown({ paths: { '/api/v1/planted': { get: { tags: ['planted'] } } } as never })).toThrow(/planted have no owner/);
  });

  it('leaves the public routes without security', () => {
    const pub = served.filter((s) => s.public);
    expect(pub.map(key).sort()).toEqual(['GET /healthz', 'GET /metrics', 'GET /readyz']);
    for (const r of pub) expect(doc.paths[r.path]![r.method]!.security ?? []).toEqual([]);
  });
});

describe('who needs a token', () => {
  it.each([[`/${OPENAPI_PATH}`], [`/${OPENAPI_PATH}-json`], [`/${OPENAPI_PATH}-yaml`], ['/healthz']])('answers %s without a token', async (path) => {
    const res = await fetch(url + path);
    expect(res.status).toBe(200);
    if (path === `/${OPENAPI_PATH}`) expect(await res.text()).toContain('swagger-ui');
  });

  it('refuses every other served route without a token, with a coded 401', async () => {
    const protectedRoutes = nestRoutes().filter((r) => !r.public);
    expect(protectedRoutes.length).toBeGreaterThan(0);
    for (const r of protectedRoutes) {
      const res = await fetch(url + r.path.replace(/:[A-Za-z0-9_]+/g, 'x'), { method: r.method.toUpperCase() });
      expect({ route: key(r), status: res.status }).toEqual({ route: key(r), status: 401 });
      expect(await res.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
  });
});
