import { parseProviderId } from '@nodes-manager/kube';
import type { KubeApi } from '../kube/api/index.js';
import { byId, type KubeObject } from '../kube/resources.js';
import type { Entry } from '../kube/store.js';

const NODES = byId('/nodes');
const PODS = byId('/pods');
const PDBS = byId('policy/poddisruptionbudgets');
const NODEPOOLS = byId('karpenter.sh/nodepools');
const NODECLAIMS = byId('karpenter.sh/nodeclaims');

/** PassView — what one pass reads of Nodes and pods. */
export interface PassView {
  readonly nodes: readonly KubeObject[];
  readonly nodeByName: ReadonlyMap<string, KubeObject>;
  readonly byNode: ReadonlyMap<string, KubeObject[]>;
}

/**
 * SimKarpenterReads — how the simulator's Karpenter (sim-karpenter.ts) reads the API server in process: straight
 * from the store, each object parsed once per resourceVersion and shared read-only between passes.
 */
export abstract class SimKarpenterReads {
  private readonly cache = new Map<string, { rv: number; obj: KubeObject }>();

  constructor(protected readonly api: KubeApi) {}

  protected pools(): KubeObject[] {
    return this.api.served(NODEPOOLS) ? this.api.list(NODEPOOLS, undefined, {}).items.map((e) => JSON.parse(e.json) as KubeObject) : [];
  }

  protected claims(): KubeObject[] {
    if (!this.api.served(NODECLAIMS)) return [];
    return [...this.api.store.entries(NODECLAIMS)].sort((a, b) => (a.name < b.name ? -1 : 1)).map((e) => this.parsed('nodeclaim', e));
  }

  protected claim(name: string): KubeObject | undefined {
    return this.api.store.getObject(NODECLAIMS, '', name);
  }

  protected nodeOf(claim: KubeObject): KubeObject | undefined {
    const name = claim.status?.nodeName as string | undefined;
    if (name) return this.api.store.getObject(NODES, '', name);
    const id = parseProviderId(claim.status?.providerID)?.instanceId;
    if (!id) return undefined;
    for (const e of this.api.store.entries(NODES)) {
      const n = this.parsed('node', e);
      if (parseProviderId(n.spec?.providerID)?.instanceId === id) return n;
    }
    return undefined;
  }

  protected podsOn(node: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const e of this.api.store.entries(PODS)) if (e.fields['spec.nodeName'] === node) out.push(this.parsed('pod', e));
    return out;
  }

  /**
   * snapshot — every Node and every bound pod by node (a pass's reads; its own writes are tracked by the caller).
   * Objects are parsed once per resourceVersion and shared read-only across passes: at thousands of pods, parsing
   * them all on every pass was most of a pass's time.
   */
  protected snapshot(): PassView {
    const nodes = [...this.api.store.entries(NODES)].map((e) => this.parsed('node', e));
    const byNode = new Map<string, KubeObject[]>();
    const seen = new Set<string>();
    for (const e of this.api.store.entries(PODS)) {
      seen.add(`pod|${e.ns}/${e.name}`);
      const node = e.fields['spec.nodeName'];
      if (!node) continue;
      const list = byNode.get(node) ?? [];
      list.push(this.parsed('pod', e));
      byNode.set(node, list);
    }
    for (const k of this.cache.keys()) if (k.startsWith('pod|') && !seen.has(k)) this.cache.delete(k);
    return { nodes, nodeByName: new Map(nodes.map((n) => [n.metadata.name as string, n])), byNode };
  }

  protected parsed(kind: string, e: Entry): KubeObject {
    const key = `${kind}|${e.ns}/${e.name}`;
    const hit = this.cache.get(key);
    if (hit && hit.rv === e.rv) return hit.obj;
    const obj = JSON.parse(e.json) as KubeObject;
    this.cache.set(key, { rv: e.rv, obj });
    return obj;
  }

  protected pdbsOf(pod: KubeObject, cache: Map<string, KubeObject[]>): KubeObject[] {
    const labels = (pod.metadata.labels ?? {}) as Record<string, string>;
    const ns = pod.metadata.namespace as string;
    if (!cache.has(ns)) cache.set(ns, this.api.list(PDBS, ns, {}).items.map((e) => JSON.parse(e.json) as KubeObject));
    return cache.get(ns)!.filter((b) => {
      const match = (b.spec?.selector?.matchLabels ?? {}) as Record<string, string>;
      return Object.keys(match).length > 0 && Object.entries(match).every(([k, v]) => labels[k] === v);
    });
  }
}
