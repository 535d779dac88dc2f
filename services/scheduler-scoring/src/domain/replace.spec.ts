import { describe, expect, it } from '@jest/globals';
import type { ScoringNode, ScoringPod } from '@nodes-manager/scoring';
import { aNode, aPod, resources } from '../../../../libs/scoring/src/testing/builders.js';
import { outcomeOf, recheckReplacement } from './replace.js';

describe('recheckReplacement — an on-demand node asked to move off is re-checked on a fresh read just before its drain', () => {
  const od = (o: Partial<ScoringNode> = {}) => aNode({ name: 'od-1', nodePool: 'general', capacityType: 'on-demand', requested: resources({ cpuMilli: 3500, memoryBytes: 0, pods: 1 }), ...o });
  const onOd = (o: Partial<ScoringPod> = {}) => aPod({ name: 'web-1', nodeName: 'od-1', labels: { app: 'web' }, requests: { cpuMilli: 3500, memoryBytes: 0, gpu: 0 }, ...o });
  const pdb = (allowed: number) => ({ name: 'web', namespace: 'default', selector: { app: 'web' }, disruptionsAllowed: allowed });
  const none = { gone: new Set<string>(), budgetUsed: new Map<string, number>() };
  it.each([
    ['a busy on-demand node of the pool goes ahead: no threshold, and no room needed elsewhere (Karpenter launches Spot)', [od()], [onOd()], [pdb(1)], none, undefined],
    ['a node that is gone is refused', [], [], [], none, 'node_gone'],
    ['a node that is no longer Ready waits', [od({ ready: false })], [onOd()], [], none, 'node_not_ready'],
    ['a node cordoned already (being drained) waits', [od({ unschedulable: true })], [onOd()], [], none, 'already_cordoned'],
    ['a node of another NodePool is refused', [od({ nodePool: 'batch' })], [onOd()], [], none, 'not_in_nodepool'],
    ['a Spot node is refused: nothing to move off', [od({ capacityType: 'spot' })], [onOd()], [], none, 'not_on_demand'],
    ['a do-not-disrupt pod holds it', [od()], [onOd({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })], [], none, 'new_blocking_pod'],
    ['a budget that does not allow the eviction holds it', [od()], [onOd()], [pdb(0)], none, 'pdb_exhausted'],
    ['a budget this run already spent holds it', [od()], [onOd()], [pdb(1)], { ...none, budgetUsed: new Map([['default/web', 1]]) }, 'pdb_exhausted'],
  ] as const)('%s', (_, nodes, pods, pdbs, run, reason) => {
    const r = recheckReplacement({ node: 'od-1', nodePool: 'general' }, { nodes: [...nodes], pods: [...pods], pdbs: [...pdbs] }, run);
    if (reason === undefined) expect(r).toEqual({ ok: true, budgetNeed: expect.any(Map) });
    else expect(r).toMatchObject({ ok: false, reason, detail: expect.stringMatching(/\S/) });
  });

  it.each([
    ['node_gone', 'refused'],
    ['not_in_nodepool', 'refused'],
    ['not_on_demand', 'refused'],
    ['max_disruptions', 'queued'],
    ['outside_window', 'queued'],
    ['pdb_exhausted', 'queued'],
    ['new_blocking_pod', 'queued'],
    ['recheck_failed', 'queued'],
  ])('a node skipped for %s is %s', (reason, outcome) => {
    expect(outcomeOf(reason)).toBe(outcome);
  });
});
