import { describe, expect, it } from '@jest/globals';
import { decidePublishPlan, plannedContent, type PlanFacts } from './planned-content.js';

const aPlan = (over: Partial<PlanFacts> = {}): PlanFacts => ({
  remove: [{ node: 'n2', reason: 'underutilized', utilization: 0.21, savingsUsdPerHour: 0.04 }],
  blocked: [{}],
  hourlySavingsUsd: 0.04,
  monthlySavingsUsd: 29.2,
  ...over,
});
const content = (over: Partial<PlanFacts> = {}, mode: 'plan' | 'execute' = 'plan', source = 'spot-advisor') => plannedContent(aPlan(over), mode, source);
const loop = { askedByCaller: false, executing: false };

describe('decidePublishPlan', () => {
  it.each([
    ['the first plan is published', content(), undefined, loop, true, 'FIRST_PLAN'],
    ['the same plan again is not', content(), content(), loop, false, 'UNCHANGED'],
    ['another node to remove is', content({ remove: [{ node: 'n3', reason: 'empty', utilization: 0, savingsUsdPerHour: 0.05 }] }), content(), loop, true, 'CONTENT_CHANGED'],
    ['a changed saving (new prices) is', content({ hourlySavingsUsd: 0.05 }), content(), loop, true, 'CONTENT_CHANGED'],
    ['another price source is', content({}, 'plan', 'bundled-catalog'), content(), loop, true, 'CONTENT_CHANGED'],
    ['one more blocked node is', content({ blocked: [{}, {}] }), content(), loop, true, 'CONTENT_CHANGED'],
    ['the same plan asked for by a caller is', content(), content(), { askedByCaller: true, executing: false }, true, 'ASKED_BY_CALLER'],
    ['the same plan about to be executed is', content({}, 'execute'), content({}, 'execute'), { askedByCaller: false, executing: true }, true, 'EXECUTING'],
  ])('%s', (_, next, previous, opts, publish, reason) => {
    expect(decidePublishPlan(next, previous, opts)).toEqual({ publish, reason });
  });
});
