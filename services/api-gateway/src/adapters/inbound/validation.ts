import { z } from 'zod';
import { CodedError } from '@nodes-manager/platform';

/**
 * parseInput — validates a query or body against a zod schema; on failure a VALIDATION_FAILED error (HTTP 400)
 * whose message names every bad field and its problem, and nothing is forwarded.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: 'query' | 'body' | 'path'): z.infer<S> {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => ({
    field: i.path.length ? i.path.join('.') : where,
    problem: i.code === 'unrecognized_keys' ? `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}` : i.message,
  }));
  throw new CodedError(
    'VALIDATION_FAILED',
    problems.map((p) => `${p.field}: ${p.problem}`).join('; '),
    { in: where, problems },
  );
}

const intFrom = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
    z.number({ error: 'must be a number' }).int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );
const boolFrom = () =>
  z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean({ error: 'must be true or false' }));
const csv = () =>
  z.preprocess((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v), z.array(z.string().min(1)));

export const q = { intFrom, boolFrom, csv };

/** pageQuery — `limit` 1–500 (default 50) and an opaque `cursor`. */
export const pageShape = {
  limit: intFrom(1, 500).default(50),
  cursor: z.string().min(1).max(512).optional(),
};
