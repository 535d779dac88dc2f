import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { LIST_CURSORS, type PaginatedList } from '@nodes-manager/contracts';
import { createRuntime } from '@nodes-manager/platform';
import { createTestDatabase, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from '../../all-in-one/src/all-in-one.js';
import { simulatedAllInOneEnv } from '../support/all-in-one.js';

/**
 * The served OpenAPI document against the real system (all-in-one, real Postgres, the Kubernetes and EC2 simulators):
 * - contract: every documented operation called with a valid request answers its documented success status, with a
 *   body valid against its documented schema;
 * - fuzz: every operation called with hostile path, query and body values (fast-check, a bounded number of runs)
 *   never answers 5xx, every 400 names the field it is about, and no answer carries internal error text;
 * - forged cursors: every paginated list given cursors that decode cleanly but hold the wrong key (wrong-typed parts,
 *   another arity, JSON that is not a key, text that is not JSON) answers 400 naming `cursor`, never 5xx.
 */

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: AllInOne;
let doc: OpenApi;
let ajv: Ajv2020;

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ karpenter: true, podTerminationMs: 20 } as never);
  kube.load(generateFleet({ seed: 7, nodes: 8, karpenter: true }));
  ec2 = await startEc2Sim({ region: 'us-east-1' });
  system = await startAllInOne({
    runtime: createRuntime({ mode: 'all-in-one', logLevel: 'error' }),
    env: simulatedAllInOneEnv({ databaseUrl: db.url, kube, ec2 }, { DRAIN_TIMEOUT_SECONDS: '30', PROVISION_IMAGE_ID: 'ami-0123456789abcdef0', PROVISION_SUBNET_ID: 'subnet-0123', PROVISION_SECURITY_GROUP_IDS: 'sg-0123', RATE_LIMIT_WRITES: '100000', RATE_LIMIT_EXPENSIVE: '100000' }),
  });
  doc = (await (await fetch(`${system.url}/api/docs-json`)).json()) as OpenApi;
  ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  await waitFor(async () => ((await api('GET', '/api/v1/nodes')).body as { items?: unknown[] }).items?.length === 8 || undefined, 'nodes synced', 60_000, 250);
}, 120_000);

afterAll(async () => {
  await system?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

const token = testToken('nodes:read nodes:write', 'contract');
async function api(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const res = await fetch(system.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, text, body: parsed };
}

/** validate — an answer against a documented schema ($refs resolved within the served document). */
function validate(schema: Schema, value: unknown): string[] {
  const fn = ajv.compile(withRefs(schema));
  return fn(value) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}
const withRefs = (schema: Schema): Schema => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')) as Schema;

/** Every documented operation but the event stream (it stays open; test/ covers it on its own). */
const operations = () =>
  Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op })))
    .filter(({ op }) => !Object.values(op.responses).some((r) => r.content?.['text/event-stream']));
const successOf = (op: Operation) => Object.keys(op.responses).find((s) => s.startsWith('2'))!;

/** Valid requests, filled in by the contract run (real node names, pools and operation ids). */
const known = { node: '', nodeId: '', otherNode: '', pool: 'general', drainId: '' };

