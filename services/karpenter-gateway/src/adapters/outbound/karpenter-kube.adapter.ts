import * as k8s from '@kubernetes/client-node';
import { CodedError, FIELD_MANAGER, kubeErrorCode, kubeErrorReason, makeCountedApiClient, type Clock, type JsonLogger } from '@nodes-manager/platform';
import { KARPENTER_GROUP, KARPENTER_VERSION, NODEPOOL_LABEL, type NodeClaim, type NodePool } from '../../domain/nodepool.types.js';

export const KARPENTER_KUBE = Symbol('KARPENTER_KUBE');
const NODEPOOLS = { group: KARPENTER_GROUP, version: KARPENTER_VERSION, plural: 'nodepools' } as const;
const NODECLAIMS = { group: KARPENTER_GROUP, version: KARPENTER_VERSION, plural: 'nodeclaims' } as const;
const MERGE_PATCH = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** KubeFailure — the API server's answer to a call, kept as status + reason so the service can decide. */
export class KubeFailure extends Error {
  constructor(
    readonly status: number | undefined,
    readonly reason: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'KubeFailure';
  }
}

function failure(err: unknown, what: string): KubeFailure {
  const status = kubeErrorCode(err);
  const reason = kubeErrorReason(err);
  let detail = (err as Error)?.message ?? String(err);
  try {
    const body = (err as { body?: unknown }).body;
    const parsed = typeof body === 'string' ? JSON.parse(body) : body;
    if (typeof parsed?.message === 'string') detail = parsed.message;
  } catch {
    /* keep the client's message */
  }
  return new KubeFailure(status, reason, `${what}: ${detail}`);
}

/**
 * KarpenterKube — Karpenter's `karpenter.sh/v1` NodePools and NodeClaims through the client's generic
 * CustomObjectsApi, plus CRD detection by discovery (`/apis/karpenter.sh/v1`) cached for `cacheMs` so that
 * installing or removing Karpenter is noticed without a restart. Failures are {@link KubeFailure}s.
 */
export class KarpenterKube {
  private readonly custom: k8s.CustomObjectsApi;
  private readonly core: k8s.CoreV1Api;
  private cached?: { at: number; installed: boolean };
  private inflight?: Promise<boolean>;
  private lastLogged?: boolean;

  constructor(
    kc: k8s.KubeConfig,
    private readonly clock: Clock,
    private readonly cacheMs: number,
    private readonly logger: JsonLogger,
  ) {
    // Through the platform's wrapper: with tracing on, a traced request's calls are spans (no counter here).
    this.custom = makeCountedApiClient(kc, k8s.CustomObjectsApi, undefined);
    this.core = makeCountedApiClient(kc, k8s.CoreV1Api, undefined);
  }

