import { describe, expect, it } from '@jest/globals';
import type { ConsolidationPlan } from '@nodes-manager/scoring';
import { decideBlockedEvents, type AnnouncedBlock } from './decide-blocked-events.js';

type Blocked = ConsolidationPlan['blocked'][number];
const NOW = new Date('2026-03-01T12:00:00Z');
const OPTS = { refreshMs: 30 * 60_000, max: 50 };
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

const keptBy = (node: string, ...pdbs: string[]): Blocked => ({
  node,
  reason: 'pdb_exhausted',
  detail: pdbs.map((p) => `PodDisruptionBudget ${p} allows 0 more, needs 1`).join('; '),
  pdbs,
});
const announced = (node: string, pdbs: string[], at: Date): [string, AnnouncedBlock] => [node, { pdbs, at }];

describe('decideBlockedEvents', () => {
  it.each<[string, Blocked[], [string, AnnouncedBlock][], { node: string; why: string; pdbs: string[] }[], string[]]>([
    ['a node newly kept by a budget gets an Event', [keptBy('n1', 'default/db')], [], [{ node: 'n1', why: 'blocked', pdbs: ['default/db'] }], []],
    ['a node still kept by the same budget gets nothing within the refresh', [keptBy('n1', 'default/db')], [announced('n1', ['default/db'], minutesAgo(29))], [], []],
    ['a node still kept when its Event is as old as the refresh is announced again', [keptBy('n1', 'default/db')], [announced('n1', ['default/db'], minutesAgo(30))], [{ node: 'n1', why: 'still_blocked', pdbs: ['default/db'] }], []],
    ['a node now kept by another budget is announced again', [keptBy('n1', 'shop/cart')], [announced('n1', ['default/db'], minutesAgo(1))], [{ node: 'n1', why: 'other_budgets', pdbs: ['shop/cart'] }], []],
    ['a node kept by two budgets names both, sorted', [keptBy('n1', 'shop/cart', 'default/db')], [], [{ node: 'n1', why: 'blocked', pdbs: ['default/db', 'shop/cart'] }], []],
    ['a node the plan no longer keeps is forgotten (kept again later, it is news)', [], [announced('n1', ['default/db'], minutesAgo(1))], [], ['n1']],
    [
      'a node kept for another reason than a budget gets no Event, and is forgotten',
      [{ node: 'n1', reason: 'pods_do_not_fit', detail: 'pod default/big-1 fits on no remaining node' }],
      [announced('n1', ['default/db'], minutesAgo(1))],
      [],
      ['n1'],
    ],
    ['a budget detail that names no budget is not announced', [{ node: 'n1', reason: 'pdb_exhausted', detail: 'x' }], [], [], []],
  ])('%s', (_, blocked, before, expected, forget) => {
    const d = decideBlockedEvents(blocked, new Map(before), NOW, OPTS);
    expect(d.events.map((e) => ({ node: e.node, why: e.why, pdbs: e.pdbs }))).toEqual(expected);
    expect(d.forget).toEqual(forget);
  });

  it('writes at most `max` Events a plan; the rest are still news for the next one', () => {
    const blocked = ['n1', 'n2', 'n3'].map((n) => keptBy(n, 'default/db'));
    const first = decideBlockedEvents(blocked, new Map(), NOW, { ...OPTS, max: 2 });
    expect(first.events.map((e) => e.node)).toEqual(['n1', 'n2']);
    const next = decideBlockedEvents(blocked, new Map(first.events.map((e) => announced(e.node, [...e.pdbs], NOW))), NOW, { ...OPTS, max: 2 });
    expect(next.events.map((e) => e.node)).toEqual(['n3']);
  });

  it.each([
    ['one budget', keptBy('ip-10-0-1-7', 'default/db'), 'the consolidation plan keeps ip-10-0-1-7: PodDisruptionBudget default/db allows 0 more, needs 1; planned again once the budget allows it'],
    [
      'two budgets',
      keptBy('ip-10-0-1-7', 'default/db', 'shop/cart'),
      'the consolidation plan keeps ip-10-0-1-7: PodDisruptionBudget default/db allows 0 more, needs 1; PodDisruptionBudget shop/cart allows 0 more, needs 1; planned again once the budgets allow it',
    ],
  ])('the Event names the node and each budget in words (%s)', (_, b, message) => {
    expect(decideBlockedEvents([b], new Map(), NOW, OPTS).events.map((e) => e.message)).toEqual([message]);
  });
});
