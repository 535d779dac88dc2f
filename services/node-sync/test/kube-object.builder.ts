import type { V1Container, V1Node, V1Pod } from '@kubernetes/client-node';

export interface NodeOptions {
  name?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: Array<{ key: string; effect: string; value?: string }>;
  unschedulable?: boolean;
  ready?: 'True' | 'False' | 'Unknown';
  providerID?: string;
  allocatable?: Record<string, string>;
  deletionTimestamp?: Date;
}

/** aV1Node — a Ready Karpenter Spot m5.xlarge in us-east-1a unless told otherwise. */
export function aV1Node(o: NodeOptions = {}): V1Node {
  return {
    metadata: {
      name: o.name ?? 'ip-10-0-1-23.ec2.internal',
      uid: 'node-uid-1',
      creationTimestamp: new Date('2026-03-01T08:00:00Z'),
      labels: o.labels ?? {
        'node.kubernetes.io/instance-type': 'm5.xlarge',
        'topology.kubernetes.io/zone': 'us-east-1a',
        'topology.kubernetes.io/region': 'us-east-1',
        'karpenter.sh/capacity-type': 'spot',
        'karpenter.sh/nodepool': 'default',
      },
      annotations: o.annotations ?? {},
      ...(o.deletionTimestamp ? { deletionTimestamp: o.deletionTimestamp } : {}),
    },
    spec: {
      providerID: o.providerID ?? 'aws:///us-east-1a/i-0123456789abcdef0',
      ...(o.unschedulable !== undefined ? { unschedulable: o.unschedulable } : {}),
      ...(o.taints ? { taints: o.taints } : {}),
    },
    status: {
      capacity: { cpu: '4', memory: '16073848Ki', pods: '58', 'ephemeral-storage': '20959212Ki' },
      allocatable: o.allocatable ?? { cpu: '3920m', memory: '15021176Ki', pods: '58' },
      conditions: [
        { type: 'MemoryPressure', status: 'False', lastTransitionTime: new Date('2026-03-01T08:01:00Z') },
        {
          type: 'Ready',
          status: o.ready ?? 'True',
          reason: 'KubeletReady',
          lastTransitionTime: new Date('2026-03-01T08:01:00Z'),
          lastHeartbeatTime: new Date('2026-03-01T09:59:00Z'),
        },
      ],
    },
  };
}

export const aContainer = (requests?: Record<string, string>, limits?: Record<string, string>, extra: Partial<V1Container> = {}): V1Container => ({
  name: extra.name ?? 'app',
  image: 'app:1',
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
  ...extra,
});

/** aV1Pod — a running Deployment pod (ReplicaSet web-5d8f9c7b6) requesting 250m / 256Mi unless told otherwise. */
export function aV1Pod(overrides: { metadata?: V1Pod['metadata']; spec?: Partial<NonNullable<V1Pod['spec']>>; status?: V1Pod['status'] } = {}): V1Pod {
  return {
    metadata: {
      uid: 'pod-uid-1',
      namespace: 'shop',
      name: 'web-5d8f9c7b6-x2k4p',
      labels: { app: 'web', 'pod-template-hash': '5d8f9c7b6' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8f9c7b6', uid: 'rs-1', controller: true }],
      creationTimestamp: new Date('2026-03-01T09:00:00Z'),
      ...overrides.metadata,
    },
    spec: {
      nodeName: 'ip-10-0-1-23.ec2.internal',
      containers: [aContainer({ cpu: '250m', memory: '256Mi' })],
      ...overrides.spec,
    },
    status: overrides.status ?? { phase: 'Running' },
  };
}
