/**
 * Helpers over a flat EC2 Query parameter map (`Filter.1.Name=…&Filter.1.Value.1=…`). EC2 numbers list members
 * from 1; the SDK always sends them in order, but we sort numerically so `.10` follows `.9`.
 */
export type QueryParams = ReadonlyMap<string, string>;

/** Ec2ApiError — an error the simulator answers with EC2's error envelope and the given HTTP status. */
export class Ec2ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export function parseQuery(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(body)) out.set(k, v);
  return out;
}

/** indexesOf — the distinct N of `${prefix}.N` or `${prefix}.N.*` keys, ascending. */
function indexesOf(params: QueryParams, prefix: string): number[] {
  const seen = new Set<number>();
  const p = `${prefix}.`;
  for (const key of params.keys()) {
    if (!key.startsWith(p)) continue;
    const n = Number(key.slice(p.length).split('.')[0]);
    if (Number.isInteger(n) && n > 0) seen.add(n);
  }
  return [...seen].sort((a, b) => a - b);
}

/** listParam — values of `${prefix}.1`, `${prefix}.2`, … */
export function listParam(params: QueryParams, prefix: string): string[] {
  return indexesOf(params, prefix)
    .map((n) => params.get(`${prefix}.${n}`))
    .filter((v): v is string => v !== undefined);
}

/** structListParam — one sub-map per `${prefix}.N.*`, keys relative to the member (`Name`, `Value.1`). */
export function structListParam(params: QueryParams, prefix: string): Map<string, string>[] {
  return indexesOf(params, prefix).map((n) => {
    const p = `${prefix}.${n}.`;
    const sub = new Map<string, string>();
    for (const [k, v] of params) if (k.startsWith(p)) sub.set(k.slice(p.length), v);
    return sub;
  });
}

export interface Ec2Filter {
  readonly name: string;
  readonly values: string[];
}

export function filtersParam(params: QueryParams): Ec2Filter[] {
  return structListParam(params, 'Filter').map((f) => ({ name: f.get('Name') ?? '', values: listParam(f, 'Value') }));
}

/** globMatch — EC2 filter values accept `*` (any run) and `?` (one character). */
export function globMatch(pattern: string, value: string): boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) return pattern === value;
  const re = new RegExp(
    '^' +
      pattern
        .split('')
        .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
        .join('') +
      '$',
  );
  return re.test(value);
}

export function anyMatch(patterns: readonly string[], value: string | undefined): boolean {
  return value !== undefined && patterns.some((p) => globMatch(p, value));
}

export function boolParam(params: QueryParams, name: string): boolean {
  return params.get(name)?.toLowerCase() === 'true';
}

/** intParam — an optional integer parameter within [min, max], else InvalidParameterValue. */
export function intParam(params: QueryParams, name: string, min: number, max: number): number | undefined {
  const raw = params.get(name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Ec2ApiError('InvalidParameterValue', `Value (${raw}) for parameter ${name} is invalid. Expected a value between ${min} and ${max}.`);
  }
  return n;
}

export function dateParam(params: QueryParams, name: string): Date | undefined {
  const raw = params.get(name);
  if (raw === undefined) return undefined;
  const d = new Date(raw);
  if (Number.isNaN(d.getTime())) {
    throw new Ec2ApiError('InvalidParameterValue', `Value (${raw}) for parameter ${name} is invalid. Expected an ISO-8601 timestamp.`);
  }
  return d;
}

/** Page tokens are opaque to callers: base64url JSON carrying the offset and what the first page was bound to. */
export function encodeToken(state: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

export function decodeToken<T extends Record<string, unknown>>(token: string): T {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (v && typeof v === 'object') return v as T;
  } catch {
    // fall through to the EC2 error below
  }
  throw new Ec2ApiError('InvalidNextToken', 'The specified NextToken is not valid.');
}
