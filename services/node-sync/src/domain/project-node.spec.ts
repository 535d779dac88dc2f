import { describe, expect, it } from '@jest/globals';
import { aV1Node, aV1Pod, aContainer } from '../../test/kube-object.builder.js';
import { aggregatePods, capacityTypeOf, instanceIdOf, projectNode, type NodeState } from './project-node.js';
import { projectPod } from './project-pod.js';

describe('projectNode', () => {
  it('projects a Karpenter Spot node with its pods into a lean row', () => {
    const pods = aggregatePods([
      projectPod(aV1Pod()),
      projectPod(aV1Pod({ metadata: { uid: 'p2' }, spec: { containers: [aContainer({ cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1' })] } })),
      projectPod(aV1Pod({ metadata: { uid: 'p3' }, status: { phase: 'Succeeded' } })),
    ]);
    expect(projectNode(aV1Node(), pods)).toEqual({
      name: 'ip-10-0-1-23.ec2.internal',
      uid: 'node-uid-1',
      providerId: 'aws:///us-east-1a/i-0123456789abcdef0',
      instanceId: 'i-0123456789abcdef0',
      instanceType: 'm5.xlarge',
      zone: 'us-east-1a',
      region: 'us-east-1',
      capacityType: 'spot',
      nodePool: 'default',
      ready: true,
      unschedulable: false,
      state: 'Ready',
      taints: [],
      labels: aV1Node().metadata!.labels,
      annotations: {},
      conditions: [
        { type: 'MemoryPressure', status: 'False', reason: null, lastTransitionTime: '2026-03-01T08:01:00.000Z' },
        { type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: '2026-03-01T08:01:00.000Z' },
      ],
      capacity: { cpuMilli: 4000, memoryBytes: 16_073_848 * 1024, gpu: 0, pods: 58 },
      allocatable: { cpuMilli: 3920, memoryBytes: 15_021_176 * 1024, gpu: 0, pods: 58 },
      requested: { cpuMilli: 1250, memoryBytes: 256 * 2 ** 20 + 2 ** 30, gpu: 1 },
      podCount: 2,
      createdAt: '2026-03-01T08:00:00.000Z',
      deletionTimestamp: null,
    });
  });

  it.each<[string, Parameters<typeof aV1Node>[0], NodeState]>([
    ['a Ready schedulable node is Ready', {}, 'Ready'],
    ['a cordoned Ready node is Cordoned', { unschedulable: true }, 'Cordoned'],
    ['a NotReady node is NotReady', { ready: 'False' }, 'NotReady'],
    ['a cordoned NotReady node is NotReady', { ready: 'Unknown', unschedulable: true }, 'NotReady'],
    ['our drain annotation makes it Draining', { unschedulable: true, annotations: { 'nodes-manager/drain-operation': 'op-1' } }, 'Draining'],
    ['Karpenter’s disrupted taint makes it Draining', { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] }, 'Draining'],
    ['cluster-autoscaler’s deletion taint makes it Draining', { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule', value: '1' }] }, 'Draining'],
    ['a deletionTimestamp makes it Deleted', { deletionTimestamp: new Date('2026-03-01T10:00:00Z'), annotations: { 'nodes-manager/drain-operation': 'op-1' } }, 'Deleted'],
  ])('%s', (_sentence, options, state) => {
    expect(projectNode(aV1Node(options)).state).toBe(state);
  });

  it.each<[string, string | undefined, string | null]>([
    ['an EC2 provider id', 'aws:///us-east-1a/i-0123456789abcdef0', 'i-0123456789abcdef0'],
    ['a provider id without a zone', 'aws:////i-0abc', 'i-0abc'],
    ['a Fargate provider id', 'aws:///us-east-1a/fargate-ip-10-0-1-2', null],
    ['a kind provider id', 'kind://docker/kind/kind-control-plane', null],
    ['no provider id', undefined, null],
  ])('parses %s', (_sentence, providerId, instanceId) => {
    expect(instanceIdOf(providerId)).toBe(instanceId);
  });

  it.each<[string, Record<string, string>, 'spot' | 'on-demand' | null]>([
    ['Karpenter spot', { 'karpenter.sh/capacity-type': 'spot' }, 'spot'],
    ['Karpenter on-demand', { 'karpenter.sh/capacity-type': 'on-demand' }, 'on-demand'],
    ['Karpenter reserved counts as on-demand', { 'karpenter.sh/capacity-type': 'reserved' }, 'on-demand'],
    ['EKS managed SPOT', { 'eks.amazonaws.com/capacityType': 'SPOT' }, 'spot'],
    ['EKS managed ON_DEMAND', { 'eks.amazonaws.com/capacityType': 'ON_DEMAND' }, 'on-demand'],
    ['Karpenter wins over EKS', { 'karpenter.sh/capacity-type': 'spot', 'eks.amazonaws.com/capacityType': 'ON_DEMAND' }, 'spot'],
    ['no label', {}, null],
    ['an unknown value', { 'karpenter.sh/capacity-type': 'preemptible' }, null],
  ])('reads the capacity type: %s', (_sentence, labels, capacityType) => {
    expect(capacityTypeOf(labels)).toBe(capacityType);
  });

  it('counts accelerators in allocatable and drops malformed quantities to 0', () => {
    const row = projectNode(aV1Node({ allocatable: { cpu: 'lots', memory: '1Gi', 'nvidia.com/gpu': '4', 'aws.amazon.com/neuron': '2', pods: '110' } }));
    expect(row.allocatable).toEqual({ cpuMilli: 0, memoryBytes: 2 ** 30, gpu: 6, pods: 110 });
  });

  it('leaves kubectl’s last-applied-configuration out of the annotations', () => {
    const row = projectNode(aV1Node({ annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{…}', team: 'infra' } }));
    expect(row.annotations).toEqual({ team: 'infra' });
  });
});
