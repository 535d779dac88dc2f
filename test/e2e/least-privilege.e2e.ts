import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { FENCING_LABEL, PRESSURE_LABEL, ServiceNames, type ServiceName } from '@nodes-manager/contracts';
import { aKubeNode, aKubePdb, aKubePod } from '@nodes-manager/kube/testing';
import { createTestDatabase, EventCollector, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { RbacPolicy, serviceAccountUser, startEc2Sim, startKubeSim, type Ec2Sim, type Grant, type KubeSim, type RbacRecord } from '@nodes-manager/sim';
import { describeRequest, grantKey, necessity, withoutGrant } from '../deploy/support/rbac-proof.js';
import { RBAC_KINDS, renderKustomization } from '../deploy/support/kustomize.js';
import { splitSystemEnv } from '../support/split-system.js';
import { startSplitSystem, type SplitSystem } from './harness.js';

/**
 * Least privilege, proven (docs/deploy.md, "RBAC per service"): the Kubernetes simulator enforces the RBAC of deploy/
 * as `kubectl kustomize` renders it, and each of the six services runs in split mode with a token of its own
 * ServiceAccount. One scenario exercises everything the services do with the Kubernetes API — sync, auto-uncordon
 * with the ledger's Events, a drain, an optimizer drain, a plan a PodDisruptionBudget blocks (its Node Event written, then
 * counted again), fencing, pressure relief, NodePool CRUD and consolidation —
 * with no 403 at all; then every grant of deploy/ is shown to be the only one that allowed some request of that
 * scenario (so the scenario without it gets a 403), and a few grants are removed live to show the behaviour fail.
 */
const NS = 'nodes-manager';
const POOL = 'general';
const MANIFESTS = renderKustomization('deploy');
const RBAC = MANIFESTS.filter((o) => RBAC_KINDS.has(o.kind));
const userOf = (svc: ServiceName) => serviceAccountUser(NS, svc);

/**
 * The fleet: three busy nodes (above the optimizer's utilization threshold) and one per behaviour, each busy enough
 * not to be planned away — a Spot node NTH cordons, a node to drain (with a finished Job pod), a node that hangs, a
 * node under memory pressure — `idle-1`, nearly empty, in NodePool `general` with a NodeClaim: what the
 * consolidation deletes and the optimizer drains; and `guarded-1`, as idle, whose one pod a PodDisruptionBudget allows
 * no disruption: what the optimizer's plan keeps, with a Node Event. Five nodes opt in to fencing, so one hung node is
 * no partition.
 */
function fleet() {
  const fenced = { [FENCING_LABEL]: 'enabled' };
  const busy = (node: string, n: number, cpu: string) => Array.from({ length: n }, (_, i) => aKubePod(`app-${node}-${i}`, node, { app: `app-${node}`, cpu, memory: '1Gi' }));
  const nodes = [
    aKubeNode('busy-a', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi', labels: fenced }),
    aKubeNode('busy-b', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi', zone: 'us-east-1b', nodePool: null, labels: fenced }),
    aKubeNode('busy-c', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi', zone: 'us-east-1c', nodePool: null, labels: fenced }),
    aKubeNode('spot-1', { capacityType: 'spot', nodePool: null, zone: 'us-east-1b' }),
    aKubeNode('spot-2', { capacityType: 'spot', nodePool: null, zone: 'us-east-1c' }),
    aKubeNode('drain-1', { nodePool: null, zone: 'us-east-1c' }),
    aKubeNode('drain-2', { nodePool: null, zone: 'us-east-1a' }),
    aKubeNode('hung-1', { nodePool: null, labels: fenced }),
    aKubeNode('press-1', { nodePool: null, zone: 'us-east-1b', labels: { ...fenced, [PRESSURE_LABEL]: 'relieve' } }),
    aKubeNode('idle-1', { zone: 'us-east-1a' }),
    aKubeNode('guarded-1', { nodePool: null, zone: 'us-east-1b' }),
  ];
  const pods = [
    ...['busy-a', 'busy-b', 'busy-c'].flatMap((n) => busy(n, 9, '500m')),
    ...['spot-1', 'spot-2', 'drain-1', 'drain-2', 'hung-1', 'press-1'].flatMap((n) => busy(n, 3, '700m')),
    aKubePod('report-1', 'drain-1', { owner: { kind: 'Job', name: 'report' }, phase: 'Succeeded' }),
    aKubePod('web-1', 'idle-1', { app: 'web', cpu: '100m', memory: '128Mi' }),
    aKubePod('vault-1', 'guarded-1', { app: 'vault', cpu: '100m', memory: '128Mi' }),
  ];
  const claim = (node: string) => ({
    apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim',
    metadata: { name: `${POOL}-${node}`, labels: { 'karpenter.sh/nodepool': POOL }, finalizers: ['karpenter.sh/termination'] },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
    status: { nodeName: node, providerID: nodes.find((n) => n.metadata!.name === node)!.spec!.providerID },
  });
  const nodePools = [{
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: POOL },
    spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } }, disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '1' }] } },
  }];
  return { nodes, pods, pdbs: [aKubePdb('vault-pdb', { minAvailable: 1 })], nodePools, nodeClaims: [claim('busy-a'), claim('idle-1')] };
}

