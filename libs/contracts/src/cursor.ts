/**
 * Keyset cursors (docs/design.md#pagination). A cursor is base64url of the compact JSON array of the last item's sort
 * key — opaque to clients, the same shape for every list. Each list declares its key once as a {@link cursorCodec}
 * of typed parts; decoding checks the arity, each part's type and that the cursor is byte for byte one the codec
 * would have issued, so nothing a client made up reaches a query (a timestamp that is not RFC 3339, an id that is
 * not a uuid) and every list refuses a bad cursor the same way: VALIDATION_FAILED naming `cursor` (HTTP 400).
 */

/** CursorPart — one typed part of a sort key: what it must be, in words, and the check. */
export interface CursorPart<T> {
  readonly expected: string;
  readonly accepts: (value: unknown) => value is T;
}

type PartValue<P> = P extends CursorPart<infer T> ? T : never;
/** CursorKey — the decoded key of a codec made of `P`, part by part. */
export type CursorKey<P extends readonly CursorPart<unknown>[]> = { -readonly [K in keyof P]: PartValue<P[K]> };

/** The longest text part a cursor carries: the longest name or id any list sorts by, with room to spare. */
const MAX_TEXT = 1024;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;

/** isRfc3339 — a full RFC 3339 date-time (years 0001–9999, a real calendar day, an offset), as Postgres reads one. */
export function isRfc3339(v: unknown): v is string {
  const m = typeof v === 'string' ? RFC3339.exec(v) : null;
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  const offsetOk = m[8] === 'Z' || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth && h <= 23 && mi <= 59 && s <= 59 && offsetOk;
}

const part = <T>(expected: string, accepts: (value: unknown) => boolean): CursorPart<T> => ({
  expected,
  accepts: accepts as (value: unknown) => value is T,
});

/** The part types lists sort by. */
export const cursorParts = {
  /** An RFC 3339 date-time (`2026-12-01T10:00:00.000Z`). */
  timestamp: part<string>('an RFC 3339 time', isRfc3339),
  /** A uuid in its canonical 8-4-4-4-12 hex form. */
  uuid: part<string>('a uuid', (v) => typeof v === 'string' && UUID.test(v)),
  /** A safe integer (a JSON number, never a numeric string). */
  integer: part<number>('an integer', (v) => typeof v === 'number' && Number.isSafeInteger(v)),
  /** Non-empty text without control characters, at most 1024 characters (a name, `namespace/name`). */
  text: part<string>('a name', (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT && !CONTROL.test(v)),
  /** One of a fixed set of words (the sort a cursor was issued for). */
  oneOf: <const W extends string>(words: readonly W[]): CursorPart<W> => part<W>(`one of ${words.join(', ')}`, (v) => typeof v === 'string' && (words as readonly string[]).includes(v)),
  /** `inner`, or null where the sort has no such key. */
  nullable: <T>(inner: CursorPart<T>): CursorPart<T | null> => part<T | null>(`${inner.expected} or null`, (v) => v === null || inner.accepts(v)),
  /** A part with a check of its own (an approval id). */
  custom: <T extends string>(expected: string, accepts: (v: string) => boolean): CursorPart<T> => part<T>(expected, (v) => typeof v === 'string' && accepts(v)),
} as const;

/**
 * InvalidCursorError — a cursor the list did not issue. Its `code` and `details` are those of VALIDATION_FAILED on
 * the query field `cursor`, so a service's command handler answers it as such without catching it, and the gateway
 * maps it to 400 (docs/api.md).
 */
export class InvalidCursorError extends Error {
  readonly code = 'VALIDATION_FAILED' as const;
  readonly details: { errors: { in: 'query'; field: 'cursor'; message: string }[] };
  constructor(readonly problem = 'is not one this API issued (pass back a nextCursor unchanged)') {
    super(`cursor: ${problem}`);
    this.name = 'InvalidCursorError';
    this.details = { errors: [{ in: 'query', field: 'cursor', message: problem }] };
  }
}

/** CursorCodec — the cursor of one list: `encode` the last item's key, `decode` a client's cursor or throw. */
export interface CursorCodec<K> {
  readonly parts: readonly string[];
  encode(key: K): string;
  /** decode — the key of a cursor this codec issued; throws {@link InvalidCursorError} for anything else. */
  decode(cursor: string): K;
  /** check — the key of a cursor, or the words saying why it is not one (never throws). */
  check(cursor: string): { ok: true; key: K } | { ok: false; problem: string };
}

/** cursorCodec — the codec of a list whose sort key is made of `parts`, in order. */
export function cursorCodec<const P extends readonly CursorPart<unknown>[]>(...parts: P): CursorCodec<CursorKey<P>> {
  const encode = (key: CursorKey<P>): string => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
  const check = (cursor: string): { ok: true; key: CursorKey<P> } | { ok: false; problem: string } => {
    let key: unknown;
    try {
      key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, problem: 'is not one this API issued: it is not base64url of a JSON key' };
    }
    if (!Array.isArray(key) || key.length !== parts.length) return { ok: false, problem: `is not one this list issued: its key is not ${parts.length} part${parts.length === 1 ? '' : 's'}` };
    const bad = parts.findIndex((p, i) => !p.accepts(key[i]));
    if (bad >= 0) return { ok: false, problem: `is not one this list issued: part ${bad + 1} of its key is not ${parts[bad]!.expected}` };
    if (encode(key as CursorKey<P>) !== cursor) return { ok: false, problem: 'is not one this API issued: it was altered' };
    return { ok: true, key: key as CursorKey<P> };
  };
  return {
    parts: parts.map((p) => p.expected),
    encode,
    check,
    decode(cursor) {
      const r = check(cursor);
      if (!r.ok) throw new InvalidCursorError(r.problem);
      return r.key;
    },
  };
}
