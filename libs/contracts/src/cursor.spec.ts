import { describe, expect, it } from '@jest/globals';
import { cursorCodec, cursorParts as p, InvalidCursorError, isRfc3339 } from './cursor.js';
import { LIST_CURSORS } from './list-cursors.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const byTime = cursorCodec(p.timestamp, p.uuid);
const byName = cursorCodec(p.text);
const bySortTimeName = LIST_CURSORS['nodes'];
const byCount = cursorCodec(p.integer, p.text);

describe('keyset cursors', () => {
  it.each([
    ['a name', byName, ['ip-10-0-1-5.ec2.internal']],
    ['a time and an id', byTime, ['2026-12-01T10:00:00.000Z', '0b9f6f3e-6b7c-4d38-9a55-2f9b1f7b5c11']],
    ['a sort, a missing time and a name', bySortTimeName, ['-name', null, 'node-a']],
    ['a sort, a time and a name', bySortTimeName, ['created', '1970-01-01T00:00:00.000Z', 'node-a']],
    ['a count and a name', byCount, [42, 'node-a']],
    ['a key with non-ASCII text', byName, ['ns/pod-ü']],
    ['an approval key', LIST_CURSORS['approvals'], ['2026-12-01T10:00:00+02:00', 'fence-0b9f6f3e-6b7c-4d38-9a55-2f9b1f7b5c11']],
  ])('give back the key they were made from: %s', (_what, codec, key) => {
    const c = codec as unknown as ReturnType<typeof cursorCodec>;
    expect(c.decode(c.encode(key as never))).toEqual(key);
  });

  it.each([
    ['text that is not base64url JSON', byName, 'garbage', 'not base64url'],
    ['base64url of text that is not JSON', byName, b64('not-a-cursor'), 'not base64url'],
    ['a JSON object instead of an array', byName, b64('{"n":"a"}'), 'not 1 part'],
    ["a key of another length (another list's cursor)", byName, byTime.encode(['2026-01-01T00:00:00Z', '0b9f6f3e-6b7c-4d38-9a55-2f9b1f7b5c11']), 'not 1 part'],
    ['a key holding a number where a name goes', byName, b64('[1]'), 'part 1 of its key is not a name'],
    ['a key holding an empty name', byName, b64('[""]'), 'part 1'],
    ['a name with a control character', byName, b64('["a\\u0000b"]'), 'part 1'],
    ['two words where a time and an id go (["x","y"])', byTime, b64('["x","y"]'), 'part 1 of its key is not an RFC 3339 time'],
    ['a time and something that is not a uuid', byTime, b64('["2026-01-01T00:00:00Z","not-a-uuid"]'), 'part 2 of its key is not a uuid'],
    ['a date without a time', byTime, b64('["2026-01-01","0b9f6f3e-6b7c-4d38-9a55-2f9b1f7b5c11"]'), 'part 1'],
    ['a numeric string where an integer goes', byCount, b64('["42","a"]'), 'part 1 of its key is not an integer'],
    ['a fraction where an integer goes', byCount, b64('[1.5,"a"]'), 'part 1'],
    ['a sort no list has', bySortTimeName, b64('["size",null,"a"]'), 'part 1 of its key is not one of name'],
    ['a time that is text', bySortTimeName, b64('["created","soon","a"]'), 'part 2 of its key is not an RFC 3339 time or null'],
    ['an approval id of no kind', LIST_CURSORS['approvals'], b64('["2026-01-01T00:00:00Z","x-0b9f6f3e-6b7c-4d38-9a55-2f9b1f7b5c11"]'), 'part 2'],
    ['a cursor with padding added', byName, `${byName.encode(['node-a'])}==`, 'altered'],
    ['a cursor with spaces in its JSON', byName, b64('[ "node-a" ]'), 'altered'],
    ['an empty cursor', byName, '', 'not base64url'],
  ])('refuse %s, naming the cursor and why', (_what, codec, cursor, why) => {
    const c = codec as unknown as ReturnType<typeof cursorCodec>;
    const r = c.check(cursor);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.problem).toContain(why);
    let thrown: unknown;
    try {
      c.decode(cursor);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidCursorError);
    expect(thrown).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ in: 'query', field: 'cursor' }] } });
  });

  it.each([
    ['2026-12-01T10:00:00Z', true],
    ['2026-12-01T10:00:00.123456Z', true],
    ['2026-12-01T10:00:00-05:30', true],
    ['2024-02-29T00:00:00Z', true],
    ['2026-02-29T00:00:00Z', false],
    ['2026-13-01T00:00:00Z', false],
    ['2026-12-01T24:00:00Z', false],
    ['0000-01-01T00:00:00Z', false],
    ['2026-12-01 10:00:00Z', false],
    ['2026-12-01T10:00:00', false],
    ['2026-12-01T10:00:00+25:00', false],
  ])('%s is an RFC 3339 time: %s', (text, expected) => {
    expect(isRfc3339(text)).toBe(expected);
  });
});