let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: SplitSystem;
let events: EventCollector;

const api = (path: string, init: RequestInit = {}) =>
  fetch(system.gatewayUrl + path, { ...init, headers: { authorization: `Bearer ${testToken('nodes:read nodes:write', 'alice')}`, 'content-type': 'application/json', ...init.headers } });
const json = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
  const res = await api(path, init);
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};
const denied = (from = 0): RbacRecord[] => kube.rbac.records().slice(from).filter((r) => !r.allowed);
const nodeOf = (name: string) => kube.objects('nodes').find((n) => n.metadata.name === name);

beforeAll(async () => {
  db = await createTestDatabase();
  // The simulator refuses WatchList, as a server before 1.34 (or with the feature off) does: the informers fall back
  // to a paged LIST and then WATCH, so the scenario uses both verbs an informer can need. Served, a WatchList is a
  // `watch` request alone, a subset of that (docs/deploy.md, the rules table).
  kube = await startKubeSim({ karpenter: true, podTerminationMs: 50, kubelet: { renewMs: 1_000 }, rbac: RBAC, watchList: 'refuse' });
  const f = fleet();
  kube.load(f as never);
  ec2 = await startEc2Sim();
  ec2.adoptNodes(f.nodes);
  events = await EventCollector.start(['#']);
  const kubeconfig = (svc: ServiceName) => ({ KUBECONFIG: kube.rbac.serviceAccountKubeconfig(NS, svc) });
  system = await startSplitSystem({
    env: splitSystemEnv({ databaseUrl: db.url, kube, ec2 }, {
      COMMAND_TIMEOUT_MS: '8000',
      AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '0.05',
      FENCING_LEASE_TIMEOUT_SECONDS: '5',
      FENCING_POD_DELETE_WAIT_SECONDS: '1',
      FENCING_CONFIRM_TIMEOUT_SECONDS: '30',
      FENCING_MAX_UNHEALTHY_PERCENT: '50',
      PRESSURE_INTERVAL_SECONDS: '1',
      PRESSURE_SUSTAIN_SAMPLES: '2',
    }),
    perService: {
      ...Object.fromEntries(ServiceNames.map((s) => [s, kubeconfig(s)])),
      // The plan's PDB-blocked node's Event is counted again after 3 s (not 30 min), so the scenario sees its patch.
      'scheduler-scoring': { ...kubeconfig('scheduler-scoring'), OPTIMIZE_MODE: 'execute', DISRUPTION_APPROVAL: 'manual', APPROVAL_TTL_MINUTES: '30', PDB_BLOCKED_EVENT_REFRESH_MINUTES: '0.05' },
    },
    timeoutMs: 180_000, // six processes starting at once on a loaded machine
  });
  await waitFor(async () => (await json<{ items: unknown[] }>('/api/v1/nodes?limit=500')).items.length === f.nodes.length, 'node-sync to project the fleet', 60_000, 500);
}, 300_000);

