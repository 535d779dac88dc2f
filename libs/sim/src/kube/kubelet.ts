import { effectiveResources } from '@nodes-manager/kube';
import { byId, type KubeObject } from './resources.js';
import { k8sTime, type KubeApi, type WriteContext } from './api/index.js';
import { ApiError } from './errors.js';

/** The namespace the kubelet keeps its node Lease in, as on a real cluster. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** The kubelet's `leaseDurationSeconds` (its default, 40 s). */
export const SIM_LEASE_DURATION_SECONDS = 40;
/** The taint of Kubernetes' non-graceful node shutdown. */
export const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';

const NODES = byId('/nodes');
const PODS = byId('/pods');
const LEASES = byId('coordination.k8s.io/leases');

/** PsiValues — one line of /proc/pressure/*: the share of time stalled, in percent, over 10 s, 60 s and 300 s. */
export interface PsiValues {
  avg10: number;
  avg60: number;
  avg300?: number;
}

/** PsiResource — `some` (at least one task stalled) and `full` (all tasks stalled) for one resource. */
export interface PsiResource {
  some: PsiValues;
  full: PsiValues;
}

/** NodePressure — what the simulated kubelet reports of a node: PSI per resource, and pods' memory use. */
export interface NodePressure {
  cpu?: PsiResource;
  memory?: PsiResource;
  io?: PsiResource;
  /** Working-set bytes of pods on the node, keyed `namespace/name`; pods not listed use their memory request. */
  podMemoryBytes?: Record<string, number>;
}

export interface SimKubeletOptions {
  clock: () => Date;
  /** How often leases are renewed and the out-of-service pod GC runs. Default 10 s (the kubelet's). */
  renewMs?: number;
  /**
   * Which nodes have a kubelet renewing a Lease. Default: nodes labelled `nodes-manager/fencing` (so a large
   * simulated fleet does not write thousands of leases every ten seconds); `'all'` for every node.
   */
  leases?: 'labelled' | 'all';
}

/**
 * SimKubelet — the parts of the kubelets and the node lifecycle controller that the fencing and pressure features
 * read: node Leases in `kube-node-lease` (renewed every `renewMs` unless the node hangs), the Summary API
 * (`/api/v1/nodes/{name}/proxy/stats/summary`) with Pressure Stall Information, a hung node's `Ready=Unknown`, and
 * the control plane's force-deletion of pods on a NotReady node tainted out-of-service.
 */
