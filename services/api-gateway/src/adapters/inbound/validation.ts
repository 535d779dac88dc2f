import { z } from 'zod';
import type { FieldProblem } from '@nodes-manager/contracts';
import { validationFailed } from '@nodes-manager/platform';

/**
 * The gateway's input validation (docs/api.md, "Validating input"): every path parameter, query string and body is
 * checked here against its real format before anything is forwarded, and a failure is one VALIDATION_FAILED (400)
 * naming each bad field by its real name. The schemas below are also what the OpenAPI document states, so clients
 * see the same patterns. A new controller uses {@link parseParam}, {@link parseInput} and the kinds in {@link param}
 * and {@link q}; it never hands a raw request value to a service.
 */

export type InputLocation = FieldProblem['in'];

/** Control characters (C0 but tab, LF, CR; and DEL): no API value has them, and Postgres refuses NUL outright. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** controlCharacterProblems — every string (and object key) under `input` that holds a control character or a lone surrogate. */
function controlCharacterProblems(input: unknown, where: InputLocation, path: string[], out: FieldProblem[]): void {
  if (out.length >= 20) return;
  const field = () => (path.length ? path.map((k) => (k === '' ? '""' : k)).join('.') : where);
  if (typeof input === 'string') {
    if (CONTROL.test(input)) out.push({ in: where, field: field(), message: 'must not contain control characters' });
    // A lone surrogate (`"\ud800"` in JSON) is no character at all; Postgres refuses it in JSON and text alike.
    else if (LONE_SURROGATE.test(input)) out.push({ in: where, field: field(), message: 'must be valid Unicode' });
  } else if (Array.isArray(input)) {
    input.forEach((v, i) => controlCharacterProblems(v, where, [...path, String(i)], out));
  } else if (input && typeof input === 'object') {
    for (const [k, v] of Object.entries(input)) {
      if (CONTROL.test(k) || LONE_SURROGATE.test(k)) out.push({ in: where, field: field(), message: 'must not have a key with control characters or invalid Unicode' });
      else controlCharacterProblems(v, where, [...path, k], out);
    }
  }
}


function problemsOf(error: z.ZodError, where: InputLocation, name?: string): FieldProblem[] {
  return error.issues.flatMap((i): FieldProblem[] => {
    // A field is named by its path; an empty key as "" so that it still has a name.
    const at = i.path.map((k) => (String(k) === '' ? '""' : String(k)));
    // An unknown field is named by itself, so that a typo is pointed at.
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => ({ in: where, field: name ?? [...at, k === '' ? '""' : k].join('.'), message: 'is not a known field' }));
    // A query parameter is one field, whatever it holds: a bad item of a list is named by the parameter.
    if (where === 'query' && at.length > 1) return [{ in: where, field: at[0]!, message: `value ${Number(at[1]) + 1}: ${i.message}` }];
    const field = name ?? (at.length ? at.join('.') : where);
    if (where === 'body' && at.length === 0 && i.code === 'invalid_type') return [{ in: where, field, message: 'must be a JSON object' }];
    return [{ in: where, field, message: i.message }];
  });
}

/**
 * parseInput — validates a query string or a JSON body against a zod schema; on failure a VALIDATION_FAILED error
 * (HTTP 400) naming every bad field and its problem, and nothing is forwarded. Strings with control characters are
 * refused first, wherever they sit.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: 'query' | 'body'): z.infer<S> {
  const control: FieldProblem[] = [];
  controlCharacterProblems(input, where, [], control);
  if (control.length) throw validationFailed(control);
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  throw validationFailed(problemsOf(r.error, where));
}

/** parseParam — validates one path parameter, named by its route name (`id`, `name`) in the error. */
export function parseParam<S extends z.ZodType>(name: string, schema: S, value: unknown): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw validationFailed(problemsOf(r.error, 'path', name).slice(0, 1));
}

// ---- the kinds of value the API takes: one schema per kind, used by every controller and by the OpenAPI document ----

