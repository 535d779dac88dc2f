import { describe, expect, it } from '@jest/globals';
import { matchesBinding } from './routing.js';

describe('matchesBinding (AMQP topic rules)', () => {
  it.each([
    ['# matches everything', '#', 'node.drain.started', true],
    ['an exact key matches itself', 'node.uncordoned', 'node.uncordoned', true],
    ['* matches exactly one word', 'node.*', 'node.added', true],
    ['* does not match two words', 'node.*', 'node.drain.started', false],
    ['# at the end matches several words', 'node.#', 'node.drain.failed', true],
    ['# matches zero words', 'node.#', 'node', true],
    ['a different word does not match', 'nodepool.*', 'node.added', false],
    ['heartbeat.* matches every service heartbeat', 'heartbeat.*', 'heartbeat.node-sync', true],
  ])('%s', (_, binding, key, expected) => {
    expect(matchesBinding(binding, key)).toBe(expected);
  });
});
