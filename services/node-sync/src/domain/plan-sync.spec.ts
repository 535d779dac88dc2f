import { describe, expect, it } from '@jest/globals';
import { aKubeNode, aKubePod, type KubeNodeOptions } from '@nodes-manager/kube/testing';
import { contentHash } from './diff-node.js';
import { projectNode } from './project-node.js';
import { projectPod } from './project-pod.js';
import { livePodOf, planSync, storedOf, type LiveNode, type LivePod, type NodeHashes, type StoredNode } from './plan-sync.js';

const NODE = 'ip-10-0-1-23.ec2.internal';
const aV1Node = (o: KubeNodeOptions = {}) => aKubeNode(NODE, { uid: 'node-uid-1', ...o });
const liveNode = (o: KubeNodeOptions = {}): LiveNode => ({ row: projectNode(aV1Node(o)), resourceVersion: '1' });
const livePod = (uid: string, nodeName = 'ip-10-0-1-23.ec2.internal', cpu = '250m'): LivePod => {
  const pod = aKubePod(`web-${uid}`, nodeName, { uid, namespace: 'shop', app: 'web', cpu, memory: '256Mi' });
  const row = projectPod(pod);
  return livePodOf(row, JSON.stringify(row), contentHash(row));
};

/** storeOf — the store exactly as a previous cycle over these nodes and pods would have left it. */
function storeOf(nodes: LiveNode[], pods: LivePod[]): { storedNodes: Map<string, StoredNode>; storedPods: Map<string, string> } {
  const plan = planSync({ nodes, pods, storedNodes: new Map(), storedPods: new Map() });
  return {
    storedNodes: new Map(plan.nodeWrites.map((w) => [w.row.name, storedOf(w)])),
    storedPods: new Map(pods.map((p) => [p.uid, p.hash])),
  };
}

const pods = [livePod('p1'), livePod('p2')];
const node = liveNode();
const NAME = node.row.name;

