import { describe, expect, it } from '@jest/globals';
import type { NodeClaim } from './nodepool.types.js';
import { runningNodesOf } from './running-nodes.js';

const aClaim = (o: { type?: string; zone?: string; capacity?: string; deleting?: boolean; labels?: Record<string, string> } = {}): NodeClaim => ({
  metadata: {
    name: 'general-abc',
    labels: o.labels ?? { 'node.kubernetes.io/instance-type': o.type ?? 'm5.large', 'topology.kubernetes.io/zone': o.zone ?? 'us-east-1a', 'karpenter.sh/capacity-type': o.capacity ?? 'spot' },
    ...(o.deleting ? { deletionTimestamp: '2026-12-01T00:00:00Z' } : {}),
  },
});

describe('runningNodesOf', () => {
  it.each([
    ['two claims on one offering count two', [aClaim(), aClaim()], [{ instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', count: 2 }]],
    ['Spot and on-demand of one pool are two offerings', [aClaim(), aClaim({ capacity: 'on-demand' })], [{ instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'on-demand', count: 1 }, { instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', count: 1 }]],
    ['a claim being deleted is on its way out: not counted', [aClaim({ deleting: true })], []],
    ['a claim without its labels cannot be placed: left out', [aClaim({ labels: {} })], []],
    ['an unknown capacity type is left out', [aClaim({ capacity: 'reserved' })], []],
  ] as const)('%s', (_, claims, want) => {
    expect(runningNodesOf(claims)).toEqual(want);
  });
});
