import { randomUUID } from 'node:crypto';
import type { KubeObject, ResourceDef } from '../resources.js';
import { Store } from '../store.js';
import { type KubeApiOptions, NAMESPACES, k8sTime } from './types.js';

/** ApiState — the store and the timers, watches and pending budget refreshes every layer of KubeApi shares. */
export class ApiState {
  readonly store: Store;
  karpenter: boolean;
  /** Pending pod terminations, each cancelled when the simulator closes. */
  protected readonly timers = new Set<{ cancel(): void }>();
  protected readonly watches = new Map<string, Set<() => void>>();
  protected readonly dirtyPdbNamespaces = new Set<string>();
  protected pdbFlush: NodeJS.Immediate | undefined;

  constructor(readonly opts: KubeApiOptions) {
    this.store = new Store(opts.historySize);
    this.karpenter = opts.karpenter;
    const now = k8sTime(opts.clock());
    this.store.load(
      NAMESPACES,
      ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'nodes-manager'].map((n) => this.namespaceObject(n, now)),
    );
  }

  namespaceObject(name: string, now: string): KubeObject {
    return {
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name, uid: randomUUID(), creationTimestamp: now, labels: { 'kubernetes.io/metadata.name': name } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    };
  }

  served(def: ResourceDef): boolean {
    return !def.karpenter || this.karpenter;
  }

  close(): void {
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    if (this.pdbFlush) clearImmediate(this.pdbFlush);
    for (const set of this.watches.values()) for (const stop of [...set]) stop();
  }
}
