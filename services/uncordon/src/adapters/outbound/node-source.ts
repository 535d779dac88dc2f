import * as k8s from '@kubernetes/client-node';
import type { JsonLogger } from '@nodes-manager/platform';
import type { KubeNodes } from './kube-nodes.adapter.js';

/**
 * NodeSource — the uncordon loop's view of the cluster's nodes: a synced cache plus a change callback. It only
 * says *which* nodes to evaluate; the act itself always follows a fresh GET (DESIGN §4). A port so the loop can
 * move onto the platform's shared informer (`libs/platform/src/kube/informer.ts`) without changing.
 */
export interface NodeSource {
  start(onChange: (name: string) => void): Promise<void>;
  /** True once the first LIST is in: never decide on a partial view. */
  readonly synced: boolean;
  list(): k8s.V1Node[];
  stop(): Promise<void>;
}

/**
 * WatchNodeSource — paged LIST, then a watch from the list's resourceVersion; on a closed watch or a 410 it
 * watches again from the last version seen, or re-lists. `relist()` is also called by each scan tick, so a
 * missed event costs at most one scan interval.
 */
export class WatchNodeSource implements NodeSource {
  private readonly nodes = new Map<string, k8s.V1Node>();
  private abort?: AbortController;
  private stopped = false;
  private resourceVersion = '';
  private onChange: (name: string) => void = () => undefined;
  private retry?: NodeJS.Timeout;
  private watching = false;
  synced = false;

  constructor(
    private readonly kube: KubeNodes,
    private readonly logger: JsonLogger,
    private readonly retryMs = 1000,
  ) {}

  async start(onChange: (name: string) => void): Promise<void> {
    this.onChange = onChange;
    this.stopped = false;
    await this.relist().catch((err) => {
      this.logger.warn('node list failed; retrying', { err: (err as Error).message });
      this.schedule();
    });
  }

  list(): k8s.V1Node[] {
    return [...this.nodes.values()];
  }

  /** relist — replaces the cache from a fresh paged LIST and restarts the watch from its version. */
  async relist(): Promise<void> {
    const { items, resourceVersion } = await this.kube.listNodes();
    const seen = new Set<string>();
    for (const n of items) {
      const name = n.metadata?.name ?? '';
      seen.add(name);
      const old = this.nodes.get(name);
      this.nodes.set(name, n);
      if (old?.metadata?.resourceVersion !== n.metadata?.resourceVersion) this.onChange(name);
    }
    for (const name of [...this.nodes.keys()]) {
      if (!seen.has(name)) {
        this.nodes.delete(name);
        this.onChange(name);
      }
    }
    this.synced = true;
    this.resourceVersion = resourceVersion;
    // Not awaited: a watch's response may start only with its first event or bookmark.
    if (!this.watching) void this.watch();
  }

  private schedule(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.relist().catch(() => this.schedule());
    }, this.retryMs);
    this.retry.unref();
  }

  private async watch(): Promise<void> {
    if (this.stopped || this.watching) return;
    this.watching = true;
    const w = new k8s.Watch(this.kube.kc);
    try {
      this.abort = await w.watch(
        '/api/v1/nodes',
        { resourceVersion: this.resourceVersion, allowWatchBookmarks: true },
        (type: string, obj: k8s.V1Node & { code?: number }) => {
          if (type === 'ERROR') {
            // 410 Gone: our version is too old; LIST again.
            this.resourceVersion = '';
            return;
          }
          if (obj.metadata?.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
          if (type === 'BOOKMARK') return;
          const name = obj.metadata?.name ?? '';
          if (type === 'DELETED') this.nodes.delete(name);
          else this.nodes.set(name, obj);
          this.onChange(name);
        },
        () => {
          this.abort = undefined;
          this.watching = false;
          if (this.stopped) return;
          if (this.resourceVersion) void this.watch().catch(() => this.schedule());
          else this.schedule();
        },
      );
      if (this.stopped) this.abort.abort();
    } catch (err) {
      this.abort = undefined;
      this.watching = false;
      this.logger.debug('node watch failed; re-listing', { err: (err as Error).message });
      this.schedule();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.abort?.abort();
    this.abort = undefined;
  }
}
