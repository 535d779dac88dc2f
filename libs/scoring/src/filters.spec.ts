import { describe, expect, it } from '@jest/globals';
import { filterNode, matchesRequirement, tolerates, type FilterReason } from './filters.js';
import { aNode, aPod, GiB, resources } from './testing/builders.js';
import type { Taint, Toleration } from './types.js';

const reasonsOf = (pod = aPod(), node = aNode()): FilterReason[] => filterNode(pod, node).map((f) => f.reason);

describe('filterNode', () => {
  it.each([
    ['an empty Ready node takes a small pod', aPod(), aNode(), []],
    ['a cordoned node is refused', aPod(), aNode({ unschedulable: true }), ['node_unschedulable']],
    [
      'a cordoned node takes a pod that tolerates the unschedulable taint',
      aPod({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }),
      aNode({ unschedulable: true }),
      [],
    ],
    ['a node that is not Ready is refused', aPod(), aNode({ ready: false }), ['node_not_ready']],
    ['too little cpu is refused', aPod({ requests: { cpuMilli: 3000, memoryBytes: 0, gpu: 0 } }), aNode({ requested: resources({ cpuMilli: 2000, memoryBytes: 0, pods: 0 }) }), ['insufficient_cpu']],
    ['too little memory is refused', aPod({ requests: { cpuMilli: 0, memoryBytes: 17 * GiB, gpu: 0 } }), aNode(), ['insufficient_memory']],
    ['a GPU pod on a node without GPUs is refused', aPod({ requests: { cpuMilli: 0, memoryBytes: 0, gpu: 1 } }), aNode(), ['insufficient_gpu']],
    ['a full node (pod count) is refused', aPod(), aNode({ requested: resources({ cpuMilli: 0, memoryBytes: 0, pods: 58 }) }), ['too_many_pods']],
    ['exactly filling the node is allowed', aPod({ requests: { cpuMilli: 4000, memoryBytes: 16 * GiB, gpu: 0 } }), aNode(), []],
    ['an untolerated NoSchedule taint is refused', aPod(), aNode({ taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), ['untolerated_taint']],
    ['an untolerated NoExecute taint is refused', aPod(), aNode({ taints: [{ key: 'x', effect: 'NoExecute' }] }), ['untolerated_taint']],
    ['a PreferNoSchedule taint is only a preference', aPod(), aNode({ taints: [{ key: 'x', effect: 'PreferNoSchedule' }] }), []],
    ['a nodeSelector the node lacks is refused', aPod({ nodeSelector: { 'karpenter.sh/capacity-type': 'spot' } }), aNode(), ['node_selector_mismatch']],
    ['a matching nodeSelector passes', aPod({ nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' } }), aNode(), []],
    [
      'required affinity with no matching term is refused',
      aPod({ requiredNodeAffinity: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }] }] }),
      aNode(),
      ['node_affinity_mismatch'],
    ],
    [
      'required affinity passes when any term matches',
      aPod({
        requiredNodeAffinity: [
          { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }] },
          { matchExpressions: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.xlarge'] }] },
        ],
      }),
      aNode(),
      [],
    ],
    ['a volume in another zone is refused', aPod({ pvcZones: ['us-east-1b'] }), aNode(), ['volume_zone_conflict']],
    ['a volume in the node zone passes', aPod({ pvcZones: ['us-east-1a'] }), aNode(), []],
    ['volumes in two zones are refused even by a node in one of them', aPod({ pvcZones: ['us-east-1a', 'us-east-1b'] }), aNode(), ['volume_zone_conflict']],
    ['two volumes both in the node zone pass', aPod({ pvcZones: ['us-east-1a', 'us-east-1a'] }), aNode(), []],
    ['an empty affinity term matches no node', aPod({ requiredNodeAffinity: [{ matchExpressions: [] }] }), aNode(), ['node_affinity_mismatch']],
    [
      'a matchFields term naming the node passes',
      aPod({ requiredNodeAffinity: [{ matchExpressions: [], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] }),
      aNode({ name: 'n1' }),
      [],
    ],
    [
      'a matchFields term naming another node is refused',
      aPod({ requiredNodeAffinity: [{ matchExpressions: [], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }] }),
      aNode({ name: 'n1' }),
      ['node_affinity_mismatch'],
    ],
    [
      'a matchFields NotIn excludes the named node',
      aPod({ requiredNodeAffinity: [{ matchExpressions: [], matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n1'] }] }] }),
      aNode({ name: 'n1' }),
      ['node_affinity_mismatch'],
    ],
    [
      'matchFields and matchExpressions of one term must both hold',
      aPod({
        requiredNodeAffinity: [
          {
            matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1b'] }],
            matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }],
          },
        ],
      }),
      aNode({ name: 'n1' }),
      ['node_affinity_mismatch'],
    ],
    [
      'every failing filter is reported',
      aPod({ requests: { cpuMilli: 9000, memoryBytes: 0, gpu: 0 }, pvcZones: ['us-east-1c'] }),
      aNode({ unschedulable: true, ready: false }),
      ['node_unschedulable', 'node_not_ready', 'insufficient_cpu', 'volume_zone_conflict'],
    ],
  ])('%s', (_, pod, node, expected) => {
    expect(reasonsOf(pod, node)).toEqual(expected);
  });

  it('counts capacity already promised to other pods', () => {
    const pod = aPod({ requests: { cpuMilli: 1000, memoryBytes: 0, gpu: 0 } });
    expect(filterNode(pod, aNode(), resources({ cpuMilli: 3500, memoryBytes: 0, pods: 0 })).map((f) => f.reason)).toEqual([
      'insufficient_cpu',
    ]);
  });
});

describe('tolerates', () => {
  const taint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
  it.each<[string, Toleration, boolean]>([
    ['Equal with the same key and value tolerates', { key: 'dedicated', operator: 'Equal', value: 'gpu' }, true],
    ['the default operator is Equal', { key: 'dedicated', value: 'gpu' }, true],
    ['Equal with another value does not tolerate', { key: 'dedicated', operator: 'Equal', value: 'cpu' }, false],
    ['Exists with the same key tolerates any value', { key: 'dedicated', operator: 'Exists' }, true],
    ['an empty key with Exists tolerates everything', { operator: 'Exists' }, true],
    ['an empty key with Equal tolerates nothing', { value: 'gpu' }, false],
    ['a matching effect tolerates', { key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }, true],
    ['another effect does not tolerate', { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, false],
    ['another key does not tolerate', { key: 'team', operator: 'Exists' }, false],
  ])('%s', (_, toleration, expected) => {
    expect(tolerates(toleration, taint)).toBe(expected);
  });
});

describe('matchesRequirement', () => {
  const labels = { zone: 'a', cores: '8' };
  it.each([
    ['In matches a listed value', { key: 'zone', operator: 'In', values: ['a', 'b'] }, true],
    ['In fails on a missing label', { key: 'team', operator: 'In', values: ['a'] }, false],
    ['NotIn fails on a listed value', { key: 'zone', operator: 'NotIn', values: ['a'] }, false],
    ['NotIn matches a missing label', { key: 'team', operator: 'NotIn', values: ['a'] }, true],
    ['Exists matches a present label', { key: 'zone', operator: 'Exists' }, true],
    ['DoesNotExist fails on a present label', { key: 'zone', operator: 'DoesNotExist' }, false],
    ['Gt compares as integers', { key: 'cores', operator: 'Gt', values: ['4'] }, true],
    ['Lt compares as integers', { key: 'cores', operator: 'Lt', values: ['10'] }, true],
    ['Gt on a non-integer label never matches', { key: 'zone', operator: 'Gt', values: ['1'] }, false],
  ] as const)('%s', (_, requirement, expected) => {
    expect(matchesRequirement(requirement, labels)).toBe(expected);
  });
});