/** DNS-1123 subdomain: Kubernetes object names (nodes), ≤ 253 characters. */
export const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** DNS-1123 label: names that must be one label (NodePools, namespaces), ≤ 63 characters. */
export const DNS1123_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** An EC2 instance type: family and size (`m5.large`, `u-6tb1.metal`). */
export const INSTANCE_TYPE_PATTERN = '^[a-z0-9-]+\\.[a-z0-9-]+$';
/** An AWS availability zone (`us-east-1a`) or Local/Wavelength Zone (`us-west-2-lax-1a`). */
export const ZONE_PATTERN = '^[a-z]{2}-[a-z]+-[0-9]([a-z]|-[a-z0-9-]*[a-z0-9])$';
export const REGION_PATTERN = '^[a-z]{2}(-[a-z]+)+-[0-9]$';
/** A lower-case identifier (decision kinds, event actions). */
export const IDENTIFIER_PATTERN = '^[a-z][a-z0-9_.-]*$';
/** A cursor is opaque, but always base64url. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+={0,2}$';

const re = (pattern: string) => new RegExp(pattern);
/** str — a string; missing is "is required", anything else "must be a string". */
export const str = () => z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') });
const UUID_RE = re(UUID_PATTERN);
export const isUuid = (s: string): boolean => UUID_RE.test(s);

const dnsSubdomain = (what: string) =>
  z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(253, 'must be at most 253 characters')
    .regex(re(DNS1123_SUBDOMAIN), `must be a ${what} (a DNS-1123 subdomain: lower-case letters, digits, '-' and '.')`);
const dnsLabel = (what: string) =>
  z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(63, 'must be at most 63 characters')
    .regex(re(DNS1123_LABEL), `must be a ${what} (a DNS-1123 label: lower-case letters, digits and '-')`);

/** Path-parameter kinds. */
export const param = {
  /** A node by its Kubernetes name or by its id (uuid). */
  nodeKey: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(253, 'must be at most 253 characters')
    .refine((s) => UUID_RE.test(s) || re(DNS1123_SUBDOMAIN).test(s), "must be a node name (DNS-1123 subdomain) or a node id (uuid)")
    .meta({ pattern: `${DNS1123_SUBDOMAIN}|${UUID_PATTERN}` }),
  nodeName: dnsSubdomain('node name'),
  nodePoolName: dnsLabel('NodePool name'),
  uuid: (what: string) => str().regex(UUID_RE, `must be ${what} (a uuid)`),
};

const intFrom = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
    z.number({ error: 'must be a number' }).int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );
const boolFrom = () =>
  z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean({ error: 'must be true or false' }));
/** csv — a comma-separated list (`?zones=us-east-1a,us-east-1b`) of at most `max` items, each valid as `item`. */
const csv = (item: z.ZodString = z.string().min(1), max = 50) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v),
    z.array(item, { error: 'must be a comma-separated list' }).max(max, `must list at most ${max} values`),
  );
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of ${values.join(', ')}` });

/** Query (and body) value kinds. */
export const q = {
  intFrom,
  boolFrom,
  csv,
  oneOf,
  nodeName: dnsSubdomain('node name'),
  nodePoolName: dnsLabel('NodePool name'),
  namespace: dnsLabel('namespace'),
  instanceType: z
    .string({ error: 'must be a string' })
    .max(64, 'must be at most 64 characters')
    .regex(re(INSTANCE_TYPE_PATTERN), 'must be an EC2 instance type such as m5.large'),
  zone: str().max(64, 'must be at most 64 characters').regex(re(ZONE_PATTERN), 'must be an AWS zone such as us-east-1a'),
  region: str().max(32, 'must be at most 32 characters').regex(re(REGION_PATTERN), 'must be an AWS region such as us-east-1'),
  identifier: z
    .string({ error: 'must be a string' })
    .max(63, 'must be at most 63 characters')
    .regex(re(IDENTIFIER_PATTERN), "must be a lower-case identifier (letters, digits, '_', '.', '-')"),
};

/** pageShape — `limit` 1–500 (default 50) and an opaque `cursor` taken from the previous page's `nextCursor`. */
export const pageShape = {
  limit: intFrom(1, 500).default(50),
  cursor: z
    .string({ error: 'must be a string' })
    .max(512, 'must be at most 512 characters')
    .regex(re(CURSOR_PATTERN), 'must be a cursor from a previous page (nextCursor)')
    // What a cursor encodes reaches the database: a forged one with control characters stops here.
    .refine((c) => !CONTROL.test(Buffer.from(c, 'base64url').toString('utf8')), 'must be a cursor from a previous page (nextCursor)')
    .optional(),
};