/** The valid request of each operation: path values, query and body. */
function validRequest(key: string): { path?: Record<string, string>; query?: string; body?: unknown; contentType?: string; status?: string } {
  switch (key) {
    case 'GET /api/v1/nodes':
      return { query: 'limit=5&sort=-name&capacityType=spot' };
    case 'GET /api/v1/nodes/{id}':
      return { path: { id: known.nodeId } };
    case 'POST /api/v1/nodes/{id}/drain':
      return { path: { id: known.otherNode }, body: { timeoutSeconds: 30, force: true, deleteEmptyDirData: true } };
    case 'GET /api/v1/drains/{id}':
      return { path: { id: known.drainId } };
    case 'GET /api/v1/cordons':
      return { query: 'verdict=skip' };
    case 'GET /api/v1/events':
      return { query: 'limit=10' };
    case 'GET /api/v1/decisions':
      return { query: 'kind=consolidation' };
    case 'GET /api/v1/workloads/placement':
      return { query: 'limit=3' };
    case 'GET /api/v1/optimize/plan':
      return {};
    case 'POST /api/v1/optimize/trigger':
      return { body: { dryRun: true } };
    case 'POST /api/v1/simulate':
      return { body: { pods: [{ name: 'web', count: 4, cpu: '500m', memory: '1Gi' }] } };
    case 'GET /api/v1/nodepools':
      return {};
    case 'POST /api/v1/nodepools':
      return {
        body: {
          apiVersion: 'karpenter.sh/v1',
          kind: 'NodePool',
          metadata: { name: 'contract' },
          spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } }, limits: { cpu: '100' } },
        },
      };
    case 'GET /api/v1/nodepools/{name}':
    case 'GET /api/v1/nodepools/{name}/nodeclaims':
      return { path: { name: known.pool } };
    case 'PATCH /api/v1/nodepools/{name}':
      return { path: { name: 'contract' }, body: { spec: { limits: { cpu: '200' } } }, contentType: 'application/merge-patch+json' };
    case 'DELETE /api/v1/nodepools/{name}':
      return { path: { name: 'contract' } };
    case 'POST /api/v1/nodepools/{name}/consolidate':
      return { path: { name: known.pool }, body: { dryRun: true } };
    case 'GET /api/v1/spot/market':
      return { query: 'instanceTypes=m5.large,c5.xlarge&zones=us-east-1a' };
    case 'GET /api/v1/spot/history':
      return { query: 'instanceType=m5.large' };
    case 'GET /api/v1/rebalances':
      return { query: 'limit=5' };
    case 'GET /api/v1/rebalances/summary':
    case 'GET /api/v1/rebalances/interruption-rates':
      return {};
    case 'GET /api/v1/rebalances/interruptions':
      return { query: 'zone=us-east-1a' };
    case 'GET /api/v1/approvals':
      return { query: 'status=pending' };
    // No action waits for approval in this run (approval is automatic): an unknown id answers its documented 404.
    case 'GET /api/v1/approvals/{id}':
      return { path: { id: 'optimize-00000000-0000-4000-8000-000000000000' }, status: '404' };
    case 'POST /api/v1/approvals/{id}/approve':
    case 'POST /api/v1/approvals/{id}/reject':
      return { path: { id: 'optimize-00000000-0000-4000-8000-000000000000' }, body: {}, status: '404' };
    case 'POST /api/v1/instances':
      return { body: { instanceType: 'm5.large', count: 1, clientToken: 'contract-1', tags: { team: 'platform' } } };
    case 'GET /api/v1/pressure':
    case 'GET /api/v1/fencing':
    case 'GET /api/v1/pause':
    case 'GET /api/v1/steering/pools':
      return {};
    case 'GET /api/v1/steering/report':
      return { query: 'from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z' };
    // Last in the run (LAST): a pause holds every disruptive operation, so it comes after them, and the resume after it.
    case 'POST /api/v1/pause':
      return { body: { reason: 'contract run' } };
    case 'DELETE /api/v1/pause':
      return {};
    case 'GET /healthz':
    case 'GET /readyz':
    case 'GET /metrics':
      return {};
    default:
      throw new Error(`no valid request for ${key}: add it to this table`);
  }
}
/** encode — a path segment; a lone surrogate (not encodable) goes as its raw UTF-8 bytes. */
const encode = (v: string): string => {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
};
const fill = (path: string, values: Record<string, string> = {}) => path.replace(/\{(\w+)\}/g, (_, name: string) => encode(values[name] ?? ''));

