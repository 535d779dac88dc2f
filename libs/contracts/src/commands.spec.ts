import { describe, expect, it } from '@jest/globals';
import { approvalPattern, COMMAND_OWNER, commandOwner, serviceStatusPattern } from './commands.js';
import { ServiceNames } from './events.js';

describe('commandOwner — the service a pattern goes to', () => {
  it('is the owner of every command of the catalogue', () => {
    for (const [pattern, owner] of Object.entries(COMMAND_OWNER)) expect(commandOwner(pattern)).toBe(owner);
  });
  it('is the service a per-service pattern names', () => {
    for (const s of ServiceNames) {
      expect(commandOwner(serviceStatusPattern(s))).toBe(s);
      for (const verb of ['list', 'get', 'approve', 'reject'] as const) expect(commandOwner(approvalPattern(s, verb))).toBe(s);
    }
  });
  it.each(['service.status', 'nodes.lists', 'service.status.nowhere', 'approvals.list.nowhere', 'approvals.drop.uncordon'])('refuses %s', (p) => {
    expect(() => commandOwner(p)).toThrow(/no service answers/);
  });
});
