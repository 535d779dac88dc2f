import { describe, expect, it } from '@jest/globals';
import type { OptimizePlan } from '@nodes-manager/contracts';
import { replyProblems } from '@nodes-manager/platform';
import { plannedRemovals } from './consolidation-planning.service.js';

const plan = (remove: OptimizePlan['remove']): OptimizePlan => ({ remove, blocked: [], pdbImpact: [], hourlySavingsUsd: 0, monthlySavingsUsd: 0 });
const removal = (node: string, reason: 'empty' | 'underutilized') => ({ node, reason, utilization: 0.1, pods: [], savingsUsdPerHour: 0.04, priceKnown: true });

describe('plannedRemovals (the optimize.plan reply)', () => {
  it.each([
    ['a plan with removals', plan([removal('a', 'empty'), removal('b', 'underutilized')]), [{ node: 'a', reason: 'empty' }, { node: 'b', reason: 'underutilized' }]],
    ['an empty plan', plan([]), []],
  ])('reads %s', (_what, reply, expected) => {
    expect(plannedRemovals(reply)).toEqual(expected);
  });

  // The reply's shape is held by its schema on the bus (libs/contracts), not guessed at here: what is not a plan never reaches plannedRemovals.
  it.each([
    ['null', null, 'data'],
    ['a list', [], 'data'],
    ['a plan without remove', { blocked: [], pdbImpact: [], hourlySavingsUsd: 0, monthlySavingsUsd: 0 }, 'remove'],
    ['a plan wrapped under plan', { plan: plan([]) }, 'remove'],
    ['a removal without a node name', plan([{ ...removal('c', 'empty'), node: undefined as unknown as string }]), 'remove.0.node'],
  ])('the bus refuses %s as a reply of optimize.plan, naming the field', (_what, reply, field) => {
    expect(replyProblems('optimize.plan', reply)).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'command', field })]));
  });
});