afterAll(async () => {
  await system?.stop();
  await events?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

describe('each service with its own ServiceAccount, under the RBAC of deploy/', () => {
  it('NodePools created, read, changed and deleted; a consolidation deletes the NodeClaim of the idle node', async () => {
    const pool = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'batch' }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }] } }, limits: { cpu: '100' } } };
    await json('/api/v1/nodepools', { method: 'POST', body: JSON.stringify(pool) });
    await json('/api/v1/nodepools/batch', { method: 'PATCH', body: JSON.stringify({ spec: { limits: { cpu: '200' } } }) });
    expect(await json<{ nodePool: { metadata: { name: string } } }>('/api/v1/nodepools/batch')).toMatchObject({ nodePool: { metadata: { name: 'batch' } } });
    expect((await json<{ items: { name: string }[] }>('/api/v1/nodepools')).items.map((p) => p.name).sort()).toEqual(['batch', POOL]);
    await json('/api/v1/nodepools/batch', { method: 'DELETE' });
    const consolidated = await json<{ nodeClaims: { nodeClaim: string; node: string }[]; failed: unknown[] }>(`/api/v1/nodepools/${POOL}/consolidate`, { method: 'POST', body: JSON.stringify({ dryRun: false }) });
    expect(consolidated).toMatchObject({ nodeClaims: [{ nodeClaim: `${POOL}-idle-1`, node: 'idle-1' }], failed: [] });
    expect(denied()).toEqual([]);
  });

  it('the optimizer asks, the operator approves, scheduler-scoring re-reads the node and uncordon drains it', async () => {
    const requested = await events.waitFor((e) => e.type === 'approval.requested' && (e.data as { kind: string }).kind === 'optimize', 'the optimizer to ask', 60_000);
    expect((requested.data as { nodes: string[] }).nodes).toContain('idle-1');
    await json(`/api/v1/approvals/${(requested.data as { approvalId: string }).approvalId}/approve`, { method: 'POST', body: '{}' });
    const done = await events.waitFor((e) => (e.type === 'node.drain.completed' || e.type === 'node.drain.failed') && e.subject === 'idle-1', 'the drain of idle-1', 60_000);
    expect(done.type).toBe('node.drain.completed');
    expect(denied()).toEqual([]);
  });

  it("a node a PodDisruptionBudget keeps out of the optimizer's plan gets a Node Event naming the budget, then counted again on it", async () => {
    const blockedEvents = () => kube.objects('events').filter((e) => e.involvedObject?.name === 'guarded-1' && e.reason === 'DisruptionBlockedByPDB');
    await waitFor(() => blockedEvents().some((e) => e.count >= 2) || undefined, 'the Event on guarded-1, counted twice', 30_000, 250);
    expect(blockedEvents()).toEqual([expect.objectContaining({ message: expect.stringContaining('PodDisruptionBudget default/vault-pdb allows 0 more') })]);
    const mine = (verb: string) => kube.rbac.records().some((r) => r.user === userOf('scheduler-scoring').name && r.verb === verb && r.resource === 'events' && r.allowed);
    expect([mine('create'), mine('patch')]).toEqual([true, true]);
    expect(denied()).toEqual([]);
  });

  it('a rebalance cordon with its NTH Event is reversed, recorded by the ledger (which watches Node Events) and explained with a Node Event', async () => {
    // NTH posts its Event as it cordons; the Event first, so the ledger's first look at the cordon already has it.
    kube.scenario.nodeEvent('spot-1', 'RebalanceRecommendation', 'Rebalance recommendation received. Instance will be cordoned now');
    kube.scenario.cordonAsNth('spot-1', { taint: true });
    await events.waitFor((e) => e.type === 'node.uncordoned' && e.subject === 'spot-1', 'node.uncordoned for spot-1', 60_000);
    expect(nodeOf('spot-1')?.spec?.unschedulable).toBeFalsy();
    // The ledger's row; its Events informer (list and watch of Events in `default`) starts with the first rebalance.
    const row = await waitFor(async () => (await json<{ items: { node: string; evidence: { kind: string }[] }[] }>('/api/v1/rebalances')).items.find((r) => r.node === 'spot-1'), "the ledger's row", 30_000, 500);
    expect(row.evidence.map((e) => e.kind)).toContain('nth-cordon');
    await waitFor(() => kube.rbac.records().some((r) => r.user === userOf('uncordon').name && r.verb === 'watch' && r.resource === 'events' && r.allowed), "the ledger's watch on Node Events", 30_000, 250);
    await waitFor(() => kube.objects('events').find((e) => e.involvedObject?.name === 'spot-1' && e.source?.component !== 'aws-node-termination-handler'), 'the Node Event uncordon writes', 15_000, 250);
    expect(denied()).toEqual([]);
  });

  it('a drain through the API evicts the pods and deletes the finished one', async () => {
    const res = await api('/api/v1/nodes/drain-1/drain', { method: 'POST', body: JSON.stringify({ force: true, timeoutSeconds: 60 }) });
    expect(res.status).toBe(202);
    const done = await events.waitFor((e) => (e.type === 'node.drain.completed' || e.type === 'node.drain.failed') && e.subject === 'drain-1', 'the drain of drain-1', 60_000);
    expect(done.type).toBe('node.drain.completed');
    expect(denied()).toEqual([]);
  });

  it('a hung opted-in node is fenced: its Lease read, stopped in EC2, tainted out-of-service, its pods deleted', async () => {
    kube.scenario.hangNode('hung-1', { since: new Date(Date.now() - 3 * 60_000) });
    const fenced = await events.waitFor((e) => e.type === 'node.fenced' && e.subject === 'hung-1', 'node.fenced for hung-1', 90_000);
    expect(fenced.data).toMatchObject({ action: 'stop', instanceState: 'stopped' });
    expect(nodeOf('hung-1')?.spec?.taints).toContainEqual(expect.objectContaining({ key: 'node.kubernetes.io/out-of-service' }));
    expect(denied()).toEqual([]);
  });

  it("a node under memory pressure is read through the kubelet's Summary API and relieved by one eviction", async () => {
    kube.scenario.setPressure('press-1', { memory: { some: { avg10: 80, avg60: 70 }, full: { avg10: 55, avg60: 45 } }, podMemoryBytes: { 'default/app-press-1-0': 3 * 2 ** 30 } });
    const relieved = await events.waitFor((e) => e.type === 'node.pressure.relieved' && e.subject === 'press-1', 'a relief of press-1', 60_000);
    expect(relieved.data).toMatchObject({ pod: 'default/app-press-1-0', outcome: 'evicted' });
    kube.scenario.setPressure('press-1', null);
    expect(denied()).toEqual([]);
  });
});

