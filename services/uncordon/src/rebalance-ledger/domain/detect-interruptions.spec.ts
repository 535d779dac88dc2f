import { describe, expect, it } from '@jest/globals';
import { detectInterruptions, type InterruptionInput } from './detect-interruptions.js';
import { at, CORDON_TAINT } from '../../../test/cordoned-node.builder.js';
import { aClaimEvent, aLedgerNode, anEntry, anEvent, anItnTaint, aServingNode } from '../../../test/ledger.builder.js';

const servingNode = aServingNode(null, { annotations: {} });
const input = (o: Partial<InterruptionInput>): InterruptionInput => ({ nodes: [], gone: [], events: [], ledger: [], recorded: new Set(), now: at(60), newId: () => 'int-1', ...o });
const summary = (o: Partial<InterruptionInput>) =>
  detectInterruptions(input(o)).map((r) => ({ at: r.interruptedAt.toISOString().slice(11, 16), source: r.source, rebalance: r.rebalanceId, evidence: r.evidence.map((e) => `${e.kind} ${e.source ?? '-'}`) }));

describe('detectInterruptions — every Spot interruption, recommendation or not', () => {
  it.each([
    ["NTH's spot-itn taint on a node with no rebalance seen", { nodes: [aServingNode(null, { annotations: {}, taints: [CORDON_TAINT, anItnTaint(at(30))] })] }, [{ at: '10:30', source: 'spot-itn-taint', rebalance: null, evidence: ['spot-itn-taint nth'] }]],
    ["Karpenter's SpotInterrupted on the NodeClaim of a node that is gone now", { gone: [servingNode], events: [aClaimEvent('SpotInterrupted', at(40))] }, [{ at: '10:40', source: 'karpenter-event', rebalance: null, evidence: ['karpenter-interruption-event karpenter'] }]],
    [
      'seen by NTH (IMDS Event) and Karpenter: one interruption, timed by the first, both pieces of evidence',
      { nodes: [servingNode], events: [anEvent('SpotInterruption', at(41), { nodeUid: undefined }), aClaimEvent('SpotInterrupted', at(40))] },
      [{ at: '10:40', source: 'karpenter-event', rebalance: null, evidence: ['karpenter-interruption-event karpenter', 'nth-interruption-event nth-imds'] }],
    ],
    [
      'a node whose ledger row was interrupted names that row',
      { nodes: [aLedgerNode({ taints: [CORDON_TAINT, anItnTaint(at(30))] })], ledger: [anEntry({ outcome: 'interrupted', interruptedAt: at(30), interruptionSource: 'spot-itn-taint' })] },
      [{ at: '10:30', source: 'spot-itn-taint', rebalance: 'row-0', evidence: ['spot-itn-taint nth'] }],
    ],
    [
      "a ledger row resolved interrupted by EC2's state reason, the node long gone, is an interruption too",
      { ledger: [anEntry({ outcome: 'interrupted', interruptedAt: at(50), interruptionSource: 'ec2-state-reason', evidence: [{ kind: 'ec2-state-reason', at: at(50).toISOString(), source: 'ec2' }] })] },
      [{ at: '10:50', source: 'ec2-state-reason', rebalance: 'row-0', evidence: ['ec2-state-reason ec2'] }],
    ],
  ])('%s', (_, o, expected) => {
    expect(summary(o as Partial<InterruptionInput>)).toEqual(expected);
  });

  it.each([
    ['a node with no interruption signal', { nodes: [servingNode] }],
    ['an interruption already recorded for the node', { nodes: [aServingNode(null, { taints: [anItnTaint(at(30))] })], recorded: new Set(['uid-1']) }],
    ['a rebalance recommendation alone', { nodes: [servingNode], events: [anEvent('SpotRebalanceRecommendation', at(10))] }],
  ])('records nothing for %s', (_, o) => {
    expect(summary(o as Partial<InterruptionInput>)).toEqual([]);
  });
});
