import fc from 'fast-check';
import type { SentPattern } from '@nodes-manager/contracts';
import { asWire, replyProblems } from '../messaging/command-contracts.js';

/**
 * checkReplies — a command's reply builder driven over generated domain states (fast-check), each reply checked, as
 * it travels (JSON), against the command's reply schema: a state the domain can reach and the contract cannot carry
 * fails with the shrunk state and each bad field. Every service's test/replies.spec.ts checks its commands with it
 * (test/architecture/replies.spec.ts).
 */
export async function checkReplies<S>(
  pattern: SentPattern,
  states: fc.Arbitrary<S>,
  reply: (state: S) => unknown,
  opts: { readonly numRuns?: number; readonly seed?: number } = {},
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(states, async (state) => {
      const problems = replyProblems(pattern, asWire(await reply(state)));
      if (problems.length > 0) throw new Error(`the ${pattern} reply breaks its schema: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`);
    }),
    { numRuns: opts.numRuns ?? 100, ...(opts.seed !== undefined ? { seed: opts.seed } : {}) },
  );
}
