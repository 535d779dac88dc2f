import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';

/** aKubeNode — a Ready node (Ready since `readySince`), not cordoned, no taints, no managedFields. */
export function aKubeNode(name: string, o: { readySince: Date; unschedulable?: boolean; taints?: V1Node['spec'] extends infer S ? S extends { taints?: infer T } ? T : never : never; annotations?: Record<string, string> }): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `uid-${name}`,
      labels: { 'kubernetes.io/hostname': name, 'karpenter.sh/capacity-type': 'spot' },
      annotations: o.annotations ?? {},
    },
    spec: { ...(o.unschedulable ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: o.readySince, lastHeartbeatTime: o.readySince }],
    },
  };
}

type Owner = { kind: string; name: string } | 'none' | 'mirror';

/** aKubePod — a Running, Ready pod on `node`, owned by a ReplicaSet unless told otherwise. */
export function aKubePod(name: string, node: string, o: { owner?: Owner; labels?: Record<string, string>; namespace?: string } = {}): V1Pod {
  const owner = o.owner ?? { kind: 'ReplicaSet', name: `${name}-rs` };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: `uid-${name}`,
      labels: o.labels ?? { app: name },
      ...(owner === 'mirror' ? { annotations: { 'kubernetes.io/config.mirror': 'abc123' } } : {}),
      ...(owner === 'none'
        ? {}
        : owner === 'mirror'
          ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: `uid-${node}`, controller: true }] }
          : { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.name, uid: `uid-${owner.name}`, controller: true }] }),
    },
    spec: { nodeName: node, terminationGracePeriodSeconds: 30, containers: [{ name: 'app', image: 'app:1' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** aPdb — a PodDisruptionBudget on `app=<app>` with `minAvailable`. */
export function aPdb(name: string, app: string, minAvailable: number, namespace = 'default'): V1PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace, uid: `uid-pdb-${name}` },
    spec: { minAvailable, selector: { matchLabels: { app } } },
  };
}

/** getNode — a raw GET of a node from the simulator (JSON, no client). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function getNode(sim: { url: string }, name: string): Promise<any> {
  const res = await fetch(`${sim.url}/api/v1/nodes/${name}`);
  return res.json();
}
