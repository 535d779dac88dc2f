import { ZERO_RESOURCES, type ResourceAmounts } from '@nodes-manager/kube';
import { contentHash, stableJson } from './diff-node.js';
import type { NodeResources, NodeRow, NodeState, NodeTaintRow } from './project-node.js';
import type { PodRow } from './project-pod.js';

/** LiveNode — a node as the informer cache holds it: its row without pods, and its resourceVersion. */
export interface LiveNode {
  readonly row: NodeRow;
  readonly resourceVersion: string | null;
}

/**
 * LivePod — a pod as the informer cache holds it: what its node's row adds up (node, requests, whether it holds
 * them), the content hash of its row (computed once per version) and the row itself as the store writes it — an
 * encoding that is the repository's and opaque here, so the cache keeps one string per pod, not an object graph.
 */
export interface LivePod {
  readonly uid: string;
  readonly nodeName: string | null;
  /** Holds its node's resources: not Succeeded or Failed. */
  readonly active: boolean;
  readonly requests: ResourceAmounts;
  readonly hash: string;
  readonly row: string;
  readonly resourceVersion: string | null;
}

/** livePodOf — the cached form of a pod's row, given the row's encoding for the store and its hash. */
export function livePodOf(row: PodRow, encoded: string, hash: string, resourceVersion: string | null = null): LivePod {
  return {
    uid: row.uid,
    nodeName: row.nodeName,
    active: row.phase !== 'Succeeded' && row.phase !== 'Failed',
    requests: row.requests,
    hash,
    row: encoded,
    resourceVersion,
  };
}

/** StoredNode — what `nodes.nodes` holds of a node: enough to tell changes and to describe them. */
export interface StoredNode {
  readonly hash: string;
  readonly deleted: boolean;
  readonly uid: string;
  readonly instanceId: string | null;
  readonly ready: boolean;
  readonly unschedulable: boolean;
  readonly state: NodeState;
  readonly taints: readonly NodeTaintRow[];
  readonly allocatable: NodeResources;
}

/** NodeHash — a node row's content hash, with the pod sums it was taken over. */
export interface NodeHash {
  readonly requested: ResourceAmounts;
  readonly podCount: number;
  readonly hash: string;
}

/**
 * NodeHashes — each cached node's last row hash: a cached {@link LiveNode} never changes (the informer replaces it on a
 * new version), so while its pods' sums are the same its row's hash is too, and a cycle need not take it again.
 */
export type NodeHashes = WeakMap<LiveNode, NodeHash>;

export interface SyncSnapshot {
  readonly nodes: Iterable<LiveNode>;
  readonly pods: Iterable<LivePod>;
  readonly storedNodes: ReadonlyMap<string, StoredNode>;
  /** uid → content hash of the pods stored and not marked deleted. */
  readonly storedPods: ReadonlyMap<string, string>;
  /** The hashes the last cycles took (kept by the caller between cycles); absent, every row's is taken. */
  readonly nodeHashes?: NodeHashes;
}

/** NodeWrite — a node row to upsert: the full row (pods aggregated), its hash and resourceVersion. */
export interface NodeWrite {
  readonly row: NodeRow;
  readonly hash: string;
  readonly resourceVersion: string | null;
}

export type NodeChangeField = 'ready' | 'unschedulable' | 'state' | 'taints' | 'allocatable';

/** Operator-facing summary of a node (the `data` of `node.added`). */
export interface NodeSummary {
  name: string;
  uid: string;
  instanceId: string | null;
  instanceType: string | null;
  zone: string | null;
  capacityType: string | null;
  nodePool: string | null;
  state: NodeState;
  ready: boolean;
  unschedulable: boolean;
}

export interface NodeOperatorView {
  ready: boolean;
  unschedulable: boolean;
  state: NodeState;
  taints: readonly NodeTaintRow[];
  allocatable: NodeResources;
}

export type NodeEventPlan =
  | { type: 'node.added'; subject: string; data: NodeSummary }
  | { type: 'node.removed'; subject: string; data: { name: string; uid: string; instanceId: string | null; lastState: NodeState } }
  | {
      type: 'node.changed';
      subject: string;
      data: { name: string; changed: NodeChangeField[]; before: NodeOperatorView; after: NodeOperatorView };
    };

/** SyncPlan — the writes of one cycle (only rows whose content changed) and the events they make. */
export interface SyncPlan {
  readonly nodeWrites: NodeWrite[];
  readonly nodeRemovals: string[];
  readonly podWrites: LivePod[];
  readonly podRemovals: string[];
  readonly events: NodeEventPlan[];
  readonly nodesByState: Record<NodeState, number>;
  readonly liveNodes: number;
  readonly livePods: number;
}

/** workloadClassOf — The workload classes (docs/scoring.md#ranking-nodes-for-a-pod) on a pod row: gpu, stateful, batch, latency_sensitive, else stateless. */
export function workloadClassOf(pod: PodRow): string {
  if (pod.gpu > 0) return 'gpu';
  if (pod.ownerKind === 'StatefulSet' || pod.workloadKind === 'StatefulSet' || pod.hasPvc) return 'stateful';
  if (pod.ownerKind === 'Job' || pod.ownerKind === 'CronJob') return 'batch';
  if (pod.qos === 'Guaranteed') return 'latency_sensitive';
  return 'stateless';
}

const operatorView = (n: { ready: boolean; unschedulable: boolean; state: NodeState; taints: readonly NodeTaintRow[]; allocatable: NodeResources }): NodeOperatorView => ({
  ready: n.ready,
  unschedulable: n.unschedulable,
  state: n.state,
  taints: n.taints,
  allocatable: n.allocatable,
});

const CHANGE_FIELDS: readonly NodeChangeField[] = ['ready', 'unschedulable', 'state', 'taints', 'allocatable'];