describe('planSync', () => {
  it('writes every node and pod of an empty store, and announces each node as added', () => {
    const plan = planSync({ nodes: [node], pods, storedNodes: new Map(), storedPods: new Map() });
    expect(plan.nodeWrites).toHaveLength(1);
    expect(plan.nodeWrites[0]!.row).toMatchObject({ podCount: 2, requested: { cpuMilli: 500, memoryBytes: 512 * 1024 ** 2 } });
    expect(plan.podWrites.map((p) => p.uid)).toEqual(['p1', 'p2']);
    expect(plan.events.map((e) => e.type)).toEqual(['node.added']);
  });

  it('plans nothing when the cluster equals the store', () => {
    const plan = planSync({ nodes: [node], pods, ...storeOf([node], pods) });
    expect(plan).toMatchObject({ nodeWrites: [], nodeRemovals: [], podWrites: [], podRemovals: [], events: [] });
  });

  it.each<[string, KubeNodeOptions, string[]]>([
    ['a cordon changes unschedulable and state', { unschedulable: true }, ['unschedulable', 'state']],
    ['a Ready flip changes ready and state', { ready: 'False' }, ['ready', 'state']],
    ['a new taint changes taints only', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }, ['taints']],
    ['less allocatable memory changes allocatable', { allocatable: { cpu: '3920m', memory: '13Gi', pods: '58' } }, ['allocatable']],
  ])('%s, and publishes node.changed', (_, change, fields) => {
    const next = liveNode(change);
    const plan = planSync({ nodes: [next], pods, ...storeOf([node], pods) });
    expect(plan.nodeWrites).toHaveLength(1);
    expect(plan.events).toEqual([expect.objectContaining({ type: 'node.changed', subject: NAME, data: expect.objectContaining({ changed: fields }) })]);
  });

  it('rewrites a node whose label changed, without an operator event', () => {
    const next = liveNode({ labels: { ...aV1Node().metadata!.labels, team: 'payments' } });
    const plan = planSync({ nodes: [next], pods, ...storeOf([node], pods) });
    expect(plan.nodeWrites).toHaveLength(1);
    expect(plan.events).toEqual([]);
  });

  it('rewrites the pod that changed and its node (requests re-aggregated), nothing else', () => {
    const changed = [pods[0]!, livePod('p2', undefined, '1')];
    const plan = planSync({ nodes: [node], pods: changed, ...storeOf([node], pods) });
    expect(plan.podWrites.map((p) => p.uid)).toEqual(['p2']);
    expect(plan.nodeWrites[0]!.row.requested.cpuMilli).toBe(1250);
    expect(plan.events).toEqual([]);
  });

  it('marks a node gone from the API as removed once, and pods gone as removed', () => {
    const store = storeOf([node], pods);
    const plan = planSync({ nodes: [], pods: [pods[0]!], ...store });
    expect(plan.nodeRemovals).toEqual([NAME]);
    expect(plan.podRemovals).toEqual(['p2']);
    expect(plan.events).toEqual([expect.objectContaining({ type: 'node.removed', data: expect.objectContaining({ name: NAME, lastState: 'Ready' }) })]);

    store.storedNodes.set(NAME, { ...store.storedNodes.get(NAME)!, deleted: true });
    expect(planSync({ nodes: [], pods: [pods[0]!], ...store, storedPods: new Map([['p1', pods[0]!.hash]]) }).events).toEqual([]);
  });

  it('announces a node that comes back after removal as added again', () => {
    const store = storeOf([node], pods);
    store.storedNodes.set(NAME, { ...store.storedNodes.get(NAME)!, deleted: true });
    const plan = planSync({ nodes: [node], pods, ...store });
    expect(plan.events.map((e) => e.type)).toEqual(['node.added']);
  });

  it('announces a node re-created under the same name (a new uid) as the old one removed and the new one added', () => {
    const store = storeOf([node], pods);
    const recreated: LiveNode = { ...node, row: { ...node.row, uid: 'a-new-uid' } };
    const plan = planSync({ nodes: [recreated], pods, ...store });
    expect(plan.events.map((e) => [e.type, (e.data as { uid?: string }).uid])).toEqual([
      ['node.removed', node.row.uid],
      ['node.added', 'a-new-uid'],
    ]);
    expect(plan.nodeWrites.map((w) => w.row.uid)).toEqual(['a-new-uid']);
  });

  it('takes a node row’s hash again only when its pods’ sums changed, and the hashes are those taken without memory', () => {
    const hashes: NodeHashes = new WeakMap();
    const fresh = (p: LivePod[]) => planSync({ nodes: [node], pods: p, storedNodes: new Map(), storedPods: new Map() }).nodeWrites[0]!.hash;
    const first = planSync({ nodes: [node], pods, storedNodes: new Map(), storedPods: new Map(), nodeHashes: hashes });
    expect(first.nodeWrites[0]!.hash).toBe(fresh(pods));
    const store = storeOf([node], pods);
    expect(planSync({ nodes: [node], pods, ...store, nodeHashes: hashes }).nodeWrites).toEqual([]);
    // Another pod, then a pod's larger request: the row's sums differ, so its hash does.
    for (const next of [[...pods, livePod('p3')], [pods[0]!, livePod('p2', NAME, '500m')]]) {
      const plan = planSync({ nodes: [node], pods: next, ...store, nodeHashes: hashes });
      expect(plan.nodeWrites.map((w) => w.hash)).toEqual([fresh(next)]);
      expect(fresh(next)).not.toBe(fresh(pods));
    }
    // Back to the first pods: the same hash as at first, so nothing to write.
    expect(planSync({ nodes: [node], pods, ...store, nodeHashes: hashes }).nodeWrites).toEqual([]);
  });

  it('does not count finished pods in a node’s requests', () => {
    const done = { ...livePod('p3'), active: false };
    const plan = planSync({ nodes: [node], pods: [...pods, done], storedNodes: new Map(), storedPods: new Map() });
    expect(plan.nodeWrites[0]!.row.podCount).toBe(2);
  });
});
