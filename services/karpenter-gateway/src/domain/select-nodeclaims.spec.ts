import { describe, expect, it } from '@jest/globals';
import type { Budget } from './nodepool.types.js';
import { selectNodeClaims, type ClaimCandidate, type PlannedRemoval } from './select-nodeclaims.js';

const NOW = new Date('2026-03-11T10:15:00Z'); // a Wednesday
const claim = (i: number, o: Partial<ClaimCandidate> = {}): ClaimCandidate => ({ name: `claim-${i}`, nodeName: `node-${i}`, deleting: false, ...o });
const pool = (n: number, over: Record<number, Partial<ClaimCandidate>> = {}) => Array.from({ length: n }, (_, i) => claim(i, over[i]));
const plan = (...idx: number[]): PlannedRemoval[] => idx.map((i) => ({ node: `node-${i}`, reason: 'underutilized' }));
const empties = (...idx: number[]): PlannedRemoval[] => idx.map((i) => ({ node: `node-${i}`, reason: 'empty' }));

interface Row {
  budgets: Budget[] | undefined;
  claims: ClaimCandidate[];
  planned: PlannedRemoval[];
  nodeAnnotations?: Map<string, Record<string, string>>;
  selected: string[];
}

describe('selectNodeClaims', () => {
  it.each<[string, Row]>([
    ['a count budget of 2 lets 2 of 4 planned go', { budgets: [{ nodes: '2' }], claims: pool(10), planned: plan(1, 2, 3, 4), selected: ['claim-1', 'claim-2'] }],
    ['the default 10% of 10 nodes lets 1 go', { budgets: undefined, claims: pool(10), planned: plan(1, 2, 3), selected: ['claim-1'] }],
    ['a percentage rounds up: 10% of 3 nodes is 1', { budgets: [{ nodes: '10%' }], claims: pool(3), planned: plan(0, 1), selected: ['claim-0'] }],
    ['50% of 4 nodes is 2', { budgets: [{ nodes: '50%' }], claims: pool(4), planned: plan(0, 1, 2, 3), selected: ['claim-0', 'claim-1'] }],
    ['NodeClaims already being deleted use the budget up', { budgets: [{ nodes: '2' }], claims: pool(6, { 5: { deleting: true } }), planned: plan(1, 2, 3), selected: ['claim-1'] }],
    ['a budget of 0 lets nothing go', { budgets: [{ nodes: '0' }], claims: pool(5), planned: plan(1), selected: [] }],
    ['the tightest of several budgets wins', { budgets: [{ nodes: '3' }, { nodes: '1' }], claims: pool(5), planned: plan(1, 2), selected: ['claim-1'] }],
    ['a NodeClaim with do-not-disrupt is never chosen', { budgets: [{ nodes: '5' }], claims: pool(5, { 1: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } }), planned: plan(1, 2), selected: ['claim-2'] }],
    ['a node with do-not-disrupt keeps its NodeClaim', { budgets: [{ nodes: '5' }], claims: pool(5), planned: plan(1, 2), nodeAnnotations: new Map([['node-2', { 'karpenter.sh/do-not-disrupt': 'true' }]]), selected: ['claim-1'] }],
    ['do-not-disrupt "false" does not protect', { budgets: [{ nodes: '5' }], claims: pool(5, { 1: { annotations: { 'karpenter.sh/do-not-disrupt': 'false' } } }), planned: plan(1), selected: ['claim-1'] }],
    ['a planned node outside the pool is skipped', { budgets: [{ nodes: '5' }], claims: pool(3), planned: [{ node: 'elsewhere' }, ...plan(0)], selected: ['claim-0'] }],
    ['a NodeClaim already being deleted is not chosen again', { budgets: [{ nodes: '5' }], claims: pool(5, { 1: { deleting: true } }), planned: plan(1, 2), selected: ['claim-2'] }],
    ['a node planned twice is chosen once', { budgets: [{ nodes: '5' }], claims: pool(5), planned: plan(1, 1), selected: ['claim-1'] }],
    ['a budget for Empty only does not cap Underutilized', { budgets: [{ nodes: '0', reasons: ['Empty'] }, { nodes: '2' }], claims: pool(5), planned: plan(1, 2, 3), selected: ['claim-1', 'claim-2'] }],
    ['a budget for Empty only caps empty nodes', { budgets: [{ nodes: '0', reasons: ['Empty'] }, { nodes: '5' }], claims: pool(5), planned: [...empties(1), ...plan(2)], selected: ['claim-2'] }],
    ['a scheduled freeze in its window stops everything', { budgets: [{ nodes: '5' }, { nodes: '0', schedule: '0 9 * * *', duration: '8h' }], claims: pool(5), planned: plan(1), selected: [] }],
    ['a scheduled freeze outside its window does not apply', { budgets: [{ nodes: '5' }, { nodes: '0', schedule: '0 22 * * *', duration: '2h' }], claims: pool(5), planned: plan(1), selected: ['claim-1'] }],
    ['a weekend-only freeze does not apply on a Wednesday', { budgets: [{ nodes: '5' }, { nodes: '0', schedule: '0 0 * * sat', duration: '48h' }], claims: pool(5), planned: plan(1), selected: ['claim-1'] }],
    ['an unreadable budget allows nothing', { budgets: [{ nodes: 'lots' }], claims: pool(5), planned: plan(1), selected: [] }],
    ['an empty budget list means no cap', { budgets: [], claims: pool(5), planned: plan(1, 2, 3), selected: ['claim-1', 'claim-2', 'claim-3'] }],
  ])('%s', (_what, row) => {
    const out = selectNodeClaims({ budgets: row.budgets, claims: row.claims, planned: row.planned, nodeAnnotations: row.nodeAnnotations ?? new Map(), now: NOW });
    expect(out.selected.map((s) => s.nodeClaim)).toEqual(row.selected);
  });

  it('says why each planned node was left', () => {
    const out = selectNodeClaims({
      budgets: [{ nodes: '2' }],
      claims: pool(5, { 2: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }, 3: { deleting: true } }),
      planned: [...plan(1, 2, 3, 4), { node: 'ghost' }],
      nodeAnnotations: new Map(),
      now: NOW,
    });
    expect(out.selected.map((x) => x.nodeClaim)).toEqual(['claim-1']);
    expect(out.skipped).toEqual([
      { node: 'node-2', nodeClaim: 'claim-2', reason: 'nodeclaim_do_not_disrupt' },
      { node: 'node-3', nodeClaim: 'claim-3', reason: 'already_deleting' },
      { node: 'node-4', nodeClaim: 'claim-4', reason: 'budget_exhausted' },
      { node: 'ghost', reason: 'no_nodeclaim' },
    ]);
    expect(out.budget).toMatchObject({ poolNodes: 5, disrupting: 1, allowed: { Underutilized: 1, Empty: 1, Drifted: 1 } });
  });

  it('never selects more than the budget allows, whatever the plan (property over sizes)', () => {
    for (let n = 1; n <= 30; n++) {
      for (const pct of [0, 10, 25, 50, 100]) {
        const deleting = n % 4;
        const claims = pool(n, Object.fromEntries(Array.from({ length: deleting }, (_, i) => [i, { deleting: true }])));
        const out = selectNodeClaims({ budgets: [{ nodes: `${pct}%` }], claims, planned: plan(...claims.map((_, i) => i)), nodeAnnotations: new Map(), now: NOW });
        expect(out.selected.length).toBeLessThanOrEqual(Math.max(0, Math.ceil((pct * n) / 100) - deleting));
      }
    }
  });
});
