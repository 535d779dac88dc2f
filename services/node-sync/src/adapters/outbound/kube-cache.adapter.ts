import type * as k8s from '@kubernetes/client-node';
import { Informer, informersHealth, Interner, type InformerHealth, type InformerOptions, type JsonLogger, type SyncedInfo } from '@nodes-manager/platform';
import type { Metrics } from '@nodes-manager/platform';
import { projectNode } from '../../domain/project-node.js';
import { projectPod } from '../../domain/project-pod.js';
import { livePodOf, type LiveNode, type LivePod } from '../../domain/plan-sync.js';
import { copyRowHash, podCopyRow } from './pod-copy.mapper.js';

export interface KubeCacheOptions {
  pageSize: number;
  /** The periodic reconcile: every this many ms the cache is replayed (no request) and compared with the rows. */
  resyncMs: number;
  /** Request bounds, staleness and WatchList (KUBE_REQUEST_TIMEOUT_SECONDS, KUBE_API_STALE_SECONDS, KUBE_WATCH_LIST). */
  watch?: Pick<InformerOptions<unknown>, 'requestTimeoutMs' | 'staleAfterMs' | 'watchList'>;
  logger?: JsonLogger;
  metrics?: { metrics: Metrics; service: string };
}

/** toLiveNode — the informer's projection of a Node: its lean row (pods are aggregated at sync time). */
export const toLiveNode = (raw: any): LiveNode => ({
  row: projectNode(raw as k8s.V1Node),
  resourceVersion: raw?.metadata?.resourceVersion ?? null,
});

/**
 * toLivePod — the informer's projection of a Pod: its node, requests and phase for the node's sums, and its row as
 * the COPY line the repository writes, with the line's hash (computed once per version). Nothing else is kept.
 */
export function toLivePod(raw: any, intern: Interner = new Interner()): LivePod {
  const row = projectPod(raw as k8s.V1Pod);
  const line = podCopyRow(row);
  const live = livePodOf(row, line, copyRowHash(line), raw?.metadata?.resourceVersion ?? null);
  const r = live.requests;
  // Many pods share a node and a request shape: one copy of each.
  return {
    ...live,
    nodeName: live.nodeName === null ? null : intern.string(live.nodeName),
    requests: intern.shared(`${r.cpuMilli}/${r.memoryBytes}/${r.gpu}`, () => r),
  };
}

/**
 * KubeCache — the node and pod informers of node-sync. Pods are keyed by uid (the primary key of `nodes.pods`), so a
 * pod deleted and re-created under the same name is a removal and an addition.
 */
export class KubeCache {
  readonly nodes: Informer<LiveNode>;
  readonly pods: Informer<LivePod>;

  constructor(kc: k8s.KubeConfig, opts: KubeCacheOptions) {
    const common = { kc, pageSize: opts.pageSize, resyncMs: opts.resyncMs, ...opts.watch, ...(opts.logger ? { logger: opts.logger } : {}), ...(opts.metrics ? { metrics: opts.metrics } : {}) };
    const intern = new Interner();
    this.nodes = new Informer<LiveNode>({ ...common, path: '/api/v1/nodes', project: toLiveNode, versionOf: (n) => n.resourceVersion ?? undefined, name: 'nodes' });
    this.pods = new Informer<LivePod>({
      ...common,
      path: '/api/v1/pods',
      project: (raw) => toLivePod(raw, intern),
      versionOf: (p) => p.resourceVersion ?? undefined,
      key: (o: any) => String(o?.metadata?.uid ?? `${o?.metadata?.namespace}/${o?.metadata?.name}`),
      name: 'pods',
    });
  }

  start(): void {
    this.nodes.start();
    this.pods.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.nodes.stop(), this.pods.stop()]);
  }

  get synced(): boolean {
    return this.nodes.synced && this.pods.synced;
  }

  async waitForSync(timeoutMs?: number): Promise<void> {
    await Promise.all([this.nodes.waitForSync(timeoutMs), this.pods.waitForSync(timeoutMs)]);
  }

  /** health — both informers synced and the API server answering (see Informer.health). */
  health(): InformerHealth {
    return informersHealth([this.nodes, this.pods]);
  }

  /** onChange — any add, update or delete of a node or pod from the watch or a relist (not the resync's replay). */
  onChange(fn: () => void): void {
    for (const inf of [this.nodes, this.pods] as Informer<unknown>[]) {
      inf.on('add', fn);
      inf.on('update', (obj, old) => {
        if (obj !== old) fn();
      });
      inf.on('delete', fn);
    }
  }

  /** onResync — after each periodic resync of the node informer (the reconcile tick; no request made). */
  onResync(fn: () => void): void {
    this.nodes.on('resync', fn);
  }

  /** onListed — after every complete (re)list of either collection. */
  onListed(fn: (what: 'nodes' | 'pods', info: SyncedInfo) => void): void {
    this.nodes.on('synced', (i) => fn('nodes', i));
    this.pods.on('synced', (i) => fn('pods', i));
  }
}
