import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { instanceType } from '@nodes-manager/contracts';
import { allocatableOf, generateFleet } from './generate-fleet.js';

const cpuMillis = (q: string): number => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
const mib = (q: string): number => (q.endsWith('Mi') ? Number(q.slice(0, -2)) : q.endsWith('Ki') ? Number(q.slice(0, -2)) / 1024 : Number(q) / 1048576);
const owner = (p: V1Pod): string | undefined => p.metadata?.ownerReferences?.find((o) => o.controller)?.kind;

describe('generateFleet', () => {
  const fleet = generateFleet({ seed: 42, nodes: 60 });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(JSON.stringify(generateFleet({ seed: 42, nodes: 60 }))).toBe(JSON.stringify(fleet));
    expect(generateFleet({ seed: 43, nodes: 60 }).nodes[0]!.metadata!.name).not.toBe(fleet.nodes[0]!.metadata!.name);
  });

  it('places pods only where they fit the node\'s allocatable (cpu, memory, pods, GPUs)', () => {
    for (const node of fleet.nodes) {
      const pods = fleet.pods.filter((p) => p.spec!.nodeName === node.metadata!.name);
      const sum = (f: (r: Record<string, string>) => number) => pods.reduce((s, p) => s + f(p.spec!.containers[0]!.resources!.requests!), 0);
      const alloc = node.status!.allocatable!;
      expect(sum((r) => cpuMillis(r.cpu!))).toBeLessThanOrEqual(cpuMillis(alloc.cpu!));
      expect(sum((r) => mib(r.memory!))).toBeLessThanOrEqual(mib(alloc.memory!));
      expect(pods.length).toBeLessThanOrEqual(Number(alloc.pods));
      expect(sum((r) => Number(r['nvidia.com/gpu'] ?? 0))).toBeLessThanOrEqual(Number(alloc['nvidia.com/gpu'] ?? 0));
    }
  });

  it.each([
    ['Deployment pods owned by ReplicaSets', (p: V1Pod) => owner(p) === 'ReplicaSet'],
    ['StatefulSet pods with PVC volumes', (p: V1Pod) => owner(p) === 'StatefulSet' && !!p.spec!.volumes?.[0]?.persistentVolumeClaim],
    ['Job and CronJob pods', (p: V1Pod) => owner(p) === 'Job'],
    ['DaemonSet pods', (p: V1Pod) => owner(p) === 'DaemonSet'],
    ['GPU pods', (p: V1Pod) => !!p.spec!.containers[0]!.resources!.requests!['nvidia.com/gpu']],
    ['Guaranteed QoS pods', (p: V1Pod) => p.status!.qosClass === 'Guaranteed' && !p.spec!.containers[0]!.resources!.requests!['nvidia.com/gpu']],
    ['bare pods without a controller', (p: V1Pod) => owner(p) === undefined],
    ['mirror pods', (p: V1Pod) => !!p.metadata!.annotations?.['kubernetes.io/config.mirror']],
    ['do-not-disrupt pods', (p: V1Pod) => p.metadata!.annotations?.['karpenter.sh/do-not-disrupt'] === 'true'],
  ])('contains %s', (_name, is) => {
    expect(fleet.pods.some(is)).toBe(true);
  });

  it('gives every node and every pod (per namespace) a unique name', () => {
    const big = generateFleet({ seed: 5, nodes: 400 });
    expect(new Set(big.nodes.map((n) => n.metadata!.name)).size).toBe(big.nodes.length);
    expect(new Set(big.pods.map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`)).size).toBe(big.pods.length);
  });

  it('puts a DaemonSet pod and a mirror pod on every node', () => {
    for (const node of fleet.nodes) {
      const pods = fleet.pods.filter((p) => p.spec!.nodeName === node.metadata!.name);
      expect(pods.some((p) => owner(p) === 'DaemonSet')).toBe(true);
      expect(pods.filter((p) => p.metadata!.annotations?.['kubernetes.io/config.mirror'])).toHaveLength(1);
    }
  });

  it('labels nodes as EKS and Karpenter do, across three zones, with NodePools and NodeClaims to match', () => {
    const zones = new Set(fleet.nodes.map((n) => n.metadata!.labels!['topology.kubernetes.io/zone']));
    expect([...zones].sort()).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
    for (const n of fleet.nodes) {
      const l = n.metadata!.labels!;
      expect(instanceType(l['node.kubernetes.io/instance-type']!)).toBeDefined();
      expect(l['eks.amazonaws.com/capacityType']).toBe(l['karpenter.sh/capacity-type'] === 'spot' ? 'SPOT' : 'ON_DEMAND');
      expect(n.spec!.providerID).toMatch(new RegExp(`^aws:///${l['topology.kubernetes.io/zone']}/i-0[0-9a-f]{16}$`));
    }
    const pools = new Set(fleet.nodePools.map((p) => (p as { metadata: { name: string } }).metadata.name));
    expect(new Set(fleet.nodes.map((n) => n.metadata!.labels!['karpenter.sh/nodepool']))).toEqual(pools);
    expect(fleet.nodeClaims).toHaveLength(fleet.nodes.length);
    expect(generateFleet({ seed: 42, nodes: 5, karpenter: false }).nodePools).toEqual([]);
  });

  it('binds every StatefulSet pod\'s claim to a volume in the zone of the pod\'s node, as the EBS CSI driver provisions it', () => {
    type Obj = { metadata: { name: string; namespace?: string; labels?: Record<string, string> }; spec: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const claims = new Map((fleet.persistentVolumeClaims as Obj[]).map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c]));
    const volumes = new Map((fleet.persistentVolumes as Obj[]).map((v) => [v.metadata.name, v]));
    const zoneOf = new Map(fleet.nodes.map((n) => [n.metadata!.name!, n.metadata!.labels!['topology.kubernetes.io/zone']!]));
    const stateful = fleet.pods.filter((p) => p.spec!.volumes?.some((v) => v.persistentVolumeClaim));
    expect(stateful.length).toBeGreaterThan(0);
    expect(claims.size).toBe(stateful.length);
    expect(volumes.size).toBe(claims.size);
    for (const p of stateful) {
      const claim = claims.get(`${p.metadata!.namespace}/${p.spec!.volumes![0]!.persistentVolumeClaim!.claimName}`);
      const volume = volumes.get(claim!.spec.volumeName);
      const zone = zoneOf.get(p.spec!.nodeName!);
      expect(volume!.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions).toEqual([{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }]);
      expect(volume!.metadata.labels!['topology.kubernetes.io/zone']).toBe(zone);
    }
  });

  it('has budgets, and some under-used nodes for consolidation to find', () => {
    expect(fleet.pdbs.length).toBeGreaterThan(0);
    const used = fleet.nodes.map((n) => {
      const pods = fleet.pods.filter((p) => p.spec!.nodeName === n.metadata!.name);
      return pods.reduce((s, p) => s + cpuMillis(p.spec!.containers[0]!.resources!.requests!.cpu!), 0) / cpuMillis(n.status!.allocatable!.cpu!);
    });
    expect(used.some((u) => u < 0.35)).toBe(true);
  });

  it.each([
    ['m5.xlarge keeps 3920m of 4 cores', 'm5.xlarge', 3920],
    ['m5.4xlarge keeps 15890m of 16 cores', 'm5.4xlarge', 15890],
  ])('reserves CPU as the EKS AMI does: %s', (_name, type, cpu) => {
    expect(allocatableOf(instanceType(type)!).cpuMillis).toBe(cpu);
  });
});
