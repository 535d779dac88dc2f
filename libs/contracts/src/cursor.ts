/**
 * Keyset cursors (docs/design.md#pagination). A cursor is base64url of the JSON array of the last item's sort key —
 * opaque to clients, the same shape for every list, so every list checks a cursor the same way.
 */
export type CursorKey = readonly (string | null)[];

/** encodeCursor — the cursor after an item whose sort key is `key`. */
export const encodeCursor = (key: CursorKey): string => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

/**
 * decodeCursor — the sort key of a cursor `encodeCursor` issued with `arity` parts; undefined for anything else
 * (a different list's cursor, an edited or made-up one), which the list answers with VALIDATION_FAILED on `cursor`.
 */
export function decodeCursor(cursor: string, arity: number): (string | null)[] | undefined {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(key) || key.length !== arity || !key.every((p) => p === null || typeof p === 'string')) return undefined;
  return encodeCursor(key) === cursor ? (key as (string | null)[]) : undefined;
}
