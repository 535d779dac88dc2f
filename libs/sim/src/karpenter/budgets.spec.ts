import { describe, expect, it } from '@jest/globals';
import { allowedDisruptions, hitWithin, parseGoDuration, UNBOUNDED, type DisruptionBudget, type DisruptionReason } from './budgets.js';
import { parseCron } from '@nodes-manager/disruption';

const NOW = new Date('2026-06-10T12:30:00Z'); // a Wednesday
const pool = (budgets?: DisruptionBudget[] | null) => ({ spec: { disruption: budgets === undefined ? {} : { budgets } } });

describe('allowedDisruptions (GetAllowedDisruptionsByReason, BuildDisruptionBudgetMapping)', () => {
  it.each<[string, DisruptionBudget[] | undefined, DisruptionReason, number, number, number]>([
    ['no budgets: the default 10% of 50 nodes is 5', undefined, 'Drifted', 50, 0, 5],
    ['10% rounds up: 10% of 5 nodes is 1', [{ nodes: '10%' }], 'Drifted', 5, 0, 1],
    ['10% of 0 nodes is 0', [{ nodes: '10%' }], 'Drifted', 0, 0, 0],
    ['15% of 21 nodes is 4 (3.15 rounded up)', [{ nodes: '15%' }], 'Empty', 21, 0, 4],
    ['a count is taken as is', [{ nodes: '3' }], 'Underutilized', 100, 0, 3],
    ['nodes already disrupting use up the budget', [{ nodes: '10%' }], 'Drifted', 50, 2, 3],
    ['never below zero', [{ nodes: '1' }], 'Drifted', 50, 4, 0],
    ['nodes: "0" for Drifted stops drift', [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }], 'Drifted', 50, 0, 0],
    ['…but not consolidation', [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }], 'Underutilized', 50, 0, 5],
    ['the most restrictive budget wins', [{ nodes: '50%' }, { nodes: '2', reasons: ['Drifted', 'Empty'] }], 'Drifted', 50, 0, 2],
    ['explicit budgets replace the default: a Drifted-only budget leaves other reasons unbounded', [{ nodes: '1', reasons: ['Drifted'] }], 'Empty', 50, 0, UNBOUNDED],
    ['a schedule active now (daily at 12:00 for 1h) limits', [{ nodes: '10%' }, { nodes: '0', schedule: '0 12 * * *', duration: '1h' }], 'Drifted', 50, 0, 0],
    ['a schedule that ended (daily at 12:00 for 30m; now 12:30) does not', [{ nodes: '10%' }, { nodes: '0', schedule: '0 12 * * *', duration: '30m' }], 'Drifted', 50, 0, 5],
    ['a schedule not yet started (daily at 13:00 for 8h) does not', [{ nodes: '10%' }, { nodes: '0', schedule: '0 13 * * *', duration: '8h' }], 'Drifted', 50, 0, 5],
    ['yesterday\'s 22:00 hit for 16h is still active', [{ nodes: '10%' }, { nodes: '0', schedule: '0 22 * * *', duration: '16h' }], 'Drifted', 50, 0, 0],
    ['weekdays only (mon-fri) applies on a Wednesday', [{ nodes: '10%' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }], 'Drifted', 50, 0, 0],
    ['@daily for 13h covers 12:30', [{ nodes: '10%' }, { nodes: '0', schedule: '@daily', duration: '13h' }], 'Drifted', 50, 0, 0],
    ['a misconfigured budget, even for another reason, fails closed to 0', [{ nodes: '10%' }, { nodes: '10%', reasons: ['Empty'], schedule: 'not a cron', duration: '1h' }], 'Drifted', 50, 0, 0],
    ['a schedule without a duration fails closed', [{ nodes: '10%', schedule: '0 12 * * *' }], 'Drifted', 50, 0, 0],
    ['nodes that are neither a count nor a percentage fail closed', [{ nodes: '10 nodes' }], 'Drifted', 50, 0, 0],
  ])('%s', (_, budgets, reason, nodes, disrupting, want) => {
    expect(allowedDisruptions(pool(budgets), reason, { nodes, disrupting }, NOW).allowed).toBe(want);
  });

  it('names the misconfigured budget', () => {
    expect(allowedDisruptions(pool([{ nodes: '10%' }, { nodes: '1', schedule: '61 * * * *', duration: '1h' }]), 'Drifted', { nodes: 10, disrupting: 0 }, NOW).errors)
      .toEqual([expect.stringMatching(/^budgets\[1\]: .*61/)]);
  });
});

describe('parseGoDuration', () => {
  it.each([['8h', 480], ['30m', 30], ['1h30m', 90], ['10m0s', 10], ['1d', undefined], ['', undefined], ['30s', undefined]])('%s is %s minutes', (text, minutes) => {
    const ms = parseGoDuration(text);
    expect(ms === undefined ? undefined : ms / 60_000).toBe(minutes);
  });
});

describe('hitWithin', () => {
  it.each([
    ['*/15 * * * *', '2026-06-10T12:44:00Z', '2026-06-10T12:45:00Z', true],
    ['*/15 * * * *', '2026-06-10T12:45:00Z', '2026-06-10T12:59:00Z', false], // the start is excluded
    ['0 9-17 * * 1-5', '2026-06-13T00:00:00Z', '2026-06-13T23:59:00Z', false], // a Saturday
    ['0 0 13 * fri', '2026-06-11T23:59:00Z', '2026-06-12T00:00:00Z', true], // both day fields set: either matches (a Friday, not the 13th)
  ])('%s fires within (%s, %s]: %s', (spec, from, to, want) => {
    expect(hitWithin(parseCron(spec), new Date(from), new Date(to))).toBe(want);
  });
});
