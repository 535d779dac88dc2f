// The simulator's Karpenter (docs/karpenter-simulator.md), driven and observed as a cluster's clients would: NodePools,
// pods and PDBs written and NodeClaims, Nodes and Events read with @kubernetes/client-node, EC2's faults and Spot
// notices sent to the EC2 simulator's HTTP controls, time stepped on a FakeClock.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, PolicyV1Api, setHeaderOptions, type CoreV1Event, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { FakeClock } from '@nodes-manager/platform';
import { type Ec2Sim, type KubeSim, SimKarpenter, startEc2Sim, startKubeSim, startSimKarpenter } from '@nodes-manager/sim';

type Obj = { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; deletionTimestamp?: string; creationTimestamp?: string }; spec?: any; status?: any };

const ZONE = 'us-east-1a';
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const NODEPOOLS = { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' };
const NODECLAIMS = { group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' };

let clock: FakeClock;
let kube: KubeSim;
let ec2: Ec2Sim;
let karpenter: SimKarpenter;
let core: CoreV1Api;
let custom: CustomObjectsApi;

beforeEach(async () => {
  clock = new FakeClock('2026-06-10T12:00:00Z');
  const now = () => clock.now();
  kube = await startKubeSim({ clock: now, timers: clock, karpenter: true, podTerminationMs: 5_000, kubelet: false });
  ec2 = await startEc2Sim({ clock: now, seed: 1 });
  karpenter = startSimKarpenter({ api: kube.api, ec2, clock: now, timers: clock });
  core = kube.kubeConfig().makeApiClient(CoreV1Api);
  custom = kube.kubeConfig().makeApiClient(CustomObjectsApi);
});
afterEach(async () => {
  karpenter.stop();
  await Promise.all([kube.stop(), ec2.stop()]);
});

const aNodePool = (name: string, o: { weight?: number; types?: string[]; zones?: string[]; capacity?: string[]; budgets?: object[]; labels?: Record<string, string>; taints?: object[] } = {}) => ({
  apiVersion: 'karpenter.sh/v1', kind: 'NodePool',
  metadata: { name },
  spec: {
    ...(o.weight !== undefined ? { weight: o.weight } : {}),
    template: {
      ...(o.labels ? { metadata: { labels: o.labels } } : {}),
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        ...(o.taints ? { taints: o.taints } : {}),
        requirements: [
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: o.capacity ?? ['spot', 'on-demand'] },
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: o.types ?? ['m5.large', 'm6i.large'] },
          { key: 'topology.kubernetes.io/zone', operator: 'In', values: o.zones ?? [ZONE] },
        ],
      },
    },
    disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', ...(o.budgets ? { budgets: o.budgets } : {}) },
  },
});

/** aPod — a ReplicaSet's pod asking for `cpu`, pending (no node), so Karpenter provisions for it. */
const aPod = (name: string, o: { cpu?: string; nodeSelector?: Record<string, string>; annotations?: Record<string, string>; labels?: Record<string, string> } = {}): V1Pod => ({
  metadata: {
    name, namespace: 'default', labels: o.labels ?? { app: 'web' }, ...(o.annotations ? { annotations: o.annotations } : {}),
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d9f8', uid: 'rs-uid', controller: true }],
  },
  spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: o.cpu ?? '1500m', memory: '512Mi' } } }], ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}) },
});

const createPool = (body: object) => custom.createClusterCustomObject({ ...NODEPOOLS, body });
const patchPool = (name: string, body: object) => custom.patchClusterCustomObject({ ...NODEPOOLS, name, body }, MERGE);
const claims = async (): Promise<Obj[]> => ((await custom.listClusterCustomObject(NODECLAIMS)) as { items: Obj[] }).items;
const nodes = async (): Promise<V1Node[]> => (await core.listNode()).items;
const pods = async (): Promise<V1Pod[]> => (await core.listNamespacedPod({ namespace: 'default' })).items;
/** events — in the order they were recorded. */
const events = async (): Promise<CoreV1Event[]> =>
  (await core.listNamespacedEvent({ namespace: 'default' })).items.sort((a, b) => Number(a.metadata!.resourceVersion) - Number(b.metadata!.resourceVersion));
