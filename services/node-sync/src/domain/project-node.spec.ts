import { describe, expect, it } from '@jest/globals';
import { aContainer, aKubeNode, aKubePod, type KubeNodeOptions } from '@nodes-manager/kube/testing';
import { aggregatePods, projectNode, type NodeState } from './project-node.js';
import { projectPod } from './project-pod.js';

const NAME = 'ip-10-0-1-23.ec2.internal';
/** aV1Node — a Ready Karpenter Spot m5.xlarge as a kubelet reports it. */
const aV1Node = (o: KubeNodeOptions = {}) =>
  aKubeNode(NAME, {
    uid: 'node-uid-1',
    capacityType: 'spot',
    nodePool: 'default',
    providerID: 'aws:///us-east-1a/i-0123456789abcdef0',
    creationTimestamp: new Date('2026-03-01T08:00:00Z'),
    readySince: new Date('2026-03-01T08:01:00Z'),
    capacity: { cpu: '4', memory: '16073848Ki', pods: '58', 'ephemeral-storage': '20959212Ki' },
    allocatable: { cpu: '3920m', memory: '15021176Ki', pods: '58' },
    extraConditions: [{ type: 'MemoryPressure', status: 'False', lastTransitionTime: new Date('2026-03-01T08:01:00Z') }],
    ...o,
  });

describe('projectNode', () => {
  it('projects a Karpenter Spot node with its pods into a lean row', () => {
    const pods = aggregatePods([
      projectPod(aKubePod('web-1', NAME, { cpu: '250m', memory: '256Mi' })),
      projectPod(aKubePod('web-2', NAME, { containers: [aContainer({ cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1' })] })),
      projectPod(aKubePod('web-3', NAME, { phase: 'Succeeded' })),
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

  it.each<[string, KubeNodeOptions, NodeState]>([
    ['a Ready schedulable node is Ready', {}, 'Ready'],
    ['a cordoned Ready node is Cordoned', { unschedulable: true }, 'Cordoned'],
    ['a NotReady node is NotReady', { ready: false }, 'NotReady'],
    ['a cordoned NotReady node is NotReady', { ready: 'Unknown', unschedulable: true }, 'NotReady'],
    ['our drain annotation makes it Draining', { unschedulable: true, annotations: { 'nodes-manager/drain-operation': 'op-1' } }, 'Draining'],
    ['Karpenter’s disrupted taint makes it Draining', { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] }, 'Draining'],
    ['cluster-autoscaler’s deletion taint makes it Draining', { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule', value: '1' }] }, 'Draining'],
    ['a deletionTimestamp makes it Deleted', { deletionTimestamp: new Date('2026-03-01T10:00:00Z'), annotations: { 'nodes-manager/drain-operation': 'op-1' } }, 'Deleted'],
  ])('%s', (_sentence, options, state) => {
    expect(projectNode(aV1Node(options)).state).toBe(state);
  });

  it.each<[string, string | null, string | null]>([
    ['an EC2 provider id names its instance', 'aws:///us-east-1a/i-0123456789abcdef0', 'i-0123456789abcdef0'],
    ['a Fargate provider id names none', 'aws:///us-east-1a/fargate-ip-10-0-1-2', null],
    ['no provider id names none', null, null],
  ])('%s', (_sentence, providerID, instanceId) => {
    expect(projectNode(aV1Node({ providerID })).instanceId).toBe(instanceId);
  });

  it.each<[string, string | null, 'spot' | 'on-demand']>([
    ['Karpenter spot is spot', 'spot', 'spot'],
    ['reserved capacity counts as on-demand', 'reserved', 'on-demand'],
    ['a node without the label is on-demand (the one fallback of the Kubernetes model)', null, 'on-demand'],
  ])('%s', (_sentence, capacityType, expected) => {
    expect(projectNode(aV1Node({ capacityType })).capacityType).toBe(expected);
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