/** The order the contract run needs: what creates comes before what reads or deletes it. */
const ORDER = ['GET /api/v1/nodes', 'GET /api/v1/nodes/{id}', 'POST /api/v1/nodes/{id}/drain', 'GET /api/v1/drains/{id}', 'POST /api/v1/nodepools', 'PATCH /api/v1/nodepools/{name}', 'DELETE /api/v1/nodepools/{name}'];
/** …and what must come after every other operation: the pause, then the resume. */
const LAST = ['POST /api/v1/pause', 'DELETE /api/v1/pause'];
const rank = (key: string) => ORDER.indexOf(key) + 1 || (LAST.includes(key) ? 200 + LAST.indexOf(key) : 99);

describe('the served OpenAPI is the contract the system keeps', () => {
  it('every operation answers a valid request with its documented status and a body its schema accepts', async () => {
    const nodes = (await api('GET', '/api/v1/nodes')).body as { items: { id: string; name: string }[] };
    known.node = nodes.items[0]!.name;
    known.nodeId = nodes.items[0]!.id;
    known.otherNode = nodes.items[1]!.name;
    const ops = operations().sort((a, b) => rank(a.key) - rank(b.key));
    expect(ops.length).toBeGreaterThanOrEqual(22);
    const failures: string[] = [];
    for (const { key, method, path, op } of ops) {
      const req = validRequest(key);
      const url = fill(path, req.path) + (req.query ? `?${req.query}` : '');
      const res = await api(method, url, req.body, req.contentType);
      if (key === 'POST /api/v1/nodes/{id}/drain') known.drainId = (res.body as { id: string }).id;
      const status = req.status ?? successOf(op);
      if (req.status && !op.responses[req.status]) failures.push(`${key}: ${req.status} is not documented`);
      if (String(res.status) !== status) {
        failures.push(`${key}: ${res.status} instead of ${status}: ${res.text.slice(0, 300)}`);
        continue;
      }
      const [type, media] = Object.entries(op.responses[status]?.content ?? {})[0] ?? [];
      if (type !== 'application/json') continue; // /metrics: text
      const problems = validate(media!.schema, res.body);
      if (problems.length) failures.push(`${key}: ${problems.slice(0, 5).join('; ')}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

// ---- fuzz ----

/** Hostile strings: traversal, SQL, script, control and bidi characters, huge and empty values, wrong types. */
const HOSTILE = [
  '',
  ' ',
  '..',
  '../../etc/passwd',
  "' OR 1=1;--",
  '"; DROP TABLE nodes; --',
  '<script>alert(1)</script>',
  '\u202e\u0000x',
  '\u0000',
  '%00',
  '\ud800',
  '😀',
  'A'.repeat(300),
  'a'.repeat(5000),
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  'NaN',
  'true',
  'null',
  '[]',
  '{}',
  'ip-10-0-0-1.ec2.internal',
  'UPPER-case',
  'a..b',
  '-leading',
  '00000000-0000-0000-0000-000000000000',
  'us-east-1a,',
  ',,,',
];
const hostileString = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }));
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(-1, 0, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, true, false, null, [], {}),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);

/** A body with one field (or the whole) replaced by something hostile, or a text that is not JSON. */
function hostileBody(valid: unknown): fc.Arbitrary<{ body: unknown; raw?: string }> {
  const fields = valid && typeof valid === 'object' ? Object.keys(valid) : [];
  return fc.oneof(
    fc.constantFrom('{', '{"a":', 'not json', '[1,2', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '[]', '"x"', 'null', '1e999').map((raw) => ({ body: undefined, raw })),
    hostileJson.map((body) => ({ body })),
    fields.length
      ? fc.tuple(fc.constantFrom(...fields), hostileJson).map(([f, v]) => ({ body: { ...(valid as object), [f]: v } }))
      : hostileJson.map((body) => ({ body })),
    fc.tuple(hostileString, hostileJson).map(([f, v]) => ({ body: { ...((valid as object) ?? {}), [f]: v } })),
  );
}

/** Text that must never leave the system: SQL and driver errors, stack frames, addresses, error class names. */
const INTERNAL_TEXT = /(invalid byte sequence|syntax error at|relation "|violates|duplicate key|QueryFailedError|TypeError|ReferenceError|Cannot read propert|ECONN|EPIPE|ETIMEDOUT|\bat \S+ \(|node_modules|\.ts:\d+|\.js:\d+|\b\d{1,3}(\.\d{1,3}){3}:\d+)/;

interface FuzzAnswer {
  status: number;
  text: string;
  body: unknown;
}
function check(key: string, what: string, res: FuzzAnswer, field?: { in: string; name: string }): void {
  const context = `${key} ${what} → ${res.status} ${res.text.slice(0, 300)}`;
  if (res.status >= 500) throw new Error(`5xx: ${context}`);
  if (res.status >= 400 && INTERNAL_TEXT.test(res.text)) throw new Error(`internal text: ${context}`);
  if (res.status === 400) {
    const errors = (res.body as { details?: { errors?: { in: string; field: string }[] } }).details?.errors ?? [];
    if (errors.length === 0 || errors.some((e) => !e.field)) throw new Error(`400 without fields: ${context}`);
    if (field && !errors.some((e) => e.in === field.in && (e.field === field.name || (field.in === 'body' && e.in === 'body')))) throw new Error(`400 not naming ${field.name}: ${context}`);
  }
}

const RUNS = 12;
/** A fixed seed keeps the suite reproducible; FUZZ_SEED=<n> explores other inputs (a failure prints its seed). */
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261201);

describe('hostile input never reaches a 5xx, and every 400 names its field', () => {
  it('GET /api/v1/nodes/%E2%80%AE%00x answers 400 naming id', async () => {
    const res = await api('GET', '/api/v1/nodes/%E2%80%AE%00x');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ in: 'path', field: 'id' }] } });
  });

  it('every operation, its path and query parameters and its body, with hostile values', async () => {
    let requests = 0;
    for (const { key, method, path, op } of operations()) {
      const valid = validRequest(key);
      const params = op.parameters ?? [];
      for (const p of params) {
        await fc.assert(
          fc.asyncProperty(hostileString, async (value) => {
            requests++;
            const pathValues = { ...valid.path, ...(p.in === 'path' ? { [p.name]: value } : {}) };
            const query = new URLSearchParams(valid.query ?? '');
            if (p.in === 'query') query.set(p.name, value);
            const qs = query.toString();
            const res = await api(method, fill(path, pathValues) + (qs ? `?${qs}` : ''), method === 'GET' || method === 'DELETE' ? undefined : (valid.body ?? {}), valid.contentType);
            // An empty path segment routes elsewhere (another route, or 404): nothing to name then.
            check(key, `${p.in} ${p.name}=${JSON.stringify(value)}`, res, value === '' && p.in === 'path' ? undefined : { in: p.in, name: p.name });
          }),
          { numRuns: RUNS, seed: SEED },
        );
      }
      if (op.requestBody) {
        await fc.assert(
          fc.asyncProperty(hostileBody(valid.body), async ({ body, raw }) => {
            requests++;
            const res = await api(method, fill(path, valid.path) + (valid.query ? `?${valid.query}` : ''), raw ?? body ?? {}, valid.contentType);
            check(key, `body ${raw ?? JSON.stringify(body)?.slice(0, 200)}`, res, { in: 'body', name: 'body' });
          }),
          { numRuns: RUNS * 2, seed: SEED },
        );
      }
    }
    expect(requests).toBeGreaterThan(300);
  }, 240_000);
});

// ---- forged cursors ----

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
const UUID0 = '00000000-0000-4000-8000-000000000000';
/** A wrong value for each kind of part: a word, a number, null, an object, a list, a time where text goes and back. */
const WRONG_PARTS: unknown[] = ['x', 'not-a-uuid', 1, 1.5, -1, null, true, {}, [], '', '2026-01-01', 'soon', `optimize-${UUID0}x`, '\u0000'];

/** forgedCursors — cursors a list did not issue but which are well-formed base64url JSON, for a list whose key has `arity` parts. */
function forgedCursors(route: PaginatedList): string[] {
  const arity = LIST_CURSORS[route].parts.length;
  const filler = (i: number): unknown => (i === 0 ? '2026-01-01T00:00:00Z' : UUID0);
  const forged = [
    // The reproductions of the issue: wrong-typed parts that once reached Postgres.
    b64('["x","y"]'),
    b64('["2026-01-01T00:00:00Z","not-a-uuid"]'),
    // Another arity.
    b64('[]'),
    b64(JSON.stringify(Array.from({ length: arity + 1 }, (_, i) => filler(i)))),
    ...(arity > 1 ? [b64(JSON.stringify(['2026-01-01T00:00:00Z']))] : []),
    // JSON that is not a key, text that is not JSON.
    b64('{"at":"2026-01-01T00:00:00Z"}'),
    b64('"2026-01-01T00:00:00Z"'),
    b64('null'),
    b64('not json'),
    b64('["unterminated'),
    // Each part in turn replaced by a wrong value.
    ...Array.from({ length: arity }, (_, i) => WRONG_PARTS.map((w) => b64(JSON.stringify(Array.from({ length: arity }, (_, j) => (j === i ? w : filler(j))))))).flat(),
  ];
  return [...new Set(forged)].filter((c) => !LIST_CURSORS[route].check(c).ok);
}

describe('a forged cursor answers 400 naming cursor on every paginated list', () => {
  const paginated = () => operations().filter(({ op }) => op.parameters?.some((p) => p.in === 'query' && p.name === 'cursor'));

  it('every list with a cursor has its codec (and no codec lacks its list)', () => {
    expect(paginated().map(({ path }) => path).sort()).toEqual(Object.keys(LIST_CURSORS).map((list) => `/api/v1/${list}`).sort());
  });

  it.each([
    ['/api/v1/events', '["x","y"]'],
    ['/api/v1/events', '["2026-01-01T00:00:00Z","not-a-uuid"]'],
    ['/api/v1/rebalances', '["x","y"]'],
    ['/api/v1/rebalances', '["2026-01-01T00:00:00Z","not-a-uuid"]'],
  ])('GET %s with the cursor of %s answers 400 naming cursor (it answered 500)', async (path, key) => {
    const res = await api('GET', `${path}?cursor=${b64(key)}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ in: 'query', field: 'cursor' }] } });
  });

  it('every list, with wrong-typed parts, another arity, non-key JSON and non-JSON: 0 × 5xx, each a 400 naming cursor', async () => {
    const failures: string[] = [];
    let requests = 0;
    for (const { key, path } of paginated()) {
      const route = path.replace('/api/v1/', '') as PaginatedList;
      const base = new URLSearchParams(validRequest(key).query ?? '');
      const ask = async (cursor: string, expect400: boolean) => {
        requests++;
        const q = new URLSearchParams(base);
        q.set('cursor', cursor);
        const res = await api('GET', `${path}?${q.toString()}`);
        try {
          check(key, `cursor=${cursor} (${Buffer.from(cursor, 'base64url').toString('utf8').slice(0, 80)})`, res, { in: 'query', name: 'cursor' });
          if (expect400 && res.status !== 400) throw new Error(`${key} cursor ${Buffer.from(cursor, 'base64url').toString('utf8')} → ${res.status}, not 400`);
        } catch (err) {
          failures.push((err as Error).message);
        }
      };
      for (const cursor of forgedCursors(route)) await ask(cursor, true);
      // Schema-driven: arrays of arbitrary JSON values of the list's arity (and one off), base64url-encoded.
      const arity = LIST_CURSORS[route].parts.length;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: Math.max(0, arity - 1), maxLength: arity + 1 }), async (parts) => {
          const cursor = b64(JSON.stringify(parts));
          await ask(cursor, !LIST_CURSORS[route].check(cursor).ok);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(100);
  }, 120_000);
});
