import * as k8s from '@kubernetes/client-node';
import { Informer, informersHealth, Interner, kubeErrorCode, kubeRequestCounter, makeCountedApiClient, type InformerHealth, type InformerOptions, type JsonLogger } from '@nodes-manager/platform';
import type { Metrics } from '@nodes-manager/platform';
import type { PdbInfo, ScoringNode, ScoringPod } from '@nodes-manager/scoring';
import { withRequested, withVolumeZones, type CachedPod, type ClusterSnapshot, type VolumeIndex } from '../../domain/cluster.js';
import { projectCachedPod, projectClaim, projectNode, projectPdb, projectVolume, type ClaimBinding } from './kube-projection.mapper.js';

/** ClusterCache — the service's own view of nodes, pods, PDBs and the pods' volumes (port; the informer-backed one below). */
export interface ClusterCache {
  start(): void;
  stop(): Promise<void>;
  /** True once nodes, pods, PDBs, claims and volumes have each been listed completely: never decide on a partial view. */
  readonly synced: boolean;
  /** Synced and the API server answering (false while it has not for KUBE_API_STALE_SECONDS). */
  health(): InformerHealth;
  waitForSync(timeoutMs?: number): Promise<void>;
  snapshot(): ClusterSnapshot;
  /** freshNode — the node and its pods read from the API server now (not the cache), for the re-check before acting. */
  freshNode(name: string): Promise<{ node?: ScoringNode; pods: ScoringPod[] }>;
  /** freshPdbs — every PodDisruptionBudget read from the API server now, for the budgets of an execution. */
  freshPdbs(): Promise<PdbInfo[]>;
}

/**
 * InformerClusterCache — platform informers for nodes, pods, PDBs, PersistentVolumeClaims and PersistentVolumes
 * (paged LIST once, then WATCH; projected at once; no periodic relist). `snapshot()` sums each node's
 * requests from the cached pods and gives each pod the zones of the volumes its claims are bound to.
 */
export class InformerClusterCache implements ClusterCache {
  private readonly nodes: Informer<ScoringNode>;
  private readonly pods: Informer<CachedPod>;
  private readonly pdbs: Informer<PdbInfo>;
  private readonly claims: Informer<ClaimBinding>;
  private readonly volumes: Informer<string[]>;
  private readonly volumeIndex: VolumeIndex;
  private readonly core: k8s.CoreV1Api;
  private readonly policy: k8s.PolicyV1Api;

  constructor(
    kc: k8s.KubeConfig,
    opts: { watch?: Pick<InformerOptions<unknown>, 'requestTimeoutMs' | 'staleAfterMs' | 'watchList'>; logger?: JsonLogger; metrics?: { metrics: Metrics; service: string } },
  ) {
    const intern = new Interner();
    const common = { kc, ...opts.watch, ...(opts.logger ? { logger: opts.logger } : {}), ...(opts.metrics ? { metrics: opts.metrics } : {}) };
    this.nodes = new Informer({ ...common, path: '/api/v1/nodes', project: (raw) => projectNode(raw, intern), name: 'scheduler-scoring/nodes' });
    this.pods = new Informer({ ...common, path: '/api/v1/pods', project: (raw) => projectCachedPod(raw, intern), name: 'scheduler-scoring/pods', pageSize: 2000 });
    this.pdbs = new Informer({ ...common, path: '/apis/policy/v1/poddisruptionbudgets', project: projectPdb, name: 'scheduler-scoring/pdbs' });
    this.claims = new Informer({ ...common, path: '/api/v1/persistentvolumeclaims', project: projectClaim, name: 'scheduler-scoring/pvcs' });
    this.volumes = new Informer({ ...common, path: '/api/v1/persistentvolumes', project: projectVolume, name: 'scheduler-scoring/pvs' });
    this.volumeIndex = {
      claimVolume: (key) => this.claims.get(key)?.volumeName,
      volumeZones: (name) => this.volumes.get(name),
    };
    const requests = opts.metrics ? kubeRequestCounter(opts.metrics.metrics, opts.metrics.service) : undefined;
    this.core = makeCountedApiClient(kc, k8s.CoreV1Api, requests);
    this.policy = makeCountedApiClient(kc, k8s.PolicyV1Api, requests);
  }

  start(): void {
    this.nodes.start();
    this.pods.start();
    this.pdbs.start();
    this.claims.start();
    this.volumes.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.nodes.stop(), this.pods.stop(), this.pdbs.stop(), this.claims.stop(), this.volumes.stop()]);
  }

  get synced(): boolean {
    return this.nodes.synced && this.pods.synced && this.pdbs.synced && this.claims.synced && this.volumes.synced;
  }

  health(): InformerHealth {
    return informersHealth([this.nodes, this.pods, this.pdbs, this.claims, this.volumes]);
  }

  async waitForSync(timeoutMs = 60_000): Promise<void> {
    await Promise.all([
      this.nodes.waitForSync(timeoutMs),
      this.pods.waitForSync(timeoutMs),
      this.pdbs.waitForSync(timeoutMs),
      this.claims.waitForSync(timeoutMs),
      this.volumes.waitForSync(timeoutMs),
    ]);
  }

  snapshot(): ClusterSnapshot {
    const pods = this.pods.list();
    const nodes = withRequested(this.nodes.list(), pods);
    return { nodes, pods: withVolumeZones(pods, nodes, this.volumeIndex), pdbs: this.pdbs.list() };
  }

  async freshNode(name: string): Promise<{ node?: ScoringNode; pods: ScoringPod[] }> {
    let raw: k8s.V1Node;
    try {
      raw = await this.core.readNode({ name });
    } catch (err) {
      if (kubeErrorCode(err) === 404) return { pods: [] };
      throw err;
    }
    const list = await this.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${name}` });
    const projected = list.items.map((p) => projectCachedPod(p));
    const node = withRequested([projectNode(raw)], projected)[0]!;
    // The volumes' zones come from the cache: a bound volume does not change zone.
    return { node, pods: withVolumeZones(projected, [node], this.volumeIndex) };
  }

  async freshPdbs(): Promise<PdbInfo[]> {
    const list = await this.policy.listPodDisruptionBudgetForAllNamespaces();
    return list.items.map(projectPdb);
  }
}
