import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { INSTANCE_TYPES, type InstanceTypeSpec } from '@nodes-manager/contracts';
import type { Fleet } from './fleet.types.js';
import { Rng } from './rng.js';

export interface FleetOptions {
  seed: number;
  nodes: number;
  /** Target pods per node, DaemonSet and mirror pods included (default 30; capped by the type's maxPods). */
  podsPerNode?: number;
  /** Share of nodes on Spot (default 0.6). */
  spotShare?: number;
  zones?: readonly string[];
  /** Emit NodePools and NodeClaims (labels are set either way, as Karpenter-launched nodes carry them). */
  karpenter?: boolean;
  /** The fleet's "now": creation times lie before it. Fixed by default so a seed always gives the same fleet. */
  now?: Date;
  /**
   * Hands each node's pods over as they are made, instead of keeping them in `Fleet.pods` (left empty): a fleet of
   * a million pods is then never held whole (the simulator loads each batch and the objects are dropped). The pods
   * are the same as without it.
   */
  podSink?: (pods: V1Pod[]) => void;
}

export type WorkloadClass = 'deployment' | 'statefulset' | 'job' | 'cronjob' | 'guaranteed' | 'gpu' | 'bare';

/** Allocatable — what the scheduler may hand out on a node (cpu millicores, memory MiB, pods, GPUs). */
export interface Allocatable {
  cpuMillis: number;
  memoryMiB: number;
  pods: number;
  gpu: number;
}

/**
 * allocatableOf — the EKS AMI's reservation: kube-reserved CPU 6% of the first core, 1% of the second,
 * 0.5% of the next two, 0.25% of the rest; kube-reserved memory 255 MiB + 11 MiB per pod; 100 MiB
 * hard eviction threshold.
 */
export function allocatableOf(t: InstanceTypeSpec): Allocatable {
  const cores = t.vcpu;
  const reservedCpu = 60 + (cores > 1 ? 10 : 0) + Math.min(Math.max(cores - 2, 0), 2) * 5 + Math.max(cores - 4, 0) * 2.5;
  return {
    cpuMillis: cores * 1000 - Math.ceil(reservedCpu),
    memoryMiB: t.memoryMiB - (255 + 11 * t.maxPods) - 100,
    pods: t.maxPods,
    gpu: t.gpu,
  };
}

const PRESSURE_REASONS = { MemoryPressure: 'KubeletHasSufficientMemory', DiskPressure: 'KubeletHasNoDiskPressure', PIDPressure: 'KubeletHasSufficientPID' } as const;
const DEFAULT_NOW = new Date('2026-01-15T12:00:00Z');
const NAMESPACES = ['payments', 'checkout', 'search', 'catalog', 'web', 'analytics', 'data', 'ml', 'batch', 'platform'];
const APPS = ['api', 'worker', 'gateway', 'frontend', 'indexer', 'cache', 'consumer', 'scheduler', 'renderer', 'sync', 'auth', 'ledger', 'reports', 'notifier', 'pricing', 'router'];

interface Pool {
  name: string;
  types: InstanceTypeSpec[];
  weight: number;
  gpu: boolean;
}

interface Workload {
  cls: WorkloadClass;
  kind: string;
  ns: string;
  name: string;
  uid: string;
  cpu: number;
  mem: number;
  gpu: number;
  doNotDisrupt: boolean;
  hash: string;
  rsUid: string;
  placed: number;
}

