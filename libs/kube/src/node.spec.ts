import { describe, expect, it } from '@jest/globals';
import { aKubeNode } from './testing/builders.js';
import { apiTime, capacityTypeOf, conditionOf, isNodeReady, nodeFacts, parseProviderId, readinessOf } from './node.js';

describe('capacityTypeOf (one fallback for every service)', () => {
  it.each([
    ["Karpenter's spot label is spot", { 'karpenter.sh/capacity-type': 'spot' }, 'spot'],
    ["Karpenter's on-demand label is on-demand", { 'karpenter.sh/capacity-type': 'on-demand' }, 'on-demand'],
    ['reserved capacity is paid like on-demand', { 'karpenter.sh/capacity-type': 'reserved' }, 'on-demand'],
    ["an EKS managed node group's SPOT is spot", { 'eks.amazonaws.com/capacityType': 'SPOT' }, 'spot'],
    ["an EKS managed node group's ON_DEMAND is on-demand", { 'eks.amazonaws.com/capacityType': 'ON_DEMAND' }, 'on-demand'],
    ['a capacity block is on-demand', { 'eks.amazonaws.com/capacityType': 'CAPACITY_BLOCK' }, 'on-demand'],
    ["Karpenter's label wins over the node group's", { 'karpenter.sh/capacity-type': 'on-demand', 'eks.amazonaws.com/capacityType': 'SPOT' }, 'on-demand'],
    ['a node with neither label is on-demand', {}, 'on-demand'],
  ])('%s', (_, labels, expected) => {
    expect(capacityTypeOf(labels)).toBe(expected);
  });
});

describe('parseProviderId', () => {
  it.each([
    ['an EC2 instance names its id and zone', 'aws:///us-east-1a/i-0123456789abcdef0', { instanceId: 'i-0123456789abcdef0', zone: 'us-east-1a' }],
    ['an id without a zone still names the instance', 'aws:////i-0abc', { instanceId: 'i-0abc' }],
    ['a Fargate node names no instance', 'aws:///us-east-1a/fargate-ip-10-0-1-2', undefined],
    ['another cloud names no instance', 'gce://project/zone/vm-1', undefined],
    ['no provider id names nothing', undefined, undefined],
  ])('%s', (_, id, expected) => {
    expect(parseProviderId(id)).toEqual(expected);
  });
});

describe('nodeFacts', () => {
  it('reads a builder node: labels, provider id, resources, readiness', () => {
    const f = nodeFacts(aKubeNode('n1', { capacityType: 'spot', providerID: 'aws:///us-east-1b/i-0abc' }));
    expect(f).toMatchObject({
      name: 'n1', uid: 'uid-node-n1', instanceId: 'i-0abc', zone: 'us-east-1a', region: 'us-east-1', instanceType: 'm5.xlarge',
      capacityType: 'spot', nodePool: 'general', ready: true, unschedulable: false,
      allocatable: { cpuMilli: 3920, memoryBytes: 14 * 2 ** 30, gpu: 0, pods: 58 },
      capacity: { cpuMilli: 4000, memoryBytes: 16 * 2 ** 30, gpu: 0, pods: 58 },
    });
  });
  it('falls back to the provider id for the zone and to capacity for allocatable', () => {
    const raw = aKubeNode('n2', { labels: { 'topology.kubernetes.io/zone': null }, providerID: 'aws:///eu-west-1c/i-0abc' });
    delete (raw.status as { allocatable?: unknown }).allocatable;
    const f = nodeFacts(raw);
    expect(f.zone).toBe('eu-west-1c');
    expect(f.allocatable.cpuMilli).toBe(4000);
  });
  it('reads raw JSON (times as strings) the same as client objects (Dates)', () => {
    const node = aKubeNode('n3', { deletionTimestamp: new Date('2026-02-01T00:00:00Z') });
    expect(nodeFacts(JSON.parse(JSON.stringify(node)))).toEqual(nodeFacts(node));
    expect(nodeFacts(node).deletionTimestamp).toBe('2026-02-01T00:00:00.000Z');
  });
  it('drops taints without a key or with an unknown effect', () => {
    const f = nodeFacts(aKubeNode('n4', { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'Sometimes' }, { effect: 'NoExecute' } as never] }));
    expect(f.taints).toEqual([{ key: 'a', effect: 'NoSchedule' }]);
  });
  it.each([
    ['a Ready=True node is ready', aKubeNode('a'), true],
    ['a Ready=False node is not', aKubeNode('b', { ready: false }), false],
    ['a Ready=Unknown node is not', aKubeNode('c', { ready: 'Unknown' }), false],
    ['a node without conditions is not', { metadata: { name: 'd' }, status: {} }, false],
  ])('%s', (_, node, ready) => {
    expect(isNodeReady(node)).toBe(ready);
  });
  it.each([
    ['a Ready=True node: True, since its transition', aKubeNode('a', { readySince: new Date('2026-03-01T00:00:00Z') }), { status: 'True', lastTransitionTime: new Date('2026-03-01T00:00:00Z') }],
    ['read from raw JSON: the same', JSON.parse(JSON.stringify(aKubeNode('a', { readySince: new Date('2026-03-01T00:00:00Z') }))), { status: 'True', lastTransitionTime: new Date('2026-03-01T00:00:00Z') }],
    ['a status the API does not define reads as Unknown', { status: { conditions: [{ type: 'Ready', status: 'Maybe' }] } }, { status: 'Unknown' }],
    ['a node without a Ready condition has no readiness', { metadata: { name: 'd' }, status: { conditions: [{ type: 'MemoryPressure', status: 'False' }] } }, undefined],
  ])('readinessOf: %s', (_, node, readiness) => {
    expect(readinessOf(node)).toEqual(readiness);
  });
  it.each([
    ['a Date', new Date('2026-03-01T00:00:00Z'), new Date('2026-03-01T00:00:00Z')],
    ['an RFC 3339 string', '2026-03-01T01:00:00+01:00', new Date('2026-03-01T00:00:00Z')],
    ['an empty string', '', undefined],
    ['a string that is not a time', 'yesterday', undefined],
    ['null', null, undefined],
    ['a number', 1, undefined],
  ])('apiTime reads %s', (_, raw, date) => {
    expect(apiTime(raw)).toEqual(date);
  });
  it('conditions keep their status, reason and transition time', () => {
    expect(conditionOf(aKubeNode('e', { ready: false, readySince: new Date('2026-03-01T00:00:00Z') }), 'Ready')).toEqual({
      type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastTransitionTime: '2026-03-01T00:00:00.000Z',
    });
  });
});
