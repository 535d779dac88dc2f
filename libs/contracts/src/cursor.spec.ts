import { describe, expect, it } from '@jest/globals';
import { decodeCursor, encodeCursor } from './cursor.js';

describe('keyset cursors', () => {
  it.each([
    ['a name', ['ip-10-0-1-5.ec2.internal']],
    ['a time and an id', ['2026-12-01T10:00:00.000Z', '0b9f6f3e-6b7c-4d38-9a55-2f9b1f7b5c11']],
    ['a sort, a missing key and a name', ['-created', null, 'node-a']],
    ['a key with non-ASCII text', ['ns/pod-ü']],
  ])('give back the key they were made from: %s', (_what, key) => {
    expect(decodeCursor(encodeCursor(key), key.length)).toEqual(key);
  });

  it.each([
    ['text that is not base64url JSON', 'garbage', 1],
    ['base64url of text that is not JSON', Buffer.from('not-a-cursor').toString('base64url'), 1],
    ['a JSON object instead of an array', Buffer.from('{"n":"a"}').toString('base64url'), 1],
    ['a key of another length (another list\'s cursor)', encodeCursor(['a', 'b']), 1],
    ['a key holding a number', Buffer.from('[1]').toString('base64url'), 1],
    ['a cursor with padding added', `${encodeCursor(['node-a'])}==`, 1],
    ['an empty cursor', '', 1],
  ])('refuse %s', (_what, cursor, arity) => {
    expect(decodeCursor(cursor, arity)).toBeUndefined();
  });
});