  /**
   * installed — whether the API server serves both `nodepools` and `nodeclaims` in `karpenter.sh/v1`. Cached for
   * the discovery TTL; concurrent callers share one probe. An unreachable API server is an UPSTREAM_ERROR, never
   * "absent", and is not cached. A change in the answer is logged once (warn when Karpenter goes missing).
   */
  async installed(opts: { fresh?: boolean } = {}): Promise<boolean> {
    const now = this.clock.now().getTime();
    if (!opts.fresh && this.cached && now - this.cached.at < this.cacheMs) return this.cached.installed;
    this.inflight ??= this.probe().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async probe(): Promise<boolean> {
    let installed: boolean;
    try {
      const list = await this.custom.getAPIResources({ group: KARPENTER_GROUP, version: KARPENTER_VERSION });
      const names = new Set((list.resources ?? []).map((r) => r.name));
      installed = names.has('nodepools') && names.has('nodeclaims');
    } catch (err) {
      if (kubeErrorCode(err) === 404) installed = false;
      else throw new CodedError('UPSTREAM_ERROR', `Kubernetes API discovery of ${KARPENTER_GROUP}/${KARPENTER_VERSION} failed: ${failure(err, 'discovery').message}`);
    }
    this.cached = { at: this.clock.now().getTime(), installed };
    if (this.lastLogged !== installed) {
      this.lastLogged = installed;
      const fields = { api: `${KARPENTER_GROUP}/${KARPENTER_VERSION}`, detectedAt: new Date(this.cached.at).toISOString() };
      if (installed) this.logger.info('Karpenter detected: NodePool endpoints are served', fields);
      else this.logger.warn('Karpenter is not installed: NodePool lists answer empty, reads 404, writes 409 (docs/karpenter.md)', fields);
    }
    return installed;
  }

  async listNodePools(): Promise<NodePool[]> {
    try {
      const list = (await this.custom.listClusterCustomObject({ ...NODEPOOLS })) as { items?: NodePool[] };
      return list.items ?? [];
    } catch (err) {
      throw failure(err, 'list nodepools');
    }
  }

  async getNodePool(name: string): Promise<NodePool | undefined> {
    try {
      return (await this.custom.getClusterCustomObject({ ...NODEPOOLS, name })) as NodePool;
    } catch (err) {
      if (kubeErrorCode(err) === 404) return undefined;
      throw failure(err, `get nodepool ${name}`);
    }
  }

  async createNodePool(body: NodePool): Promise<NodePool> {
    try {
      return (await this.custom.createClusterCustomObject({ ...NODEPOOLS, body, fieldManager: FIELD_MANAGER })) as NodePool;
    } catch (err) {
      throw failure(err, `create nodepool ${body.metadata.name}`);
    }
  }

  /** mergePatchNodePool — a JSON merge patch; a `metadata.resourceVersion` in the body makes it conditional (409 when stale). */
  async mergePatchNodePool(name: string, body: object): Promise<NodePool> {
    try {
      return (await this.custom.patchClusterCustomObject({ ...NODEPOOLS, name, body, fieldManager: FIELD_MANAGER }, MERGE_PATCH)) as NodePool;
    } catch (err) {
      throw failure(err, `patch nodepool ${name}`);
    }
  }

  async deleteNodePool(name: string, uid?: string): Promise<void> {
    try {
      await this.custom.deleteClusterCustomObject({ ...NODEPOOLS, name, ...(uid ? { body: { preconditions: { uid } } } : {}) });
    } catch (err) {
      throw failure(err, `delete nodepool ${name}`);
    }
  }

  async listNodeClaims(pool: string): Promise<NodeClaim[]> {
    try {
      const list = (await this.custom.listClusterCustomObject({ ...NODECLAIMS, labelSelector: `${NODEPOOL_LABEL}=${pool}` })) as { items?: NodeClaim[] };
      return list.items ?? [];
    } catch (err) {
      throw failure(err, `list nodeclaims of ${pool}`);
    }
  }

  /** deleteNodeClaim — Karpenter's manual disruption: it cordons, drains and terminates the node behind the claim. */
  async deleteNodeClaim(name: string, uid?: string): Promise<void> {
    try {
      await this.custom.deleteClusterCustomObject({ ...NODECLAIMS, name, ...(uid ? { body: { preconditions: { uid } } } : {}) });
    } catch (err) {
      throw failure(err, `delete nodeclaim ${name}`);
    }
  }

  /**
   * podsBlockingDisruption — pods on the node that carry `karpenter.sh/do-not-disrupt: "true"`, read fresh just before
   * a NodeClaim is deleted (a plan may be older than such a pod).
   */
  async podsBlockingDisruption(node: string): Promise<string[]> {
    try {
      const pods = await this.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` });
      return pods.items
        .filter((p) => p.metadata?.annotations?.['karpenter.sh/do-not-disrupt'] === 'true' && !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''))
        .map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`);
    } catch (err) {
      throw failure(err, `list pods of node ${node}`);
    }
  }

  /** nodeAnnotations — the node's annotations, or undefined when the node is gone. */
  async nodeAnnotations(node: string): Promise<Record<string, string> | undefined> {
    try {
      return (await this.core.readNode({ name: node })).metadata?.annotations ?? {};
    } catch (err) {
      if (kubeErrorCode(err) === 404) return undefined;
      throw failure(err, `read node ${node}`);
    }
  }
}
