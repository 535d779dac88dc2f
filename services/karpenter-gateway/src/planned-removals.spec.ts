import { describe, expect, it } from '@jest/globals';
import { plannedRemovals } from './karpenter-gateway.service.js';

describe('plannedRemovals (the optimize.plan reply)', () => {
  it.each([
    ['a ConsolidationPlan at the top level', { remove: [{ node: 'a', reason: 'empty', utilization: 0 }], blocked: [] }, [{ node: 'a', reason: 'empty' }]],
    ['a plan wrapped under plan', { plan: { remove: [{ node: 'b', reason: 'underutilized' }] }, id: 'x' }, [{ node: 'b', reason: 'underutilized' }]],
    ['an empty plan', { remove: [] }, []],
    ['entries without a node name are ignored', { remove: [{ reason: 'empty' }, { node: 'c' }] }, [{ node: 'c' }]],
  ])('reads %s', (_what, reply, expected) => {
    expect(plannedRemovals(reply)).toEqual(expected);
  });

  it.each([['null', null], ['a list', []], ['a plan without remove', { blocked: [] }]])('refuses %s as UPSTREAM_ERROR', (_what, reply) => {
    expect(() => plannedRemovals(reply)).toThrow(expect.objectContaining({ code: 'UPSTREAM_ERROR' }) as unknown as Error);
  });
});