/** operatorChanges — the operator-relevant fields (Ready, cordon, state, taints, allocatable) that differ. */
export function operatorChanges(before: NodeOperatorView, after: NodeOperatorView): NodeChangeField[] {
  return CHANGE_FIELDS.filter((f) => stableJson(before[f]) !== stableJson(after[f]));
}

export const summaryOf = (row: NodeRow): NodeSummary => ({
  name: row.name,
  uid: row.uid,
  instanceId: row.instanceId,
  instanceType: row.instanceType,
  zone: row.zone,
  capacityType: row.capacityType,
  nodePool: row.nodePool,
  state: row.state,
  ready: row.ready,
  unschedulable: row.unschedulable,
});

/** storedOf — what the store will hold of a node once `w` is written. */
export const storedOf = (w: NodeWrite): StoredNode => ({
  hash: w.hash,
  deleted: false,
  uid: w.row.uid,
  instanceId: w.row.instanceId,
  ready: w.row.ready,
  unschedulable: w.row.unschedulable,
  state: w.row.state,
  taints: w.row.taints,
  allocatable: w.row.allocatable,
});

/** nodeHash — the content hash of `row` (`live`'s row with its pods' sums), the one taken last time if they are the same. */
function nodeHash(live: LiveNode, row: NodeRow, hashes: NodeHashes | undefined): string {
  const last = hashes?.get(live);
  const r = row.requested;
  if (last && last.podCount === row.podCount && last.requested.cpuMilli === r.cpuMilli && last.requested.memoryBytes === r.memoryBytes && last.requested.gpu === r.gpu) {
    return last.hash;
  }
  const hash = contentHash(row);
  hashes?.set(live, { requested: r, podCount: row.podCount, hash });
  return hash;
}

/**
 * planSync — compares the cluster (informer cache) with the store and returns only what changed: node rows whose
 * content hash differs (pods aggregated into requested/podCount first), nodes gone from the API (marked deleted,
 * kept), pod rows whose hash differs, pods gone. Events: `node.added` for a node new to the store (or back after
 * being removed), `node.removed` for a node gone, `node.changed` only when an operator-relevant field changed.
 * A cluster equal to the store gives an empty plan.
 */
export function planSync(s: SyncSnapshot): SyncPlan {
  // Per node only the sums: Σ requests and the count of the pods that hold resources, added up in place.
  const sums = new Map<string, { cpuMilli: number; memoryBytes: number; gpu: number; podCount: number }>();
  const podWrites: LivePod[] = [];
  // Against an empty store (a first cycle: a million pods) nothing can be removed: no set of the live uids.
  const livePodUids = s.storedPods.size > 0 ? new Set<string>() : undefined;
  let livePods = 0;
  for (const pod of s.pods) {
    livePods++;
    livePodUids?.add(pod.uid);
    if (pod.nodeName && pod.active) {
      const r = pod.requests;
      const sum = sums.get(pod.nodeName);
      if (sum) {
        sum.cpuMilli += r.cpuMilli;
        sum.memoryBytes += r.memoryBytes;
        sum.gpu += r.gpu;
        sum.podCount++;
      } else sums.set(pod.nodeName, { cpuMilli: r.cpuMilli, memoryBytes: r.memoryBytes, gpu: r.gpu, podCount: 1 });
    }
    if (s.storedPods.get(pod.uid) !== pod.hash) podWrites.push(pod);
  }
  const podRemovals: string[] = [];
  if (livePodUids) for (const uid of s.storedPods.keys()) if (!livePodUids.has(uid)) podRemovals.push(uid);

  const nodeWrites: NodeWrite[] = [];
  const events: NodeEventPlan[] = [];
  const liveNames = new Set<string>();
  const nodesByState: Record<NodeState, number> = { Ready: 0, NotReady: 0, Cordoned: 0, Draining: 0, Deleted: 0 };
  for (const live of s.nodes) {
    const sum = sums.get(live.row.name);
    const requested: ResourceAmounts = sum ? { cpuMilli: sum.cpuMilli, memoryBytes: sum.memoryBytes, gpu: sum.gpu } : ZERO_RESOURCES;
    const row: NodeRow = { ...live.row, requested, podCount: sum?.podCount ?? 0 };
    liveNames.add(row.name);
    nodesByState[row.state]++;
    const hash = nodeHash(live, row, s.nodeHashes);
    const stored = s.storedNodes.get(row.name);
    if (stored && !stored.deleted && stored.hash === hash) continue;
    nodeWrites.push({ row, hash, resourceVersion: live.resourceVersion });
    if (!stored || stored.deleted || stored.uid !== row.uid) {
      // A node re-created under the same name is a new object: the old one was removed (even if no watch said so).
      if (stored && !stored.deleted) {
        events.push({ type: 'node.removed', subject: row.name, data: { name: row.name, uid: stored.uid, instanceId: stored.instanceId, lastState: stored.state } });
      }
      events.push({ type: 'node.added', subject: row.name, data: summaryOf(row) });
      continue;
    }
    const before = operatorView(stored);
    const after = operatorView(row);
    const changed = operatorChanges(before, after);
    if (changed.length > 0) events.push({ type: 'node.changed', subject: row.name, data: { name: row.name, changed, before, after } });
  }
  const nodeRemovals: string[] = [];
  for (const [name, stored] of s.storedNodes) {
    if (stored.deleted || liveNames.has(name)) continue;
    nodeRemovals.push(name);
    events.push({ type: 'node.removed', subject: name, data: { name, uid: stored.uid, instanceId: stored.instanceId, lastState: stored.state } });
  }
  return { nodeWrites, nodeRemovals, podWrites, podRemovals, events, nodesByState, liveNodes: liveNames.size, livePods };
}
