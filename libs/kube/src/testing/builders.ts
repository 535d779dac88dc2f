import { createHash } from 'node:crypto';
import { V1MicroTime, type V1Container, type V1Lease, type V1Node, type V1Pod, type V1PodDisruptionBudget, type V1Taint, type V1Toleration, type V1Volume, type V1ManagedFieldsEntry } from '@kubernetes/client-node';

/**
 * The one set of builders of Kubernetes objects for every test: Nodes, Pods, PodDisruptionBudgets and Leases, each a
 * plausible object with partial overrides. They are plain objects the simulator accepts as they are (times are
 * `Date`s, which serialise to RFC 3339) and that the model in `@nodes-manager/kube` projects.
 */

const T0 = new Date('2026-01-01T00:00:00Z');

/** instanceIdFor — a stable EC2-looking instance id for a node name. */
export const instanceIdFor = (name: string): string => `i-0${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;

export interface KubeNodeOptions {
  uid?: string;
  /** Merged over the well-known labels the builder sets (hostname, zone, region, instance type, capacity type, pool). */
  labels?: Record<string, string | null>;
  annotations?: Record<string, string>;
  taints?: V1Taint[];
  unschedulable?: boolean;
  ready?: boolean | 'True' | 'False' | 'Unknown';
  /** The Ready condition's lastTransitionTime. */
  readySince?: Date;
  /** `null`: no providerID (e.g. Fargate). Default `aws:///<zone>/<instanceIdFor(name)>`. */
  providerID?: string | null;
  instanceType?: string;
  zone?: string;
  region?: string;
  capacityType?: string | null;
  nodePool?: string | null;
  cpu?: string;
  memory?: string;
  pods?: string;
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  extraConditions?: NonNullable<NonNullable<V1Node['status']>['conditions']>;
  creationTimestamp?: Date;
  deletionTimestamp?: Date;
  resourceVersion?: string;
  managedFields?: V1ManagedFieldsEntry[];
}

/**
 * aKubeNode — a Ready, schedulable On-Demand m5.xlarge (4 vCPU, 16 GiB, 58 pods; allocatable 3920m / 14Gi) in
 * us-east-1a of NodePool `general`, unless told otherwise.
 */
export function aKubeNode(name = 'node-1', o: KubeNodeOptions = {}): V1Node {
  const zone = o.zone ?? 'us-east-1a';
  const cpu = o.cpu ?? '4';
  const labels: Record<string, string | null> = {
    'kubernetes.io/hostname': name,
    'kubernetes.io/arch': 'amd64',
    'topology.kubernetes.io/zone': zone,
    'topology.kubernetes.io/region': o.region ?? zone.replace(/[a-z]$/, ''),
    'node.kubernetes.io/instance-type': o.instanceType ?? 'm5.xlarge',
    'karpenter.sh/capacity-type': o.capacityType === undefined ? 'on-demand' : o.capacityType,
    'karpenter.sh/nodepool': o.nodePool === undefined ? 'general' : o.nodePool,
    ...o.labels,
  };
  const ready = o.ready === undefined ? 'True' : o.ready === true ? 'True' : o.ready === false ? 'False' : o.ready;
  const since = o.readySince ?? T0;
  const providerID = o.providerID === undefined ? `aws:///${zone}/${instanceIdFor(name)}` : o.providerID;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: o.uid ?? `uid-node-${name}`,
      creationTimestamp: o.creationTimestamp ?? T0,
      labels: Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => e[1] !== null)),
      annotations: o.annotations ?? {},
      ...(o.resourceVersion ? { resourceVersion: o.resourceVersion } : {}),
      ...(o.deletionTimestamp ? { deletionTimestamp: o.deletionTimestamp } : {}),
      ...(o.managedFields ? { managedFields: o.managedFields } : {}),
    },
    spec: {
      ...(providerID !== null ? { providerID } : {}),
      ...(o.unschedulable ? { unschedulable: true } : {}),
      ...(o.taints ? { taints: o.taints } : {}),
    },
    status: {
      capacity: o.capacity ?? { cpu, memory: o.memory ?? '16Gi', pods: o.pods ?? '58' },
      allocatable: o.allocatable ?? { cpu: `${Math.round(Number(cpu) * 1000) - 80}m`, memory: o.memory ?? '14Gi', pods: o.pods ?? '58' },
      conditions: [
        ...(o.extraConditions ?? []),
        { type: 'Ready', status: ready, reason: ready === 'True' ? 'KubeletReady' : 'KubeletNotReady', message: '', lastHeartbeatTime: since, lastTransitionTime: since },
      ],
    },
  };
}

/** aContainer — a container requesting (and limiting) what it is told; no resources when given none. */
export const aContainer = (requests?: Record<string, string>, limits?: Record<string, string>, extra: Partial<V1Container> = {}): V1Container => ({
  name: extra.name ?? 'app',
  image: 'app:1',
  ...(requests || limits ? { resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } } : {}),
  ...extra,
});

export type KubePodOwner = { kind: string; name: string } | 'none' | 'mirror';

