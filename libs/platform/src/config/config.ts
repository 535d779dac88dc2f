import { z } from 'zod';

/**
 * Configuration: every service validates `process.env` once at start against one zod schema. All problems are
 * reported together in one {@link ConfigError}; variables marked secret are never printed (see {@link redactConfig}).
 */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: readonly { variable: string; problem: string }[],
  ) {
    super(
      `${service}: refusing to start, ${problems.length} configuration problem${problems.length === 1 ? '' : 's'}:\n` +
        problems.map((p) => `  - ${p.variable}: ${p.problem}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

const emptyToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** Helpers that parse env strings; each names its expectation so the error message says what is wrong. */
export const env = {
  string: () => z.preprocess(emptyToUndefined, z.string({ error: 'is required' })),
  optionalString: () => z.preprocess(emptyToUndefined, z.string().optional()),
  url: (protocols: readonly string[]) =>
    z.preprocess(
      emptyToUndefined,
      z
        .string({ error: 'is required' })
        .refine((v) => {
          try {
            return protocols.includes(new URL(v).protocol.replace(':', ''));
          } catch {
            return false;
          }
        }, `must be a URL with scheme ${protocols.join(' or ')}`),
    ),
  bool: (dflt: boolean) =>
    z.preprocess(
      (v) => emptyToUndefined(v) ?? String(dflt),
      z
        .string()
        .transform((s) => s.toLowerCase())
        .refine((s) => ['true', 'false', '1', '0', 'yes', 'no'].includes(s), 'must be true or false')
        .transform((s) => s === 'true' || s === '1' || s === 'yes'),
    ),
  /** A number from a string; `dflt` undefined makes it required. */
  number: (opts: { dflt?: number; min?: number; max?: number; int?: boolean }) =>
    z.preprocess(
      (v) => {
        const s = emptyToUndefined(v);
        if (s === undefined) return opts.dflt;
        const n = Number(s);
        return Number.isNaN(n) ? s : n;
      },
      (() => {
        let n = z.number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a number') });
        if (opts.int) n = n.int('must be a whole number');
        if (opts.min !== undefined) n = n.min(opts.min, `must be at least ${opts.min}`);
        if (opts.max !== undefined) n = n.max(opts.max, `must be at most ${opts.max}`);
        return n;
      })(),
    ),
  port: (dflt?: number) => env.number({ dflt, min: 0, max: 65535, int: true }),
  list: (dflt: readonly string[]) =>
    z.preprocess(
      (v) => {
        const s = emptyToUndefined(v);
        return s === undefined ? [...dflt] : String(s).split(',').map((x) => x.trim()).filter(Boolean);
      },
      z.array(z.string()),
    ),
  oneOf: <T extends string>(values: readonly [T, ...T[]], dflt: T) =>
    z.preprocess((v) => emptyToUndefined(v) ?? dflt, z.enum(values, { error: `must be one of ${values.join(', ')}` })),
};

export type EnvShape = Record<string, z.ZodType>;

export interface ServiceConfigSpec<S extends EnvShape> {
  service: string;
  shape: S;
  /** Variables whose values must never be logged. */
  secrets: readonly (keyof S & string)[];
}

/** loadConfig — validates `source` against the spec; throws one ConfigError listing every bad or missing variable. */
export function loadConfig<S extends EnvShape>(
  spec: ServiceConfigSpec<S>,
  source: NodeJS.ProcessEnv = process.env,
): z.infer<z.ZodObject<S>> {
  const result = z.object(spec.shape).safeParse(source);
  if (result.success) return result.data as z.infer<z.ZodObject<S>>;
  const problems = result.error.issues.map((i) => ({
    variable: String(i.path[0] ?? '(root)'),
    problem: i.message,
  }));
  throw new ConfigError(spec.service, problems);
}

/** redactConfig — a copy safe to log: secrets replaced, credentials inside URLs masked. */
export function redactConfig(config: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (secrets.includes(k)) out[k] = v === undefined ? undefined : '[REDACTED]';
    else if (typeof v === 'string' && /^[a-z]+:\/\/[^/]*@/i.test(v)) out[k] = maskUrlCredentials(v);
    else out[k] = v;
  }
  return out;
}

export function maskUrlCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');
  }
}

/** defineConfigSpec — declares a service's config spec with its types preserved. */
export function defineConfigSpec<S extends EnvShape>(spec: ServiceConfigSpec<S>): ServiceConfigSpec<S> {
  return spec;
}

/** splitMode — the same spec with `RABBITMQ_URL` required: split mode has no other way to talk (docs/design.md#two-ways-to-run). */
export function splitMode<S extends EnvShape>(spec: ServiceConfigSpec<S>): ServiceConfigSpec<S> {
  return { ...spec, shape: { ...spec.shape, RABBITMQ_URL: env.url(['amqp', 'amqps']) } };
}