const typeOf = (o: { metadata?: { labels?: Record<string, string> } }) => o.metadata?.labels?.['node.kubernetes.io/instance-type'];
const cond = (c: Obj, type: string) => (c.status?.conditions ?? []).find((x: { type: string }) => x.type === type);
const control = async (path: string, body: object): Promise<number> =>
  (await fetch(`${ec2.url}/_sim/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status;

/** settle — enough passes for launches to register and drains to finish. */
const settle = async (ms = 60_000): Promise<void> => clock.step(ms);

/** fleet — `n` nodes of `pool`, one pod each (1.5 CPU fills a large), provisioned by Karpenter itself. */
async function fleet(n: number, pool = 'general'): Promise<void> {
  for (let i = 0; i < n; i++) await core.createNamespacedPod({ namespace: 'default', body: aPod(`web-${pool}-${i}`) });
  await settle();
  expect((await claims()).filter((c) => c.metadata.labels?.['karpenter.sh/nodepool'] === pool)).toHaveLength(n);
}

describe('provisioning', () => {
  it('launches a pending pod on the highest-weight NodePool that admits it, and binds it to the new Node', async () => {
    await createPool(aNodePool('general', { weight: 10 }));
    await createPool(aNodePool('preferred', { weight: 50 }));
    await createPool(aNodePool('ml', { weight: 90, taints: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }] })); // the pod does not tolerate it
    await core.createNamespacedPod({ namespace: 'default', body: aPod('web-1') });
    await clock.step(10_000);
    const [claim] = await claims();
    expect(claim!.metadata.labels!['karpenter.sh/nodepool']).toBe('preferred');
    expect(cond(claim!, 'Launched')?.status).toBe('True');
    expect(await nodes()).toHaveLength(0); // not registered yet
    await clock.step(30_000);
    const [node] = await nodes();
    expect(node!.spec!.providerID).toBe((await claims())[0]!.status.providerID);
    expect((await pods())[0]!.spec!.nodeName).toBe(node!.metadata!.name);
  });

  it('launches Spot price-capacity-optimized: the cheaper pool is passed over when its capacity is shallow', async () => {
    const [cheap, dear] = ['m5.large', 'm6i.large'].sort((a, b) => ec2.spotPrice(a, ZONE) - ec2.spotPrice(b, ZONE));
    ec2.setSpotCapacity(cheap!, ZONE, 0.3);
    await createPool(aNodePool('general'));
    await core.createNamespacedPod({ namespace: 'default', body: aPod('web-1') });
    await clock.step(10_000);
    const [claim] = await claims();
    expect([typeOf(claim!), claim!.metadata.labels!['karpenter.sh/capacity-type']]).toEqual([dear, 'spot']);
  });

  it('an insufficient-capacity error marks the offering unavailable for 3 minutes and the next offering is launched', async () => {
    const [cheap, dear] = ['m5.large', 'm6i.large'].sort((a, b) => ec2.spotPrice(a, ZONE) - ec2.spotPrice(b, ZONE));
    for (const t of [cheap!, dear!]) ec2.setSpotCapacity(t, ZONE, 1); // equally deep: without the fault, the cheaper one
    expect(await control('faults/insufficient-capacity', { instanceType: cheap, zone: ZONE, capacityType: 'spot' })).toBe(200);
    await createPool(aNodePool('general'));
    await core.createNamespacedPod({ namespace: 'default', body: aPod('web-1') });
    await clock.step(10_000);
    expect(typeOf((await claims())[0]!)).toBe(dear);
    expect(karpenter.unavailableOfferings.list()).toEqual([expect.objectContaining({ capacityType: 'spot', instanceType: cheap, zone: ZONE, reason: 'InsufficientInstanceCapacity' })]);
    await clock.step(3 * 60_000);
    expect(karpenter.unavailableOfferings.list()).toEqual([]);
  });
});

describe('drift', () => {
  it('a narrowed NodePool marks its NodeClaims Drifted=True (RequirementsDrifted) and replaces them one at a time under a budget of 1: replacement first, then drain', async () => {
    await createPool(aNodePool('general', { types: ['m5.large'], budgets: [{ nodes: '1' }] }));
    await fleet(3);
    const before = (await claims()).map((c) => c.metadata.name);
    await patchPool('general', { spec: { template: { spec: { requirements: aNodePool('general', { types: ['m6i.large'] }).spec.template.spec.requirements } } } });
    await clock.step(10_000);
    const marked = await claims();
    expect(marked.filter((c) => before.includes(c.metadata.name)).map((c) => [cond(c, 'Drifted')?.status, cond(c, 'Drifted')?.reason])).toEqual(Array(3).fill(['True', 'RequirementsDrifted']));
    // The first command: one candidate tainted karpenter.sh/disrupted, its replacement launched, nothing drained yet.
    const tainted = (await nodes()).filter((n) => n.spec?.taints?.some((t) => t.key === 'karpenter.sh/disrupted' && t.effect === 'NoSchedule'));
    expect(tainted).toHaveLength(1);
    expect(marked.filter((c) => !before.includes(c.metadata.name)).map(typeOf)).toEqual(['m6i.large']);
    expect(marked.filter((c) => c.metadata.deletionTimestamp)).toHaveLength(0);
    // Never more than one node of the pool disrupted at a time, until every node is an m6i.large.
    for (let i = 0; i < 30; i++) {
      await clock.step(10_000);
      const cs = await claims();
      const disrupting = (await nodes()).filter((n) => n.spec?.taints?.some((t) => t.key === 'karpenter.sh/disrupted')).length;
      expect(disrupting).toBeLessThanOrEqual(1);
      expect(cs.filter((c) => !before.includes(c.metadata.name) && cond(c, 'Initialized')?.status !== 'True').length).toBeLessThanOrEqual(1);
    }
    expect((await nodes()).map(typeOf)).toEqual(['m6i.large', 'm6i.large', 'm6i.large']);
    expect((await pods()).filter((p) => p.spec?.nodeName)).toHaveLength(3);
    expect(karpenter.stats.driftReplacements).toBe(3);
    expect(ec2.instances().filter((i) => i.state === 'terminated' || i.state === 'shutting-down')).toHaveLength(3);
  });

  it('widening the requirements drifts nothing', async () => {
    await createPool(aNodePool('general', { types: ['m5.large'] }));
    await fleet(2);
    await patchPool('general', { spec: { template: { spec: { requirements: aNodePool('general', { types: ['m5.large', 'm6i.large', 'c5.large'], zones: [ZONE, 'us-east-1b'] }).spec.template.spec.requirements } } } });
    await settle();
    expect((await claims()).map((c) => cond(c, 'Drifted'))).toEqual([undefined, undefined]);
    expect(karpenter.stats.driftReplacements).toBe(0);
  });

  it('a Drifted budget of "0" stops drift replacement; consolidation\'s budget is not consulted', async () => {
    await createPool(aNodePool('general', { types: ['m5.large'], budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }] }));
    await fleet(2);
    await patchPool('general', { spec: { template: { spec: { requirements: aNodePool('general', { capacity: ['on-demand'], types: ['m5.large'] }).spec.template.spec.requirements } } } });
    await settle(120_000);
    const cs = await claims();
    expect(cs.map((c) => cond(c, 'Drifted')?.status)).toEqual(['True', 'True']);
    expect(cs).toHaveLength(2);
    expect(karpenter.stats.driftReplacements).toBe(0);
  });

  it('the on-demand fallback (capacity-type NotIn [spot]) replaces every Spot node with On-Demand, 10% at a time by default', async () => {
    await createPool(aNodePool('general', { types: ['m5.large'] }));
    await fleet(3);
    expect((await nodes()).map((n) => n.metadata?.labels?.['karpenter.sh/capacity-type'])).toEqual(['spot', 'spot', 'spot']);
    const reqs = aNodePool('general', { types: ['m5.large'] }).spec.template.spec.requirements;
    await patchPool('general', { spec: { template: { spec: { requirements: [...reqs, { key: 'karpenter.sh/capacity-type', operator: 'NotIn', values: ['spot'] }] } } } });
    for (let i = 0; i < 30; i++) {
      await clock.step(10_000);
      // 10% of 3 nodes, rounded up: one at a time.
      expect((await nodes()).filter((n) => n.spec?.taints?.some((t) => t.key === 'karpenter.sh/disrupted')).length).toBeLessThanOrEqual(1);
    }
    expect((await nodes()).map((n) => n.metadata?.labels?.['karpenter.sh/capacity-type'])).toEqual(['on-demand', 'on-demand', 'on-demand']);
  });

  it.each([
    ['a pod annotated karpenter.sh/do-not-disrupt', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }, false, 'has "karpenter.sh/do-not-disrupt" annotation'],
    ['a PodDisruptionBudget that allows no disruption', {}, true, 'prevents pod evictions'],
  ])('%s blocks the drifted node, with a DisruptionBlocked Event on the Node and the NodeClaim', async (_, podOpts, pdb, message) => {
    await createPool(aNodePool('general', { types: ['m5.large'] }));
    await core.createNamespacedPod({ namespace: 'default', body: aPod('db-0', { ...podOpts, labels: { app: 'db' } }) });
    if (pdb) await kube.kubeConfig().makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({ namespace: 'default', body: { metadata: { name: 'db' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } } } });
    await settle();
    await patchPool('general', { spec: { template: { spec: { requirements: aNodePool('general', { types: ['m6i.large'] }).spec.template.spec.requirements } } } });
    await settle(120_000);
    expect((await claims()).map(typeOf)).toEqual(['m5.large']);
    const blocked = (await events()).filter((e) => e.reason === 'DisruptionBlocked');
    expect(blocked.map((e) => [e.involvedObject.kind, e.type])).toEqual([['Node', 'Normal'], ['NodeClaim', 'Normal']]);
    expect(blocked[0]!.message).toContain(message);
  });
});

describe('termination', () => {
  it('a NodeClaim another client deletes is held by its finalizer while its Node is tainted and drained, then goes with Node and instance', async () => {
    await createPool(aNodePool('general', { types: ['m5.large'] }));
    await core.createNamespacedPod({ namespace: 'default', body: aPod('db-0', { labels: { app: 'db' } }) });
    await kube.kubeConfig().makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({ namespace: 'default', body: { metadata: { name: 'db' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } } } });
    await settle();
    const [claim] = await claims();
    const [node] = await nodes();
    await custom.deleteClusterCustomObject({ ...NODECLAIMS, name: claim!.metadata.name });
    await settle(120_000);
    // The PDB allows no eviction: the NodeClaim stays deleting, the Node tainted, the pod where it was.
    const held = await claims();
    expect(held.map((c) => [c.metadata.name, c.metadata.deletionTimestamp !== undefined])).toEqual([[claim!.metadata.name, true]]);
    expect((await nodes())[0]!.spec!.taints).toEqual([expect.objectContaining({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' })]);
    await kube.kubeConfig().makeApiClient(PolicyV1Api).deleteNamespacedPodDisruptionBudget({ namespace: 'default', name: 'db' });
    await settle();
    expect((await claims()).map((c) => c.metadata.name)).not.toContain(claim!.metadata.name);
    expect((await nodes()).map((n) => n.metadata!.name)).not.toContain(node!.metadata!.name);
    expect(ec2.instance(String(claim!.status.providerID).split('/').pop()!)?.state).toMatch(/shutting-down|terminated/);
    expect((await pods()).map((p) => [p.metadata!.name!.startsWith('db-'), p.spec?.nodeName !== undefined])).toEqual([[true, true]]);
  });
});

describe('interruption handling', () => {
  async function spotNode() {
    await createPool(aNodePool('general'));
    await fleet(1);
    const [claim] = await claims();
    const [node] = await nodes();
    return { claim: claim!, node: node!, instanceId: String(claim!.status.providerID).split('/').pop()! };
  }

  it('a Spot interruption warning: SpotInterrupted and TerminatingOnInterruption (Warning) on the NodeClaim and the Node, the disrupted taint, the NodeClaim deleted, the offering unavailable, the pod moved', async () => {
    const { claim, node, instanceId } = await spotNode();
    expect(await control('spot/interruption-warning', { instanceId })).toBe(200);
    await clock.step(10_000);
    const evs = (await events()).filter((e) => e.source?.component === 'karpenter');
    expect(evs.map((e) => [e.involvedObject.kind, e.involvedObject.name, e.type, e.reason])).toEqual([
      ['NodeClaim', claim.metadata.name, 'Warning', 'SpotInterrupted'],
      ['Node', node.metadata!.name, 'Warning', 'SpotInterrupted'],
      ['NodeClaim', claim.metadata.name, 'Warning', 'TerminatingOnInterruption'],
      ['Node', node.metadata!.name, 'Warning', 'TerminatingOnInterruption'],
    ]);
    expect(evs[0]!.message).toBe('Spot interruption warning was triggered');
    expect(evs[1]!.involvedObject.uid).toBe(node.metadata!.uid);
    expect(karpenter.unavailableOfferings.list()).toEqual([expect.objectContaining({ capacityType: 'spot', instanceType: typeOf(claim), zone: ZONE, reason: 'spot_interrupted' })]);
    const drained = (await nodes()).find((n) => n.metadata!.name === node.metadata!.name);
    // Drained at once (no PDB): the Node is gone, or still there with the disrupted taint.
    if (drained) expect(drained.spec!.taints).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' })]));
    await settle();
    const cs = await claims();
    expect(cs.map((c) => c.metadata.name)).not.toContain(claim.metadata.name);
    expect(cs.map(typeOf)).not.toContain(typeOf(claim)); // the replacement avoids the interrupted offering
    expect((await pods()).filter((p) => p.spec?.nodeName)).toHaveLength(1);
  });

  it('a rebalance recommendation: SpotRebalanceRecommendation (Normal) on both, and nothing else', async () => {
    const { claim, node, instanceId } = await spotNode();
    expect(await control('spot/rebalance-recommendation', { instanceId })).toBe(200);
    await clock.step(10_000);
    const evs = (await events()).filter((e) => e.source?.component === 'karpenter');
    expect(evs.map((e) => [e.involvedObject.kind, e.type, e.reason, e.message])).toEqual([
      ['NodeClaim', 'Normal', 'SpotRebalanceRecommendation', 'Spot rebalance recommendation was triggered'],
      ['Node', 'Normal', 'SpotRebalanceRecommendation', 'Spot rebalance recommendation was triggered'],
    ]);
    expect((await claims()).map((c) => [c.metadata.name, c.metadata.deletionTimestamp])).toEqual([[claim.metadata.name, undefined]]);
    expect((await nodes())[0]!.spec!.taints).toBeUndefined();
    expect(node.metadata!.name).toBe((await nodes())[0]!.metadata!.name);
    expect(karpenter.unavailableOfferings.list()).toEqual([]);
  });

  it('an instance Spot reclaimed without notice: InstanceTerminating on both, then the NodeClaim and Node are collected', async () => {
    const { instanceId } = await spotNode();
    expect(await control('spot/interrupt', { instanceId })).toBe(200);
    await clock.step(10_000);
    expect((await events()).filter((e) => e.source?.component === 'karpenter').map((e) => [e.involvedObject.kind, e.reason]).slice(0, 2)).toEqual([
      ['NodeClaim', 'InstanceTerminating'],
      ['Node', 'InstanceTerminating'],
    ]);
    await settle();
    expect((await claims()).map((c) => c.status.providerID)).not.toContain(expect.stringContaining(instanceId));
  });
});
