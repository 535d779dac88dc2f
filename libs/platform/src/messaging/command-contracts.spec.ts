import { describe, expect, it } from '@jest/globals';
import type { CommandReply } from '@nodes-manager/contracts';
import { asWire, ReplyContractError, SCHEMAS_DIGEST } from './command-contracts.js';
import { receivedReply } from './commands.js';

describe('asWire', () => {
  it('returns a value that is JSON already as it is, not a copy', () => {
    const page = { items: [{ name: 'a', labels: { x: 'y' }, taints: [], createdAt: '2026-01-01T00:00:00.000Z', ready: true, podCount: 3, nodePool: null }], nextCursor: 'c' };
    expect(asWire(page)).toBe(page);
  });

  it.each([
    ['a Date becomes its ISO string', { at: new Date('2026-01-01T00:00:00Z') }, { at: '2026-01-01T00:00:00.000Z' }],
    ['an undefined field goes', { a: 1, b: undefined }, { a: 1 }],
    ['an undefined array item becomes null', [1, undefined], [1, null]],
    ['a non-finite number becomes null', { n: Number.NaN }, { n: null }],
    ['an object with toJSON is what toJSON says', { v: { toJSON: () => 'v' } }, { v: 'v' }],
    ['a class instance becomes its own fields', { p: new (class P { x = 1 })() }, { p: { x: 1 } }],
    ['undefined itself becomes null', undefined, null],
  ])('copies through JSON what JSON would change: %s', (_what, value, wire) => {
    expect(asWire(value)).toEqual(wire);
  });
});

describe('receivedReply', () => {
  // `nodes.list` answers `{ items: [...] }`: a string where the page is breaks the schema.
  const broken = (checked?: string): CommandReply => ({ ok: true, data: 'not a page', ...(checked ? { checked } : {}) });

  it('checks a reply that carries no digest, or another process\'s schemas\' digest', () => {
    expect(() => receivedReply(broken(), 'node-sync', 'nodes.list')).toThrow(ReplyContractError);
    expect(() => receivedReply(broken('0123456789abcdef'), 'node-sync', 'nodes.list')).toThrow(ReplyContractError);
  });

  it('does not check again a reply its handler checked against the same schemas', () => {
    expect(receivedReply(broken(SCHEMAS_DIGEST), 'node-sync', 'nodes.list')).toBe('not a page');
  });
});