describe('every grant of deploy/ is needed by that scenario', () => {
  it('the services made requests, none refused; the gateway and spot-advisor made none', () => {
    const records = kube.rbac.records();
    expect(denied().map((r) => `${r.user}: ${describeRequest(r)}`)).toEqual([]);
    for (const svc of ['node-sync', 'uncordon', 'scheduler-scoring', 'karpenter-gateway'] as const) expect(`${svc} ${records.some((r) => r.user === userOf(svc).name)}`).toBe(`${svc} true`);
    for (const svc of ['api-gateway', 'spot-advisor'] as const) expect(records.filter((r) => r.user === userOf(svc).name).map(describeRequest)).toEqual([]);
  });

  it('each grant is the only one that allowed some request of the scenario (without it, that request is a 403)', () => {
    const policy = new RbacPolicy(RBAC);
    const records = kube.rbac.records();
    const table: string[] = [];
    const unused: string[] = [];
    for (const svc of ServiceNames) {
      for (const n of necessity(policy.grants(userOf(svc)), userOf(svc).name, records)) {
        if (n.solelyAllowed.length === 0) unused.push(`${svc}: ${grantKey(n.grant)}`);
        else table.push(`${svc}: ${grantKey(n.grant)} ← ${describeRequest(n.solelyAllowed[0]!)} (${n.solelyAllowed.length} requests)`);
      }
    }
    process.stdout.write(`grants and a request each alone allowed:\n  ${table.join('\n  ')}\n`);
    expect(unused).toEqual([]);
    expect(table.length).toBeGreaterThanOrEqual(25);
  });
});

