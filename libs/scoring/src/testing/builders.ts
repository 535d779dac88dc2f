import type { NodeResources, ScoringNode, ScoringPod } from '../types.js';

export const GiB = 1024 ** 3;
export const MiB = 1024 ** 2;

let seq = 0;

/** aPod — a 100m / 128 MiB stateless Deployment pod; override anything. */
export function aPod(overrides: Partial<ScoringPod> = {}): ScoringPod {
  seq += 1;
  return {
    uid: `pod-${seq}`,
    namespace: 'default',
    name: `pod-${seq}`,
    requests: { cpuMilli: 100, memoryBytes: 128 * MiB, gpu: 0 },
    ownerKind: 'ReplicaSet',
    ownerName: 'web-7d9c',
    workload: 'web',
    labels: { app: 'web' },
    annotations: {},
    tolerations: [],
    ...overrides,
  };
}

/** resources — 4 vCPU / 16 GiB / 0 gpu / 58 pods unless overridden. */
export function resources(overrides: Partial<NodeResources> = {}): NodeResources {
  return { cpuMilli: 4000, memoryBytes: 16 * GiB, gpu: 0, pods: 58, ...overrides };
}

export const NOTHING: NodeResources = { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 };

/** aNode — an empty, Ready, on-demand m5.xlarge in us-east-1a; override anything. */
export function aNode(overrides: Partial<ScoringNode> = {}): ScoringNode {
  seq += 1;
  const name = overrides.name ?? `node-${seq}`;
  const zone = overrides.zone ?? 'us-east-1a';
  const instanceType = overrides.instanceType ?? 'm5.xlarge';
  const capacityType = overrides.capacityType ?? 'on-demand';
  return {
    name,
    zone,
    instanceType,
    capacityType,
    labels: {
      'kubernetes.io/hostname': name,
      'topology.kubernetes.io/zone': zone,
      'node.kubernetes.io/instance-type': instanceType,
      'karpenter.sh/capacity-type': capacityType,
    },
    taints: [],
    unschedulable: false,
    ready: true,
    allocatable: resources(),
    requested: NOTHING,
    ...overrides,
  };
}