const q = (cpu: number): string => (cpu % 1000 === 0 ? String(cpu / 1000) : `${cpu}m`);
const mi = (m: number): string => `${m}Mi`;
const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** generateFleet — a deterministic, realistic EKS + Karpenter fleet in which every node's pods fit its allocatable. */
export function generateFleet(o: FleetOptions): Fleet {
  const rng = new Rng(o.seed);
  const now = o.now ?? DEFAULT_NOW;
  const zones = o.zones ?? ['us-east-1a', 'us-east-1b', 'us-east-1c'];
  const spotShare = o.spotShare ?? 0.6;
  const podsPerNode = o.podsPerNode ?? 30;
  const karpenter = o.karpenter ?? true;
  const byFamily = (fams: string[], minVcpu = 4) => INSTANCE_TYPES.filter((t) => fams.includes(t.family) && t.vcpu >= minVcpu);
  const pools: Pool[] = [
    { name: 'general', types: byFamily(['m5', 'm6i', 'm7i', 'c5', 'c6i', 't3']), weight: 70, gpu: false },
    { name: 'arm', types: byFamily(['m6g', 'c6g']), weight: 14, gpu: false },
    { name: 'memory', types: byFamily(['r5', 'r6i']), weight: 12, gpu: false },
    { name: 'gpu', types: INSTANCE_TYPES.filter((t) => t.gpuResource === 'nvidia.com/gpu'), weight: 4, gpu: true },
  ];

  // ---- nodes ----
  const usedIps = new Set<string>();
  const nodes: V1Node[] = [];
  const nodeInfo: { node: V1Node; type: InstanceTypeSpec; alloc: Allocatable; pool: Pool; zone: string; created: Date; underused: boolean; claim: string; spot: boolean }[] = [];
  for (let i = 0; i < o.nodes; i++) {
    // Every fleet of four or more nodes has at least one GPU node.
    const pool = i === 3 ? pools[3]! : rng.weighted(pools.map((p) => [p, p.weight] as const));
    const type = rng.pick(pool.types);
    const zone = zones[i % zones.length]!;
    const spot = !pool.gpu && rng.chance(spotShare);
    const created = new Date(now.getTime() - rng.int(3600, 30 * 86400) * 1000);
    let ip: string;
    do ip = `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
    while (usedIps.has(ip));
    usedIps.add(ip);
    const name = `ip-${ip.replace(/\./g, '-')}.ec2.internal`;
    const alloc = allocatableOf(type);
    const instanceId = `i-0${rng.hex(16)}`;
    const claim = `${pool.name}-${rng.suffix()}`;
    const gpuRes = type.gpu > 0 && type.gpuResource ? { [type.gpuResource]: String(type.gpu) } : {};
    const node: V1Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        uid: rng.uuid(),
        creationTimestamp: created,
        labels: {
          'kubernetes.io/arch': type.arch,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/hostname': name,
          'node.kubernetes.io/instance-type': type.name,
          'beta.kubernetes.io/instance-type': type.name,
          'topology.kubernetes.io/zone': zone,
          'topology.kubernetes.io/region': 'us-east-1',
          'failure-domain.beta.kubernetes.io/zone': zone,
          'karpenter.sh/capacity-type': spot ? 'spot' : 'on-demand',
          'eks.amazonaws.com/capacityType': spot ? 'SPOT' : 'ON_DEMAND',
          'karpenter.sh/nodepool': pool.name,
          'karpenter.sh/registered': 'true',
          'karpenter.sh/initialized': 'true',
          'karpenter.k8s.aws/instance-family': type.family,
          'karpenter.k8s.aws/instance-cpu': String(type.vcpu),
          'karpenter.k8s.aws/instance-memory': String(type.memoryMiB),
          ...(pool.gpu ? { 'nvidia.com/gpu.present': 'true' } : {}),
        },
        annotations: {
          'alpha.kubernetes.io/provided-node-ip': ip,
          'karpenter.sh/nodepool-hash': rng.hex(16),
          'node.alpha.kubernetes.io/ttl': '0',
        },
      },
      spec: {
        providerID: `aws:///${zone}/${instanceId}`,
        ...(pool.gpu ? { taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] } : {}),
      },
      status: {
        capacity: { cpu: String(type.vcpu), memory: `${type.memoryMiB * 1024}Ki`, pods: String(type.maxPods), 'ephemeral-storage': '104845292Ki', ...gpuRes },
        allocatable: { cpu: q(alloc.cpuMillis), memory: `${alloc.memoryMiB * 1024}Ki`, pods: String(alloc.pods), 'ephemeral-storage': '95551679124', ...gpuRes },
        conditions: [
          ...(['MemoryPressure', 'DiskPressure', 'PIDPressure'] as const).map((t) => ({
            type: t, status: 'False', reason: PRESSURE_REASONS[t],
            message: '', lastHeartbeatTime: now, lastTransitionTime: new Date(created.getTime() + 20_000),
          })),
          { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: new Date(created.getTime() + 45_000) },
        ],
        addresses: [
          { type: 'InternalIP', address: ip },
          { type: 'InternalDNS', address: name },
          { type: 'Hostname', address: name },
        ],
        nodeInfo: {
          architecture: type.arch, operatingSystem: 'linux', osImage: 'Amazon Linux 2023.6.20250115', kernelVersion: '6.1.119-129.201.amzn2023.x86_64',
          containerRuntimeVersion: 'containerd://1.7.25', kubeletVersion: 'v1.31.4-eks-aeac579', kubeProxyVersion: 'v1.31.4-eks-aeac579',
          machineID: rng.hex(32), systemUUID: rng.uuid(), bootID: rng.uuid(),
        },
      },
    } as V1Node;
    nodes.push(node);
    nodeInfo.push({ node, type, alloc, pool, zone, created, underused: rng.chance(0.05), claim, spot });
  }

  // ---- workloads ----
  const workloads: Workload[] = [];
  const newWorkload = (cls: WorkloadClass): Workload => {
    const ns = cls === 'gpu' ? 'ml' : cls === 'job' || cls === 'cronjob' ? rng.pick(['batch', 'analytics', 'data']) : rng.pick(NAMESPACES);
    const kind = { deployment: 'Deployment', guaranteed: 'Deployment', gpu: rng.chance(0.5) ? 'Deployment' : 'Job', statefulset: 'StatefulSet', job: 'Job', cronjob: 'CronJob', bare: 'Pod' }[cls];
    const name = `${rng.pick(APPS)}-${cls === 'statefulset' ? 'db' : cls}-${workloads.length}`;
    const w: Workload = {
      cls, kind, ns, name, uid: rng.uuid(), rsUid: rng.uuid(), hash: rng.suffix(9).slice(0, 9).replace(/[^a-z0-9]/g, 'x'),
      cpu: cls === 'gpu' ? rng.pick([1000, 2000]) : cls === 'statefulset' ? rng.pick([250, 500, 1000]) : rng.pick([50, 100, 100, 150, 200, 250, 250, 300, 400, 500]),
      mem: cls === 'gpu' ? rng.pick([4096, 8192]) : cls === 'statefulset' ? rng.pick([1024, 2048]) : rng.pick([64, 128, 128, 256, 256, 384, 512, 768]),
      gpu: cls === 'gpu' ? 1 : 0,
      doNotDisrupt: cls !== 'bare' && rng.chance(0.04),
      placed: 0,
    };
    workloads.push(w);
    return w;
  };
  const catalogSize = Math.max(8, Math.ceil((o.nodes * podsPerNode) / 12));
  const classes: (readonly [WorkloadClass, number])[] = [['deployment', 60], ['statefulset', 10], ['job', 8], ['cronjob', 7], ['guaranteed', 12], ['bare', 3]];
  // At least one of each class, then the mix.
  for (const [cls] of classes) newWorkload(cls);
  while (workloads.length < catalogSize) newWorkload(rng.weighted(classes));
  const cpuWorkloads = [...workloads];
  const gpuWorkloads = [newWorkload('gpu'), ...Array.from({ length: Math.max(1, Math.ceil(o.nodes / 60)) }, () => newWorkload('gpu'))];

  // ---- DaemonSets ----
  const daemonSets = [
    { ns: 'kube-system', name: 'aws-node', cpu: 25, mem: 64, gpuOnly: false },
    { ns: 'kube-system', name: 'kube-proxy', cpu: 100, mem: 64, gpuOnly: false },
    { ns: 'kube-system', name: 'ebs-csi-node', cpu: 30, mem: 96, gpuOnly: false },
    { ns: 'platform', name: 'node-exporter', cpu: 50, mem: 64, gpuOnly: false },
    { ns: 'kube-system', name: 'nvidia-device-plugin', cpu: 50, mem: 64, gpuOnly: true },
  ].map((d) => ({ ...d, uid: rng.uuid(), count: 0 }));

  let pods: V1Pod[] = [];
  const defaultTolerations = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ];
  const usedPodNames = new Set<string>();
  /** unique — generated names with random suffixes are re-drawn on collision, as the API server would refuse them. */
  const unique = (ns: string, name: string): string => {
    let candidate = name;
    while (usedPodNames.has(`${ns}/${candidate}`)) candidate = `${name.replace(/-[a-z0-9]{5}$/, '')}-${rng.suffix()}`;
    usedPodNames.add(`${ns}/${candidate}`);
    return candidate;
  };
  const mkPod = (
    n: (typeof nodeInfo)[number], ns: string, rawName: string, labels: Record<string, string>, cpu: number, mem: number,
    extra: { owner?: { apiVersion: string; kind: string; name: string; uid: string }; gpu?: number; guaranteed?: boolean; pvc?: string;
      restartPolicy?: string; phase?: string; annotations?: Record<string, string>; tolerations?: object[]; priorityClassName?: string },
  ): V1Pod => {
    const name = unique(ns, rawName);
    const requests: Record<string, string> = { cpu: q(cpu), memory: mi(mem) };
    if (extra.gpu) requests['nvidia.com/gpu'] = String(extra.gpu);
    const limits: Record<string, string> | undefined = extra.guaranteed || extra.gpu ? { ...requests } : { memory: mi(mem * 2) };
    const started = new Date(Math.max(n.created.getTime() + 60_000, now.getTime() - rng.int(600, 20 * 86400) * 1000));
    const phase = extra.phase ?? 'Running';
    const running = phase === 'Running';
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name, namespace: ns, uid: rng.uuid(), creationTimestamp: started, labels,
        ...(extra.annotations ? { annotations: extra.annotations } : {}),
        ...(extra.owner ? { ownerReferences: [{ ...extra.owner, controller: true, blockOwnerDeletion: true }] } : {}),
      },
      spec: {
        nodeName: n.node.metadata!.name!,
        containers: [{ name: labels.app ?? name, image: `123456789012.dkr.ecr.us-east-1.amazonaws.com/${labels.app ?? name}:1.${rng.int(0, 40)}`, resources: { requests, ...(limits ? { limits } : {}) } }],
        ...(extra.pvc ? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: extra.pvc } }] } : {}),
        restartPolicy: extra.restartPolicy ?? 'Always',
        terminationGracePeriodSeconds: 30,
        schedulerName: 'default-scheduler',
        serviceAccountName: 'default',
        tolerations: [...defaultTolerations, ...(extra.tolerations ?? [])],
        ...(extra.priorityClassName ? { priorityClassName: extra.priorityClassName } : {}),
      },
      status: {
        phase,
        qosClass: extra.guaranteed || extra.gpu ? 'Guaranteed' : 'Burstable',
        hostIP: n.node.status!.addresses![0]!.address,
        podIP: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`,
        startTime: started,
        conditions: [
          { type: 'PodScheduled', status: 'True', lastTransitionTime: started },
          { type: 'Ready', status: running ? 'True' : 'False', lastTransitionTime: started, ...(running ? {} : { reason: 'PodCompleted' }) },
        ],
        containerStatuses: [{ name: labels.app ?? name, ready: running, restartCount: 0, started: running, image: '', imageID: '' }],
      },
    } as V1Pod;
  };

  /** The StatefulSet pods' claims, given volumes at the end so the draws for everything else stay as they were. */
  const claims: { ns: string; name: string; app: string; zone: string }[] = [];
  let wi = 0;
  const flush = (): void => {
    if (o.podSink && pods.length) {
      o.podSink(pods);
      pods = [];
    }
  };
  for (const n of nodeInfo) {
    // Pods go to the sink in batches of about 1,000.
    if (pods.length >= 1000) flush();
    let cpu = 0;
    let mem = 0;
    let count = 0;
    let gpu = 0;
    const nodeName = n.node.metadata!.name!;
    const fits = (c: number, m: number, g = 0) => cpu + c <= n.alloc.cpuMillis && mem + m <= n.alloc.memoryMiB && count + 1 <= n.alloc.pods && gpu + g <= n.alloc.gpu;
    const take = (c: number, m: number, g = 0) => {
      cpu += c;
      mem += m;
      count++;
      gpu += g;
    };
    // Mirror (static) pod: owned by the Node, annotated by the kubelet.
    take(50, 64);
    pods.push(mkPod(n, 'kube-system', `node-problem-detector-${nodeName}`, { app: 'node-problem-detector', tier: 'node' }, 50, 64, {
      owner: { apiVersion: 'v1', kind: 'Node', name: nodeName, uid: n.node.metadata!.uid! },
      annotations: { 'kubernetes.io/config.mirror': rng.hex(32), 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.hash': rng.hex(32) },
      priorityClassName: 'system-node-critical',
    }));
    for (const ds of daemonSets) {
      if (ds.gpuOnly && !n.pool.gpu) continue;
      take(ds.cpu, ds.mem);
      ds.count++;
      pods.push(mkPod(n, ds.ns, `${ds.name}-${rng.suffix()}`, { app: ds.name, 'controller-revision-hash': '6d8f7c9b5d' }, ds.cpu, ds.mem, {
        owner: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds.name, uid: ds.uid },
        tolerations: [{ operator: 'Exists' }], priorityClassName: 'system-node-critical',
      }));
    }
    const targetCpu = n.alloc.cpuMillis * (n.underused ? 0.1 + rng.next() * 0.12 : 0.55 + rng.next() * 0.35);
    const maxPods = Math.min(n.underused ? Math.ceil(podsPerNode / 4) : podsPerNode, n.alloc.pods);
    const source = n.pool.gpu ? gpuWorkloads : cpuWorkloads;
    let misses = 0;
    while (count < maxPods && cpu < targetCpu && misses < source.length) {
      const w = source[wi++ % source.length]!;
      // Spread what is left of the CPU target over the slots left, so small and large nodes both fill up.
      const perSlot = Math.max(60, (2.2 * (targetCpu - cpu)) / Math.max(1, maxPods - count));
      if (!fits(w.cpu, w.mem, w.gpu) || (!n.pool.gpu && w.cpu > perSlot)) {
        misses++;
        continue;
      }
      misses = 0;
      take(w.cpu, w.mem, w.gpu);
      const i = w.placed++;
      const labels: Record<string, string> = { app: w.name };
      const annotations: Record<string, string> | undefined = w.doNotDisrupt ? { 'karpenter.sh/do-not-disrupt': 'true' } : undefined;
      const tolerations = w.gpu ? [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] : [];
      const common = { ...(annotations ? { annotations } : {}), tolerations };
      if (w.kind === 'Deployment') {
        labels['pod-template-hash'] = w.hash;
        pods.push(mkPod(n, w.ns, `${w.name}-${w.hash}-${rng.suffix()}`, labels, w.cpu, w.mem, {
          ...common, owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${w.name}-${w.hash}`, uid: w.rsUid },
          guaranteed: w.cls === 'guaranteed', gpu: w.gpu,
        }));
      } else if (w.kind === 'StatefulSet') {
        labels['statefulset.kubernetes.io/pod-name'] = `${w.name}-${i}`;
        pods.push(mkPod(n, w.ns, `${w.name}-${i}`, labels, w.cpu, w.mem, {
          ...common, owner: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: w.name, uid: w.uid }, pvc: `data-${w.name}-${i}`,
        }));
        claims.push({ ns: w.ns, name: `data-${w.name}-${i}`, app: w.name, zone: n.zone });
      } else if (w.kind === 'Job') {
        labels['batch.kubernetes.io/job-name'] = w.name;
        pods.push(mkPod(n, w.ns, `${w.name}-${rng.suffix()}`, labels, w.cpu, w.mem, {
          ...common, owner: { apiVersion: 'batch/v1', kind: 'Job', name: w.name, uid: w.uid }, restartPolicy: 'Never', gpu: w.gpu,
          ...(w.gpu ? {} : { phase: rng.chance(0.15) ? 'Succeeded' : 'Running' }),
        }));
      } else if (w.kind === 'CronJob') {
        const job = `${w.name}-${29_000_000 + rng.int(0, 99_999)}`;
        labels['batch.kubernetes.io/job-name'] = job;
        pods.push(mkPod(n, w.ns, `${job}-${rng.suffix()}`, labels, w.cpu, w.mem, {
          ...common, owner: { apiVersion: 'batch/v1', kind: 'Job', name: job, uid: w.rsUid }, restartPolicy: 'OnFailure',
        }));
      } else {
        pods.push(mkPod(n, w.ns, `${w.name}-${i}`, labels, w.cpu, w.mem, common));
      }
    }
  }

  flush();

  // ---- controller objects, PDBs ----
  const created = iso(new Date(now.getTime() - 40 * 86400 * 1000));
  const meta = (ns: string, name: string, uid: string) => ({ name, namespace: ns, uid, creationTimestamp: created, labels: { app: name } });
  const template = (w: Workload) => ({ metadata: { labels: { app: w.name } }, spec: { containers: [{ name: w.name, image: 'app', resources: { requests: { cpu: q(w.cpu), memory: mi(w.mem) } } }] } });
  const objects: object[] = [];
  const pdbs: V1PodDisruptionBudget[] = [];
  for (const w of workloads) {
    if (w.placed === 0) continue;
    const selector = { matchLabels: { app: w.name } };
    if (w.kind === 'Deployment') {
      objects.push({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(w.ns, w.name, w.uid), spec: { replicas: w.placed, selector, template: template(w) }, status: { replicas: w.placed, readyReplicas: w.placed, availableReplicas: w.placed } });
      objects.push({
        apiVersion: 'apps/v1', kind: 'ReplicaSet',
        metadata: { ...meta(w.ns, `${w.name}-${w.hash}`, w.rsUid), ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: w.name, uid: w.uid, controller: true, blockOwnerDeletion: true }] },
        spec: { replicas: w.placed, selector, template: template(w) }, status: { replicas: w.placed, readyReplicas: w.placed },
      });
    } else if (w.kind === 'StatefulSet') {
      objects.push({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta(w.ns, w.name, w.uid), spec: { replicas: w.placed, serviceName: w.name, selector, template: template(w) }, status: { replicas: w.placed, readyReplicas: w.placed } });
    } else if (w.kind === 'Job') {
      objects.push({ apiVersion: 'batch/v1', kind: 'Job', metadata: meta(w.ns, w.name, w.uid), spec: { parallelism: w.placed, completions: w.placed, template: { ...template(w), spec: { ...template(w).spec, restartPolicy: 'Never' } } }, status: { active: w.placed } });
    } else if (w.kind === 'CronJob') {
      objects.push({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: meta(w.ns, w.name, w.uid), spec: { schedule: '*/30 * * * *', jobTemplate: { spec: { template: { ...template(w), spec: { ...template(w).spec, restartPolicy: 'OnFailure' } } } } } });
    }
    if ((w.kind === 'Deployment' || w.kind === 'StatefulSet') && w.placed >= 2 && rng.chance(0.35)) {
      const budget = rng.weighted([[{ minAvailable: w.placed - 1 }, 3], [{ minAvailable: '50%' }, 2], [{ maxUnavailable: 1 }, 3], [{ maxUnavailable: '25%' }, 1]] as const);
      pdbs.push({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: `${w.name}-pdb`, namespace: w.ns, uid: rng.uuid(), creationTimestamp: new Date(created) }, spec: { ...budget, selector } } as V1PodDisruptionBudget);
    }
  }
  for (const ds of daemonSets) {
    if (ds.count === 0) continue;
    objects.push({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta(ds.ns, ds.name, ds.uid), spec: { selector: { matchLabels: { app: ds.name } }, template: { metadata: { labels: { app: ds.name } }, spec: { containers: [{ name: ds.name, image: ds.name }] } } }, status: { desiredNumberScheduled: ds.count, numberReady: ds.count } });
  }

  // ---- Karpenter ----
  const nodePools: object[] = [];
  const nodeClaims: object[] = [];
  if (karpenter) {
    for (const p of pools) {
      const members = nodeInfo.filter((n) => n.pool === p);
      if (members.length === 0) continue;
      nodePools.push({
        apiVersion: 'karpenter.sh/v1', kind: 'NodePool',
        metadata: { name: p.name, uid: rng.uuid(), creationTimestamp: created, generation: 1 },
        spec: {
          template: {
            metadata: { labels: { 'nodes-manager/pool': p.name } },
            spec: {
              nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
              requirements: [
                { key: 'karpenter.sh/capacity-type', operator: 'In', values: p.gpu ? ['on-demand'] : ['spot', 'on-demand'] },
                { key: 'node.kubernetes.io/instance-type', operator: 'In', values: p.types.map((t) => t.name) },
                { key: 'topology.kubernetes.io/zone', operator: 'In', values: [...zones] },
              ],
              ...(p.gpu ? { taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] } : {}),
              expireAfter: '720h',
            },
          },
          disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] },
          limits: { cpu: String(Math.max(1000, members.reduce((s, n) => s + n.type.vcpu, 0) * 2)), memory: `${Math.max(1000, Math.ceil(members.reduce((s, n) => s + n.type.memoryMiB, 0) / 512))}Gi` },
          weight: p.gpu ? 50 : 10,
        },
        status: {
          resources: { cpu: String(members.reduce((s, n) => s + n.type.vcpu, 0)), memory: `${members.reduce((s, n) => s + n.type.memoryMiB, 0)}Mi`, nodes: String(members.length) },
          conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: created, observedGeneration: 1 }],
        },
      });
    }
    for (const n of nodeInfo) {
      nodeClaims.push({
        apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim',
        metadata: {
          name: n.claim, uid: rng.uuid(), creationTimestamp: iso(n.created), generation: 1,
          labels: { 'karpenter.sh/nodepool': n.pool.name, 'node.kubernetes.io/instance-type': n.type.name, 'topology.kubernetes.io/zone': n.zone, 'karpenter.sh/capacity-type': n.spot ? 'spot' : 'on-demand' },
          ownerReferences: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: n.pool.name, uid: '', blockOwnerDeletion: true }],
          finalizers: ['karpenter.sh/termination'],
        },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: [n.type.name] }],
          expireAfter: '720h',
        },
        status: {
          nodeName: n.node.metadata!.name, providerID: n.node.spec!.providerID, imageID: 'ami-0abcdef1234567890',
          capacity: n.node.status!.capacity, allocatable: n.node.status!.allocatable,
          conditions: ['Launched', 'Registered', 'Initialized', 'Ready'].map((t) => ({ type: t, status: 'True', reason: t, message: '', lastTransitionTime: iso(n.created) })),
        },
      });
    }
    const poolUid = new Map(nodePools.map((p) => [(p as { metadata: { name: string; uid: string } }).metadata.name, (p as { metadata: { uid: string } }).metadata.uid]));
    for (const c of nodeClaims as { metadata: { labels: Record<string, string>; ownerReferences: { uid: string }[] } }[]) {
      c.metadata.ownerReferences[0]!.uid = poolUid.get(c.metadata.labels['karpenter.sh/nodepool']!) ?? '';
    }
  }

  // ---- volumes ----
  // Each claim is bound to a gp3 volume the EBS CSI driver provisioned in the zone of the pod's node: the
  // volume's node affinity (and zone label) say where it can attach.
  const persistentVolumeClaims: object[] = [];
  const persistentVolumes: object[] = [];
  for (const c of claims) {
    const claimUid = rng.uuid();
    const volumeName = `pvc-${claimUid}`;
    const capacity = { storage: '20Gi' };
    const accessModes = ['ReadWriteOnce'];
    persistentVolumeClaims.push({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim',
      metadata: {
        name: c.name, namespace: c.ns, uid: claimUid, creationTimestamp: created, labels: { app: c.app },
        annotations: { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes', 'volume.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com' },
        finalizers: ['kubernetes.io/pvc-protection'],
      },
      spec: { accessModes, resources: { requests: capacity }, storageClassName: 'gp3', volumeMode: 'Filesystem', volumeName },
      status: { phase: 'Bound', accessModes, capacity },
    });
    persistentVolumes.push({
      apiVersion: 'v1', kind: 'PersistentVolume',
      metadata: {
        name: volumeName, uid: rng.uuid(), creationTimestamp: created,
        labels: { 'topology.kubernetes.io/zone': c.zone },
        annotations: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com', 'volume.kubernetes.io/provisioner-deletion-secret-name': '', 'volume.kubernetes.io/provisioner-deletion-secret-namespace': '' },
        finalizers: ['kubernetes.io/pv-protection', 'external-attacher/ebs-csi-aws-com'],
      },
      spec: {
        accessModes, capacity, storageClassName: 'gp3', volumeMode: 'Filesystem', persistentVolumeReclaimPolicy: 'Delete',
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: c.ns, name: c.name, uid: claimUid },
        csi: { driver: 'ebs.csi.aws.com', fsType: 'ext4', volumeHandle: `vol-0${rng.hex(16)}` },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [c.zone] }] }] } },
      },
      status: { phase: 'Bound' },
    });
  }

  const namespaces = [...new Set(['kube-system', ...NAMESPACES])];
  return { nodes, pods, pdbs, persistentVolumeClaims, persistentVolumes, nodePools, nodeClaims, workloads: objects, namespaces };
}