describe('removing a grant makes the behaviour that needs it fail', () => {
  const grant = (svc: ServiceName, resource: string, verb: string): Grant => {
    const g = new RbacPolicy(RBAC).grants(userOf(svc)).find((x) => x.resource === resource && x.verb === verb);
    if (!g) throw new Error(`${svc} has no grant ${verb} ${resource} in deploy/`);
    return g;
  };
  /** without — runs `body` with `g` taken away (RBAC re-enforced live), then puts it back; the 403s it caused. */
  const without = async (g: Grant, body: () => Promise<void>): Promise<RbacRecord[]> => {
    const from = kube.rbac.records().length;
    kube.rbac.enforce(withoutGrant(RBAC, g));
    try {
      await body();
    } finally {
      kube.rbac.enforce(RBAC);
    }
    return denied(from);
  };

  it("uncordon without `patch nodes`: a rebalance cordon stays, 403 on the node; with it back, it is reversed", async () => {
    const refused = await without(grant('uncordon', 'nodes', 'patch'), async () => {
      kube.scenario.cordonAsNth('spot-2', { taint: true });
      await waitFor(() => denied().some((r) => r.verb === 'patch' && r.name === 'spot-2'), 'the uncordon to be refused', 60_000, 250);
      expect(nodeOf('spot-2')?.spec?.unschedulable).toBe(true);
    });
    expect(refused.map(describeRequest)).toContain('patch nodes "spot-2"');
    await events.waitFor((e) => e.type === 'node.uncordoned' && e.subject === 'spot-2', 'the uncordon once the grant is back', 60_000);
  });

  it('uncordon without `create pods/eviction`: a drain through the API fails, its pods still on the node', async () => {
    const refused = await without(grant('uncordon', 'pods/eviction', 'create'), async () => {
      const res = await api('/api/v1/nodes/drain-2/drain', { method: 'POST', body: JSON.stringify({ force: true, timeoutSeconds: 5 }) });
      expect(res.status).toBe(202);
      const done = await events.waitFor((e) => (e.type === 'node.drain.completed' || e.type === 'node.drain.failed') && e.subject === 'drain-2', 'the drain of drain-2 to end', 60_000);
      expect(done.type).toBe('node.drain.failed');
    });
    expect(refused.some((r) => r.verb === 'create' && r.subresource === 'eviction')).toBe(true);
    expect((await kube.kubeConfig().makeApiClient(CoreV1Api).listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=drain-2' })).items.length).toBeGreaterThan(0);
  });

  it("scheduler-scoring without `patch events` in default: the kept node's Event is not counted again (403); with it back, it is", async () => {
    const count = (): number => kube.objects('events').find((e) => e.involvedObject?.name === 'guarded-1' && e.reason === 'DisruptionBlockedByPDB')?.count ?? 0;
    let during = 0;
    const refused = await without(grant('scheduler-scoring', 'events', 'patch'), async () => {
      const from = kube.rbac.records().length;
      await waitFor(() => denied(from).length > 0 || undefined, 'the count to be refused', 30_000, 250);
      during = count();
    });
    expect(new Set(refused.map((r) => `${r.user} ${r.verb} ${r.resource} ${r.namespace}`))).toEqual(new Set([`${userOf('scheduler-scoring').name} patch events default`]));
    await waitFor(() => count() > during || undefined, 'the Event counted again once the grant is back', 30_000, 250);
  });

  it('karpenter-gateway without `create nodepools`: creating a NodePool through the API fails and none is made', async () => {
    const refused = await without(grant('karpenter-gateway', 'nodepools', 'create'), async () => {
      const res = await api('/api/v1/nodepools', { method: 'POST', body: JSON.stringify({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'refused' }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } } } }) });
      expect(res.status).toBeGreaterThanOrEqual(400);
    });
    expect(refused.map(describeRequest)).toEqual(['create nodepools.karpenter.sh']);
    expect((await json<{ items: { name: string }[] }>('/api/v1/nodepools')).items.map((p) => p.name)).not.toContain('refused');
  });
});
