/** Builders of the Kubernetes objects the simulator stores, with partial overrides. */

let seq = 0;
const READY = { type: 'Ready', status: 'True', reason: 'KubeletReady', message: '', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' };

/** aNode — a Ready On-Demand Karpenter node; m5.xlarge (4 vCPU, 16 GiB) unless told otherwise. */
export function aNode(name: string, o: { type?: string; cpu?: string; memory?: string; pods?: string; zone?: string; pool?: string; capacityType?: string } = {}) {
  const zone = o.zone ?? 'us-east-1a';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `node-uid-${name}`,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': zone,
        'node.kubernetes.io/instance-type': o.type ?? 'm5.xlarge',
        'karpenter.sh/capacity-type': o.capacityType ?? 'on-demand',
        'karpenter.sh/nodepool': o.pool ?? 'general',
      },
    },
    spec: { providerID: `aws:///${zone}/i-${name}` },
    status: {
      capacity: { cpu: o.cpu ?? '4', memory: o.memory ?? '16Gi', pods: o.pods ?? '58' },
      allocatable: { cpu: o.cpu ? `${Number(o.cpu) * 1000 - 90}m` : '3920m', memory: o.memory ?? '14Gi', pods: o.pods ?? '58' },
      conditions: [READY],
    },
  };
}

/** aPod — a Running, Ready pod of a ReplicaSet (`app` label = its workload) on `node`; `node` undefined = Pending. */
export function aPod(
  name: string,
  node: string | undefined,
  o: { app?: string; cpu?: string; memory?: string; namespace?: string; owner?: { kind: string; name: string } | null; emptyDir?: boolean } = {},
) {
  seq += 1;
  const app = o.app ?? name.replace(/-\d+$/, '');
  const owner = o.owner === null ? undefined : (o.owner ?? { kind: 'ReplicaSet', name: `${app}-6d4cf` });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: `pod-uid-${seq}-${name}`,
      labels: { app, ...(owner?.kind === 'ReplicaSet' ? { 'pod-template-hash': '6d4cf' } : {}) },
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: `owner-${owner.name}`, controller: true }] } : {}),
    },
    spec: {
      ...(node ? { nodeName: node } : {}),
      containers: [{ name: 'main', image: 'app:1', resources: { requests: { cpu: o.cpu ?? '100m', memory: o.memory ?? '128Mi' } } }],
      ...(o.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}),
    },
    status: node
      ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] }
      : { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
  };
}

/** aPdb — a policy/v1 PodDisruptionBudget selecting `app`. */
export function aPdb(app: string, spec: { minAvailable?: number | string; maxUnavailable?: number | string }, namespace = 'default') {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: `${app}-pdb`, namespace, uid: `pdb-uid-${app}` },
    spec: { ...spec, selector: { matchLabels: { app } } },
  };
}
