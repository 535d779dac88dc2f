import * as k8s from '@kubernetes/client-node';
import { Informer, kubeErrorCode, type JsonLogger } from '@nodes-manager/platform';
import type { Metrics } from '@nodes-manager/platform';
import type { PdbInfo, ScoringNode, ScoringPod } from '@nodes-manager/scoring';
import { withRequested, withVolumeZones, type ClusterSnapshot } from '../../domain/cluster.js';
import { projectNode, projectPdb, projectPod } from './kube-projection.js';

/** ClusterCache — the service's own view of nodes, pods and PDBs (port; the informer-backed one below). */
export interface ClusterCache {
  start(): void;
  stop(): Promise<void>;
  /** True once nodes, pods and PDBs have each been listed completely: never decide on a partial view. */
  readonly synced: boolean;
  waitForSync(timeoutMs?: number): Promise<void>;
  snapshot(): ClusterSnapshot;
  /** freshNode — the node and its pods read from the API server now (not the cache), for the re-check before acting. */
  freshNode(name: string): Promise<{ node?: ScoringNode; pods: ScoringPod[] }>;
  /** freshPdbs — every PodDisruptionBudget read from the API server now, for the budgets of an execution. */
  freshPdbs(): Promise<PdbInfo[]>;
}

/**
 * InformerClusterCache — three platform informers (paged LIST + WATCH, projected at once, resynced every
 * SCAN_INTERVAL_SECONDS). `snapshot()` sums each node's requests from the cached pods.
 */
export class InformerClusterCache implements ClusterCache {
  private readonly nodes: Informer<ScoringNode>;
  private readonly pods: Informer<ScoringPod>;
  private readonly pdbs: Informer<PdbInfo>;
  private readonly core: k8s.CoreV1Api;
  private readonly policy: k8s.PolicyV1Api;

  constructor(kc: k8s.KubeConfig, opts: { resyncMs: number; logger?: JsonLogger; metrics?: { metrics: Metrics; service: string } }) {
    const common = { kc, resyncMs: opts.resyncMs, ...(opts.logger ? { logger: opts.logger } : {}), ...(opts.metrics ? { metrics: opts.metrics } : {}) };
    this.nodes = new Informer({ ...common, path: '/api/v1/nodes', project: projectNode, name: 'scheduler-scoring/nodes' });
    this.pods = new Informer({ ...common, path: '/api/v1/pods', project: projectPod, name: 'scheduler-scoring/pods', pageSize: 2000 });
    this.pdbs = new Informer({ ...common, path: '/apis/policy/v1/poddisruptionbudgets', project: projectPdb, name: 'scheduler-scoring/pdbs' });
    this.core = kc.makeApiClient(k8s.CoreV1Api);
    this.policy = kc.makeApiClient(k8s.PolicyV1Api);
  }

  start(): void {
    this.nodes.start();
    this.pods.start();
    this.pdbs.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.nodes.stop(), this.pods.stop(), this.pdbs.stop()]);
  }

  get synced(): boolean {
    return this.nodes.synced && this.pods.synced && this.pdbs.synced;
  }

  async waitForSync(timeoutMs = 60_000): Promise<void> {
    await Promise.all([this.nodes.waitForSync(timeoutMs), this.pods.waitForSync(timeoutMs), this.pdbs.waitForSync(timeoutMs)]);
  }

  snapshot(): ClusterSnapshot {
    const pods = this.pods.list();
    const nodes = withRequested(this.nodes.list(), pods);
    return { nodes, pods: withVolumeZones(pods, nodes), pdbs: this.pdbs.list() };
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
    const projected = list.items.map(projectPod);
    const node = withRequested([projectNode(raw)], projected)[0]!;
    return { node, pods: withVolumeZones(projected, [node]) };
  }

  async freshPdbs(): Promise<PdbInfo[]> {
    const list = await this.policy.listPodDisruptionBudgetForAllNamespaces();
    return list.items.map(projectPdb);
  }
}
