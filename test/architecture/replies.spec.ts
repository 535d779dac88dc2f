// Every command's reply is checked against its schema over generated domain states (libs/platform/testing
// `checkReplies`), in a test/replies.spec.ts of the service that answers it: a domain answer its contract cannot carry
// is a contract bug (placement.list answered 500 for a pod on a node that no longer took it). A command is covered when
// its owner's replies.spec.ts names it (`Commands.<name>`); one not covered yet is listed in PENDING with why, and a
// listed one that gets covered fails here until it leaves the list.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { COMMAND_OWNER, Commands } from '@nodes-manager/contracts';

/** Commands whose replies are not yet driven over generated states, by owner; each needs its builder drawn out of I/O. */
const PENDING: readonly string[] = [
  'nodes.list', 'node.get', 'nodehours.list',
  'node.drain', 'drain.get', 'cordons.list', 'events.list', 'rebalances.list', 'rebalances.summary', 'interruptions.list', 'interruptions.rates', 'fencing.status', 'pressure.list', 'pause.get', 'pause.set', 'pause.clear',
  'decisions.list', 'optimize.trigger', 'optimize.replace',
  'nodepool.create', 'nodepool.update', 'nodepool.delete', 'nodepool.consolidate', 'steering.status', 'steering.report', 'steering.pools',
  'spot.market', 'spot.prices', 'spot.history', 'instancetypes.list', 'instance.provision', 'instance.fence', 'instances.describe',
];

const NAME_OF = new Map(Object.entries(Commands).map(([name, pattern]) => [pattern as string, name]));

/** uncovered — each command of `owners` whose owner's replies spec (path → text) does not name it. */
export function uncovered(owners: Readonly<Record<string, string>>, specs: ReadonlyMap<string, string>): string[] {
  return Object.entries(owners)
    .filter(([pattern, owner]) => !(specs.get(`services/${owner}/test/replies.spec.ts`) ?? '').includes(`Commands.${NAME_OF.get(pattern)}`))
    .map(([pattern]) => pattern)
    .sort();
}

const specs = (): Map<string, string> =>
  new Map(
    [...new Set(Object.values(COMMAND_OWNER))]
      .map((s) => `services/${s}/test/replies.spec.ts`)
      .filter((f) => existsSync(f))
      .map((f) => [f, readFileSync(f, 'utf8')]),
  );

describe('reply contracts', () => {
  it('every command is checked over generated states in its owner\'s test/replies.spec.ts, or listed as pending', () => {
    expect(uncovered(COMMAND_OWNER, specs())).toEqual([...PENDING].sort());
  });

  it('fails on a command no replies spec names, and on a pending one that is covered', () => {
    const planted = new Map(specs());
    const mine = 'services/scheduler-scoring/test/replies.spec.ts';
    planted.set(mine, (planted.get(mine) ?? '').replaceAll('Commands.simulate', 'Commands.elsewhere'));
    expect(uncovered(COMMAND_OWNER, planted)).toContain('simulate.run');
    planted.set('services/node-sync/test/replies.spec.ts', 'checkReplies(Commands.nodesList, …)');
    expect(uncovered(COMMAND_OWNER, planted)).not.toContain('nodes.list');
  });
});
