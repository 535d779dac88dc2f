import type * as k8s from '@kubernetes/client-node';
import { Informer, Interner, type InformerHealth, type InformerOptions, type JsonLogger } from '@nodes-manager/platform';
import { projectUncordonNode } from './node-projection.mapper.js';
import type { Metrics } from '@nodes-manager/platform';

/** NodeChange — one node added, changed or deleted, as the watch saw it (`old` is the cached object before). */
export interface NodeChange {
  readonly name: string;
  /** The node now; absent when it was deleted. */
  readonly node?: k8s.V1Node;
  /** The node before the change; absent when it was added. */
  readonly old?: k8s.V1Node;
}

/**
 * NodeSource — the uncordon controllers' view of the cluster's nodes: a synced cache plus change listeners. It only
 * says *which* keys to reconcile; an act always follows a fresh GET (docs/auto-uncordon.md).
 */
export interface NodeSource {
  /** onChange — called for every node change once started (the controllers turn changes into keys). */
  onChange(listener: (change: NodeChange) => void): void;
  start(): Promise<void>;
  /** True once the first complete LIST is in: never decide on a partial view. */
  readonly synced: boolean;
  /** waitForSync — resolves once synced; rejects when it is not within the start-up's sync timeout. */
  waitForSync(): Promise<void>;
  /** Synced and the API server answering (false while it has not for KUBE_API_STALE_SECONDS). */
  health(): InformerHealth;
  list(): k8s.V1Node[];
  /** get — one cached node by name. */
  get(name: string): k8s.V1Node | undefined;
  stop(): Promise<void>;
}

/**
 * InformerNodeSource — the platform's informer on `/api/v1/nodes` (WatchList or paged LIST once, then watch; relist
 * only on 410 or a failed watch; the scan tick re-evaluates the cache without a request). Each node is kept as its
 * projection (`projectUncordonNode`: a V1Node with only the fields uncordon reads, JSON times as strings, which
 * `cordonedNodeSnapshot` accepts), never the whole object.
 */
export class InformerNodeSource implements NodeSource {
  private readonly informer: Informer<k8s.V1Node>;

  constructor(
    kc: k8s.KubeConfig,
    private readonly logger: JsonLogger,
    watch: Pick<InformerOptions<unknown>, 'requestTimeoutMs' | 'staleAfterMs' | 'watchList'> = {},
    private readonly syncTimeoutMs = 30_000,
    metrics?: Metrics,
  ) {
    const intern = new Interner(10_000);
    this.informer = new Informer<k8s.V1Node>({
      kc,
      path: '/api/v1/nodes',
      project: (o) => projectUncordonNode(o, intern),
      versionOf: (n) => n.metadata?.resourceVersion,
      ...watch,
      logger,
      name: 'uncordon-nodes',
      ...(metrics ? { metrics: { metrics, service: 'uncordon' } } : {}),
    });
  }

  get synced(): boolean {
    return this.informer.synced;
  }

  onChange(listener: (change: NodeChange) => void): void {
    this.informer.on('add', (node: k8s.V1Node) => listener({ name: node.metadata?.name ?? '', node }));
    this.informer.on('update', (node: k8s.V1Node, old?: k8s.V1Node) => listener({ name: node.metadata?.name ?? '', node, ...(old ? { old } : {}) }));
    this.informer.on('delete', (old: k8s.V1Node) => listener({ name: old.metadata?.name ?? '', old }));
  }

  async start(): Promise<void> {
    this.informer.start();
    // Start-up does not hang on an unreachable API server: cycles simply wait for `synced`.
    await this.informer.waitForSync(this.syncTimeoutMs).catch((err) => this.logger.warn('node cache not synced yet', { err: (err as Error).message }));
  }

  waitForSync(): Promise<void> {
    return this.informer.waitForSync(this.syncTimeoutMs);
  }

  health(): InformerHealth {
    return this.informer.health();
  }

  list(): k8s.V1Node[] {
    return this.informer.list();
  }

  get(name: string): k8s.V1Node | undefined {
    return this.informer.get(name);
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }
}
