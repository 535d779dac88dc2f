import * as k8s from '@kubernetes/client-node';
import fetch from 'node-fetch';
import { NODES_MANAGER_FIELD_MANAGER, OUT_OF_SERVICE_TAINT } from '@nodes-manager/contracts';
import { apiTime } from '@nodes-manager/kube';
import { kubeErrorCode, makeCountedApiClient, type KubeRequestCounter } from '@nodes-manager/platform';

const MERGE = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
/** Every call here is bounded: a hung API server or kubelet never blocks a fencing or pressure cycle. */
const REQUEST_TIMEOUT_MS = 10_000;

/** LeaseReading — a node Lease's last renewal; null renewTime when it was never renewed. */
export interface LeaseReading {
  renewTime: Date | null;
  durationSeconds: number;
}

export type TaintResult = { ok: true; added: boolean } | { ok: false; notFound: boolean; conflict: boolean; message: string };

/** bounded — one Kubernetes call's own deadline (real time, whatever the Clock: it bounds a request, not a behaviour). */
const bounded = <T>(what: string, p: Promise<T>, ms = REQUEST_TIMEOUT_MS): Promise<T> => {
  const deadline = AbortSignal.timeout(ms);
  let onAbort: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Error(`${what} timed out after ${ms} ms`));
    deadline.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([p, timeout]).finally(() => deadline.removeEventListener('abort', onAbort!));
};

/**
 * KubeFencing — the Kubernetes calls of fencing and pressure watching: one node's Lease in kube-node-lease, the
 * out-of-service taint, force deletion of pods, and the kubelet's Summary API through the API server's node proxy.
 */
export class KubeFencing {
  private readonly core: k8s.CoreV1Api;
  private readonly coordination: k8s.CoordinationV1Api;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly requests?: KubeRequestCounter,
  ) {
    this.core = makeCountedApiClient(kc, k8s.CoreV1Api, requests);
    this.coordination = makeCountedApiClient(kc, k8s.CoordinationV1Api, requests);
  }

  /**
   * lease — the node's Lease in kube-node-lease (NODE_LEASE_NAMESPACE; written out so that RBAC can grant `get` on
   * leases in that namespace only), or null when it has none.
   */
  async lease(node: string): Promise<LeaseReading | null> {
    try {
      const l = await bounded(`reading lease ${node}`, this.coordination.readNamespacedLease({ name: node, namespace: 'kube-node-lease' }));
      return { renewTime: apiTime(l.spec?.renewTime) ?? null, durationSeconds: l.spec?.leaseDurationSeconds ?? 40 };
    } catch (err) {
      if (kubeErrorCode(err) === 404) return null;
      throw err;
    }
  }

  /** node — one fresh read; undefined when it does not exist. */
  async node(name: string): Promise<k8s.V1Node | undefined> {
    try {
      return await bounded(`reading node ${name}`, this.core.readNode({ name }));
    } catch (err) {
      if (kubeErrorCode(err) === 404) return undefined;
      throw err;
    }
  }

  /**
   * taintOutOfService — adds `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute` to a fresh read of the node,
   * guarded by its resourceVersion (a conflict is answered, not retried here), `timeAdded` the caller's clock time.
   * Already there: `added: false`.
   */
  async taintOutOfService(name: string, uid: string, now: Date): Promise<TaintResult> {
    const node = await this.node(name);
    if (!node || node.metadata?.uid !== uid) return { ok: false, notFound: true, conflict: false, message: `node ${name} (${uid}) not found` };
    const taints = node.spec?.taints ?? [];
    if (taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key && t.effect === OUT_OF_SERVICE_TAINT.effect)) return { ok: true, added: false };
    try {
      await bounded(
        `tainting ${name}`,
        this.core.patchNode(
          {
            name,
            fieldManager: NODES_MANAGER_FIELD_MANAGER,
            body: {
              metadata: { resourceVersion: node.metadata?.resourceVersion },
              spec: { taints: [...taints, { ...OUT_OF_SERVICE_TAINT, timeAdded: now }] },
            },
          },
          MERGE,
        ),
      );
      return { ok: true, added: true };
    } catch (err) {
      const code = kubeErrorCode(err);
      return { ok: false, notFound: code === 404, conflict: code === 409, message: (err as Error).message };
    }
  }

  /** podsOnNode — name, namespace and uid of every pod still bound to the node. */
  async podsOnNode(node: string): Promise<k8s.V1Pod[]> {
    const list = await bounded(`listing pods on ${node}`, this.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}`, limit: 500 }));
    return list.items;
  }

  /** forceDelete — delete with grace period 0 (the kubelet of a fenced node cannot finish a graceful one). */
  async forceDelete(namespace: string, name: string): Promise<'deleted' | 'gone'> {
    try {
      await bounded(`deleting ${namespace}/${name}`, this.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }));
      return 'deleted';
    } catch (err) {
      if (kubeErrorCode(err) === 404) return 'gone';
      throw err;
    }
  }

  /**
   * summary — the kubelet's `/stats/summary` through `/api/v1/nodes/{name}/proxy/stats/summary`; throws on a failed
   * call (an unreachable kubelet answers 503 through the proxy).
   */
  async summary(node: string, timeoutMs = 5_000): Promise<unknown> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error('no current cluster in the kubeconfig');
    const url = new URL(`${cluster.server}/api/v1/nodes/${encodeURIComponent(node)}/proxy/stats/summary`);
    const init = await this.kc.applyToFetchOptions({});
    const res = await fetch(url, { ...(init as object), method: 'GET', signal: AbortSignal.timeout(timeoutMs) } as never).catch((err: Error) => {
      this.requests?.inc('get', 'nodes/proxy', 'network');
      throw err;
    });
    this.requests?.inc('get', 'nodes/proxy', res.status);
    const text = await res.text();
    if (res.status !== 200) throw new Error(`summary of ${node}: HTTP ${res.status}`);
    return JSON.parse(text) as unknown;
  }
}