export class SimKubelet {
  private readonly hung = new Map<string, Date>();
  private readonly pressure = new Map<string, NodePressure>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly api: KubeApi,
    private readonly opts: SimKubeletOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.tick();
    this.timer = setInterval(() => this.tick(), this.opts.renewMs ?? 10_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * tick — renew the leases of healthy nodes; force-delete pods of NotReady nodes tainted out-of-service. Only
   * nodes with a simulated Lease are looked at (by label selector, so a large fleet costs nothing here).
   */
  tick(): void {
    const now = this.opts.clock();
    for (const node of this.nodes()) {
      const name = node.metadata.name as string;
      if (!this.hung.has(name)) this.renewLease(name, now);
      if (outOfService(node) && !isReady(node)) this.collectPods(name, now);
    }
  }

  /**
   * hang — the node's kubelet stops: its Lease is no longer renewed (last renewal `since`, default now) and the
   * node lifecycle controller marks it `Ready=Unknown` (at `since` + the lease duration, or now if later).
   */
  hang(node: string, since?: Date): void {
    const now = this.opts.clock();
    const at = since ?? now;
    this.api.get(NODES, '', node);
    this.hung.set(node, at);
    this.renewLease(node, at);
    const unknownAt = new Date(Math.min(now.getTime(), at.getTime() + SIM_LEASE_DURATION_SECONDS * 1000));
    this.setReadyCondition(node, 'Unknown', unknownAt, 'NodeStatusUnknown', 'Kubelet stopped posting node status.');
  }

  /** recover — the kubelet is back: the Lease is renewed and the node is Ready again. */
  recover(node: string): void {
    const now = this.opts.clock();
    this.hung.delete(node);
    this.renewLease(node, now);
    this.setReadyCondition(node, 'True', now, 'KubeletReady', 'kubelet is posting ready status');
  }

  isHung(node: string): boolean {
    return this.hung.has(node);
  }

  setPressure(node: string, p: NodePressure | null): void {
    this.api.get(NODES, '', node);
    if (p === null) this.pressure.delete(node);
    else this.pressure.set(node, { ...this.pressure.get(node), ...p });
  }

  /** summary — the kubelet's `/stats/summary` answer; 503 for a hung node (nobody answers), PSI only where set. */
  summary(node: string): KubeObject {
    const n = this.api.get(NODES, '', node);
    if (this.hung.has(node)) throw new ApiError(503, 'ServiceUnavailable', `error trying to reach service: dial tcp: node ${node} is not responding`);
    const now = k8sTime(this.opts.clock());
    const p = this.pressure.get(node);
    const psi = (r: PsiResource | undefined) => (r ? { psi: { some: psiLine(r.some), full: psiLine(r.full) } } : {});
    const pods = this.podsOn(node);
    return {
      node: {
        nodeName: node,
        startTime: n.metadata.creationTimestamp,
        cpu: { time: now, usageNanoCores: 0, ...psi(p?.cpu) },
        memory: { time: now, workingSetBytes: 0, ...psi(p?.memory) },
        ...(p?.io ? { io: { time: now, ...psi(p.io) } } : {}),
      },
      pods: pods.map((pod) => {
        const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
        return {
          podRef: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
          startTime: pod.metadata.creationTimestamp,
          memory: { time: now, workingSetBytes: p?.podMemoryBytes?.[key] ?? memoryRequestBytes(pod) },
        };
      }),
    } as unknown as KubeObject;
  }

  private nodes(): KubeObject[] {
    const selector = this.opts.leases === 'all' ? {} : { labelSelector: 'nodes-manager/fencing' };
    return this.api.list(NODES, undefined, selector).items.map((e) => JSON.parse(e.json) as KubeObject);
  }

  private podsOn(node: string): KubeObject[] {
    return this.api.list(PODS, undefined, { fieldSelector: `spec.nodeName=${node}` }).items.map((e) => JSON.parse(e.json) as KubeObject);
  }

  private renewLease(node: string, at: Date): void {
    const ctx: WriteContext = { manager: 'kubelet', now: at };
    const spec = { holderIdentity: node, leaseDurationSeconds: SIM_LEASE_DURATION_SECONDS, renewTime: at.toISOString().replace('Z', '000Z') };
    try {
      const current = this.api.get(LEASES, NODE_LEASE_NAMESPACE, node);
      this.api.update(LEASES, NODE_LEASE_NAMESPACE, node, { ...current, spec: { ...current.spec, ...spec } }, ctx);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 404) throw e;
      this.ensureNamespace();
      this.api.create(LEASES, NODE_LEASE_NAMESPACE, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: node, namespace: NODE_LEASE_NAMESPACE }, spec }, ctx);
    }
  }

  private ensureNamespace(): void {
    const NAMESPACES = byId('/namespaces');
    try {
      this.api.get(NAMESPACES, '', NODE_LEASE_NAMESPACE);
    } catch {
      this.api.store.load(NAMESPACES, [this.api.namespaceObject(NODE_LEASE_NAMESPACE, k8sTime(this.opts.clock()))]);
    }
  }

  private setReadyCondition(node: string, status: 'True' | 'Unknown', since: Date, reason: string, message: string): void {
    const now = this.opts.clock();
    const cond = { type: 'Ready', status, reason, message, lastHeartbeatTime: k8sTime(status === 'True' ? now : since), lastTransitionTime: k8sTime(since) };
    this.api.patch(NODES, '', node, 'strategic', { status: { conditions: [cond] } }, { manager: 'kube-controller-manager', now }, 'status');
  }

  /** collectPods — what the pod GC controller does for an out-of-service node: force-delete its pods. */
  private collectPods(node: string, now: Date): void {
    for (const pod of this.podsOn(node)) {
      try {
        this.api.delete(PODS, pod.metadata.namespace as string, pod.metadata.name as string, { manager: 'kube-controller-manager', now }, { gracePeriodSeconds: 0 });
      } catch {
        /* already gone */
      }
    }
  }
}

const psiLine = (v: PsiValues) => ({ avg10: v.avg10, avg60: v.avg60, avg300: v.avg300 ?? v.avg60, total: 0 });

const isReady = (node: KubeObject): boolean =>
  ((node.status?.conditions ?? []) as Array<{ type: string; status: string }>).some((c) => c.type === 'Ready' && c.status === 'True');

const outOfService = (node: KubeObject): boolean =>
  ((node.spec?.taints ?? []) as Array<{ key: string }>).some((t) => t.key === OUT_OF_SERVICE_TAINT);

/** memoryRequestBytes — the pod's effective memory request (a rough default working set). */
function memoryRequestBytes(pod: KubeObject): number {
  return effectiveResources(pod.spec as never).memoryBytes;
}