export interface KubePodOptions {
  namespace?: string;
  uid?: string;
  /** The `app` label and the workload's name; default the pod name without a trailing `-<n>`. */
  app?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Default: ReplicaSet `<app>-6d4cf` (a Deployment's, with its pod-template-hash label). */
  owner?: KubePodOwner;
  cpu?: string;
  memory?: string;
  /** Replaces the one default container. */
  containers?: V1Container[];
  initContainers?: V1Container[];
  overhead?: Record<string, string>;
  volumes?: V1Volume[];
  emptyDir?: boolean;
  tolerations?: V1Toleration[];
  nodeSelector?: Record<string, string>;
  priority?: number;
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  qosClass?: string;
  creationTimestamp?: Date;
  deletionTimestamp?: Date;
  terminationGracePeriodSeconds?: number;
  /** Merged last, for anything else. */
  spec?: Partial<NonNullable<V1Pod['spec']>>;
}

/** aKubePod — a Running, Ready pod on `node` (undefined: Pending, unscheduled) of a Deployment, requesting 100m / 128Mi. */
export function aKubePod(name: string, node: string | undefined, o: KubePodOptions = {}): V1Pod {
  const app = o.app ?? name.replace(/-\d+$/, '');
  const owner = o.owner ?? { kind: 'ReplicaSet', name: `${app}-6d4cf` };
  const ownerRef =
    owner === 'none'
      ? undefined
      : owner === 'mirror'
        ? { apiVersion: 'v1', kind: 'Node', name: node ?? '', uid: `uid-node-${node ?? ''}`, controller: true }
        : { apiVersion: owner.kind === 'Job' || owner.kind === 'CronJob' ? 'batch/v1' : 'apps/v1', kind: owner.kind, name: owner.name, uid: `uid-${owner.name}`, controller: true };
  const annotations = { ...(owner === 'mirror' ? { 'kubernetes.io/config.mirror': 'mirror-hash' } : {}), ...o.annotations };
  const phase = o.phase ?? (node ? 'Running' : 'Pending');
  const volumes = [...(o.volumes ?? []), ...(o.emptyDir ? [{ name: 'scratch', emptyDir: {} }] : [])];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: o.uid ?? `uid-pod-${o.namespace ?? 'default'}-${name}`,
      creationTimestamp: o.creationTimestamp ?? T0,
      labels: o.labels ?? { app, ...(owner !== 'none' && owner !== 'mirror' && owner.kind === 'ReplicaSet' ? { 'pod-template-hash': '6d4cf' } : {}) },
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ...(ownerRef ? { ownerReferences: [ownerRef] } : {}),
      ...(o.deletionTimestamp ? { deletionTimestamp: o.deletionTimestamp } : {}),
    },
    spec: {
      ...(node ? { nodeName: node } : {}),
      terminationGracePeriodSeconds: o.terminationGracePeriodSeconds ?? 30,
      containers: o.containers ?? [aContainer({ cpu: o.cpu ?? '100m', memory: o.memory ?? '128Mi' }, undefined, { name: 'main' })],
      ...(o.initContainers ? { initContainers: o.initContainers } : {}),
      ...(o.overhead ? { overhead: o.overhead } : {}),
      ...(volumes.length ? { volumes } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...o.spec,
    },
    status: {
      phase,
      ...(o.qosClass ? { qosClass: o.qosClass } : {}),
      conditions:
        phase === 'Running'
          ? [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }]
          : phase === 'Pending' && !node
            ? [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }]
            : [{ type: 'Ready', status: 'False', lastTransitionTime: T0 }],
    },
  };
}

export interface KubePdbOptions {
  namespace?: string;
  /** Selects `app=<app>`; default the PDB's name without `-pdb`. */
  app?: string;
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  matchExpressions?: NonNullable<NonNullable<V1PodDisruptionBudget['spec']>['selector']>['matchExpressions'];
  disruptionsAllowed?: number;
}

/** aKubePdb — a policy/v1 PodDisruptionBudget on `app=<app>` (minAvailable 1 unless told otherwise). */
export function aKubePdb(name: string, o: KubePdbOptions = {}): V1PodDisruptionBudget {
  const app = o.app ?? name.replace(/-pdb$/, '');
  const budget = o.minAvailable === undefined && o.maxUnavailable === undefined ? { minAvailable: 1 } : { ...(o.minAvailable !== undefined ? { minAvailable: o.minAvailable } : {}), ...(o.maxUnavailable !== undefined ? { maxUnavailable: o.maxUnavailable } : {}) };
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: o.namespace ?? 'default', uid: `uid-pdb-${name}` },
    spec: { ...budget, selector: { matchLabels: { app }, ...(o.matchExpressions ? { matchExpressions: o.matchExpressions } : {}) } },
    ...(o.disruptionsAllowed !== undefined ? { status: { disruptionsAllowed: o.disruptionsAllowed, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } } : {}),
  };
}

export interface KubeLeaseOptions {
  namespace?: string;
  holder?: string;
  durationSeconds?: number;
  renewTime?: Date;
  acquireTime?: Date;
}

/** aKubeLease — a coordination.k8s.io/v1 Lease held by `holder` for 15 s, renewed at `renewTime`. */
export function aKubeLease(name: string, o: KubeLeaseOptions = {}): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: o.namespace ?? 'kube-node-lease', uid: `uid-lease-${name}` },
    spec: {
      holderIdentity: o.holder ?? name,
      leaseDurationSeconds: o.durationSeconds ?? 15,
      renewTime: new V1MicroTime((o.renewTime ?? T0).getTime()),
      ...(o.acquireTime ? { acquireTime: new V1MicroTime(o.acquireTime.getTime()) } : {}),
    },
  };
}
