import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { FENCING_LABEL, PRESSURE_LABEL, type FencingView, type NodePressure } from '@nodes-manager/contracts';
import { createTestDatabase, EventCollector, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { splitSystemEnv } from '../support/split-system.js';
import { startService, startSplitSystem, stopProcess, type ServiceProcess, type SplitSystem } from './harness.js';

/**
 * Fencing and pressure end to end (docs/fencing.md, docs/pressure.md): the six services as processes plus a second
 * uncordon replica, against the Kubernetes simulator (its kubelets renew Leases, serve the Summary API with PSI and
 * can hang) and the EC2 simulator holding the fleet's instances.
 */
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: SplitSystem;
let replica: ServiceProcess;
let events: EventCollector;
let core: k8s.CoreV1Api;
let policy: k8s.PolicyV1Api;

const FLEET = generateFleet({ seed: 23, nodes: 24, karpenter: false });
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
/** Ten opted-in nodes, spread over the three zones; the rest never opt in. */
const OPTED = ZONES.flatMap((z) => FLEET.nodes.filter((n) => n.metadata!.labels!['topology.kubernetes.io/zone'] === z).slice(0, z === 'us-east-1a' ? 4 : 3)).map((n) => n.metadata!.name!);
const OTHERS = FLEET.nodes.map((n) => n.metadata!.name!).filter((n) => !OPTED.includes(n));
const [RELIEVE, WATCH, NO_PSI] = OTHERS.slice(-3) as [string, string, string];
for (const n of FLEET.nodes) {
  const name = n.metadata!.name!;
  if (OPTED.includes(name)) n.metadata!.labels![FENCING_LABEL] = 'enabled';
  if (name === RELIEVE) n.metadata!.labels![PRESSURE_LABEL] = 'relieve';
  if (name === WATCH || name === NO_PSI) n.metadata!.labels![PRESSURE_LABEL] = 'watch';
}
const instanceOf = (node: string) => FLEET.nodes.find((n) => n.metadata!.name === node)!.spec!.providerID!.split('/').pop()!;
const zoneOf = (node: string) => FLEET.nodes.find((n) => n.metadata!.name === node)!.metadata!.labels!['topology.kubernetes.io/zone']!;

const api = (path: string, init: RequestInit = {}, token = testToken()) =>
  fetch(system.gatewayUrl + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
const fencing = async (): Promise<FencingView> => (await (await api('/api/v1/fencing')).json()) as FencingView;
const podsOn = async (node: string) => (await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` })).items;
const taintsOf = async (node: string) => (await core.readNode({ name: node })).spec?.taints ?? [];
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ kubelet: { renewMs: 1_000 } });
  kube.load(FLEET);
  ec2 = await startEc2Sim();
  ec2.adoptNodes(FLEET.nodes);
  events = await EventCollector.start(['node.fenced', 'fencing.suspended', 'node.pressure.relieved', 'node.uncordoned']);
  const kc = kube.kubeConfig();
  core = kc.makeApiClient(k8s.CoreV1Api);
  policy = kc.makeApiClient(k8s.PolicyV1Api);
  const env = splitSystemEnv({ databaseUrl: db.url, kube, ec2 }, {
    COMMAND_TIMEOUT_MS: '5000',
    AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '0.05',
    FENCING_LEASE_TIMEOUT_SECONDS: '5',
    FENCING_POD_DELETE_WAIT_SECONDS: '1',
    FENCING_CONFIRM_TIMEOUT_SECONDS: '30',
    PRESSURE_INTERVAL_SECONDS: '1',
    PRESSURE_SUSTAIN_SAMPLES: '2',
  });
  system = await startSplitSystem({ env });
  replica = await startService('uncordon', env, { name: 'uncordon (second replica)' });
  await waitFor(async () => ((await (await api('/api/v1/nodes?limit=500')).json()) as { items: unknown[] }).items?.length === 24, 'node-sync to project the fleet', 60_000, 500);
}, 180_000);

afterAll(async () => {
  if (replica) await stopProcess(replica);
  await system?.stop();
  await events?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

describe('fencing of hung nodes through EC2, with two uncordon replicas', () => {
  it('a hung opted-in node is stopped in EC2, tainted out-of-service and its pods deleted — exactly once; a hung node that did not opt in is left', async () => {
    const hung = OPTED[0]!;
    const bystander = OTHERS[0]!;
    expect((await podsOn(hung)).length).toBeGreaterThan(0);
    kube.scenario.hangNode(hung, { since: minutesAgo(3) });
    kube.scenario.hangNode(bystander, { since: minutesAgo(3) });

    const fenced = await events.waitFor((e) => e.type === 'node.fenced' && e.subject === hung, 'node.fenced for the hung node', 90_000);
    expect(fenced).toMatchObject({ source: 'nodes-manager/uncordon', actor: 'system:uncordon', data: { node: hung, instanceId: instanceOf(hung), action: 'stop', instanceState: 'stopped' } });
    expect(ec2.instances().find((i) => i.instanceId === instanceOf(hung))?.state).toBe('stopped');
    expect(await taintsOf(hung)).toContainEqual(expect.objectContaining({ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }));
    await waitFor(async () => (await podsOn(hung)).length === 0, 'the fenced node to have no pods', 15_000, 250);

    // Give both replicas more cycles: still one of everything.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(ec2.calls().filter((c) => c.action === 'StopInstances')).toHaveLength(1);
    const ops = await db.query<{ status: string }>(`SELECT status FROM nodes.fencing_operations WHERE node_name = $1`, [hung]);
    expect(ops).toEqual([{ status: 'completed' }]);
    const rows = await db.query(`SELECT 1 FROM nodes.scaling_events WHERE node_name = $1 AND action = 'fence'`, [hung]);
    expect(rows).toHaveLength(1);
    expect(events.ofType('node.fenced').filter((e) => e.subject === hung)).toHaveLength(1);

    const view = await fencing();
    expect(view.operations.find((o) => o.node === hung)).toMatchObject({ status: 'completed', instanceState: 'stopped', steps: expect.arrayContaining([expect.objectContaining({ status: 'ec2_requested' }), expect.objectContaining({ status: 'tainted' })]) });
    expect(view.verdicts.find((v) => v.node === bystander)).toMatchObject({ decision: 'skip', reason: 'NOT_OPTED_IN' });
    // The node view shows it too.
    const nodeView = (await (await api(`/api/v1/nodes/${hung}`)).json()) as { fencing: { verdict: { reason: string } | null; operation: { status: string } | null } | null };
    expect(nodeView.fencing).toMatchObject({ verdict: { reason: 'ALREADY_FENCED' }, operation: { status: 'completed' } });
    expect(view.verdicts.find((v) => v.node === hung)).toMatchObject({ reason: 'ALREADY_FENCED' });
    expect(ec2.instances().find((i) => i.instanceId === instanceOf(bystander))?.state).toBe('running');
    expect((await taintsOf(bystander)).some((t) => t.key === 'node.kubernetes.io/out-of-service')).toBe(false);
    expect((await podsOn(bystander)).length).toBeGreaterThan(0);
  });

  it('EC2 refusing the stop leaves the cluster untouched and the fence failed with its reason', async () => {
    const hung = OPTED.find((n) => zoneOf(n) === 'us-east-1b')!;
    const pods = (await podsOn(hung)).length;
    ec2.faults.unauthorized('StopInstances');
    try {
      kube.scenario.hangNode(hung, { since: minutesAgo(3) });
      await waitFor(async () => (await fencing()).operations.find((o) => o.node === hung && o.status === 'failed'), 'the fence to fail', 60_000, 500);
      const op = (await fencing()).operations.find((o) => o.node === hung)!;
      expect(op).toMatchObject({ reason: 'EC2_REFUSED' });
      expect(op.message).toContain('the cluster was not touched');
      expect((await taintsOf(hung)).some((t) => t.key === 'node.kubernetes.io/out-of-service')).toBe(false);
      expect((await podsOn(hung)).length).toBe(pods);
      expect(events.ofType('node.fenced').filter((e) => e.subject === hung)).toHaveLength(0);
    } finally {
      ec2.faults.clear();
    }
  });

  it('seven of ten opted-in nodes hung at once (a partition) fences nothing, says so, and resumes when they recover', async () => {
    const calls = ec2.calls().length;
    const fresh = OPTED.filter((n) => n !== OPTED[0] && n !== OPTED.find((x) => zoneOf(x) === 'us-east-1b'));
    const hung = fresh.slice(0, 7);
    for (const n of hung) kube.scenario.hangNode(n, { since: minutesAgo(3) });
    const suspended = await events.waitFor((e) => e.type === 'fencing.suspended' && (e.data as { suspended: boolean }).suspended, 'fencing.suspended', 60_000);
    expect((suspended.data as { overall: { dead: number; total: number } }).overall).toMatchObject({ dead: 7, total: 10 });
    const view = await fencing();
    expect(view.suspended).toBe(true);
    for (const n of hung) expect(view.verdicts.find((v) => v.node === n)).toMatchObject({ decision: 'skip', reason: 'PARTITION_SUSPECTED' });
    const ready = (await (await fetch(`http://127.0.0.1:${system.processes.get('uncordon')!.port}/readyz`)).json()) as { status: string; checks: Record<string, { detail?: string }> };
    expect(ready.checks['uncordon.fencing']?.detail).toMatch(/suspected partition/);
    await new Promise((r) => setTimeout(r, 4_000));
    expect(ec2.calls().slice(calls).filter((c) => c.action === 'StopInstances' || c.action === 'TerminateInstances')).toHaveLength(0);
    for (const n of hung) expect((await taintsOf(n)).some((t) => t.key === 'node.kubernetes.io/out-of-service')).toBe(false);

    for (const n of hung) kube.scenario.recoverNode(n);
    await events.waitFor((e) => e.type === 'fencing.suspended' && !(e.data as { suspended: boolean }).suspended, 'fencing to resume', 60_000);
    expect((await fencing()).suspended).toBe(false);
  });
});

describe('pressure (PSI) watching and relief', () => {
  it('PSI appears on opted-in nodes; a kubelet without PSI is unknown', async () => {
    kube.scenario.setPressure(WATCH, { memory: { some: { avg10: 70, avg60: 50 }, full: { avg10: 60, avg60: 40 } }, cpu: { some: { avg10: 5, avg60: 4 }, full: { avg10: 0, avg60: 0 } } });
    const read = async (node: string) => ((await (await api(`/api/v1/pressure?node=${node}`)).json()) as { items: NodePressure[] }).items[0];
    const watched = await waitFor(async () => {
      const p = await read(WATCH);
      return p?.status === 'ok' && p.memory?.full.avg10 === 60 ? p : undefined;
    }, 'PSI on the watched node', 30_000, 500);
    expect(watched).toMatchObject({ mode: 'watch', cpu: { some: { avg10: 5, avg60: 4 } }, io: null });
    expect(await waitFor(() => read(NO_PSI), 'a reading of the node without PSI', 30_000, 500)).toMatchObject({ status: 'unknown', memory: null });
    const nodeView = (await (await api(`/api/v1/nodes/${WATCH}`)).json()) as { pressure: NodePressure | null; fencing: unknown };
    expect(nodeView.pressure).toMatchObject({ status: 'ok', memory: { full: { avg10: 60 } } });
    expect(nodeView.fencing).toBeNull();
    expect((await api('/api/v1/pressure?node=..%2Fetc')).status).toBe(400);
  });

  it('a rebalance cordon waits while memory pressure is high, and is reversed once it falls', async () => {
    kube.scenario.cordonAsNth(WATCH, { taint: true, at: minutesAgo(5) });
    await waitFor(async () => {
      const c = ((await (await api('/api/v1/cordons?limit=500')).json()) as { items: Array<{ node: string; reason: string; decision: string }> }).items.find((i) => i.node === WATCH);
      return c?.reason === 'MEMORY_PRESSURE' && c.decision === 'wait';
    }, 'the cordon to wait on memory pressure', 30_000, 500);
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await core.readNode({ name: WATCH })).spec?.unschedulable).toBe(true);
    kube.scenario.setPressure(WATCH, { memory: { some: { avg10: 5, avg60: 5 }, full: { avg10: 1, avg60: 1 } } });
    await events.waitFor((e) => e.type === 'node.uncordoned' && e.subject === WATCH, 'the uncordon once pressure fell', 60_000);
  });

  it('a node that opted in to relief gets one eviction of the pod most above its request, and the PDB holds', async () => {
    const ns = 'pressure-e2e';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    for (let i = 0; i < 2; i++) {
      await core.createNamespacedPod({
        namespace: ns,
        body: { metadata: { name: `hog-${i}`, labels: { app: 'hog' } }, spec: { nodeName: RELIEVE, containers: [{ name: 'c', image: 'busybox' }] }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
      });
    }
    await policy.createNamespacedPodDisruptionBudget({ namespace: ns, body: { metadata: { name: 'hog' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'hog' } } } } });
    kube.scenario.setPressure(RELIEVE, {
      memory: { some: { avg10: 80, avg60: 70 }, full: { avg10: 55, avg60: 45 } },
      podMemoryBytes: { [`${ns}/hog-0`]: 3 * 2 ** 30, [`${ns}/hog-1`]: 2 * 2 ** 30 },
    });
    const first = await events.waitFor((e) => e.type === 'node.pressure.relieved' && e.subject === RELIEVE, 'a relief of the node', 30_000);
    expect(first.data).toMatchObject({ pod: `${ns}/hog-0`, outcome: 'evicted', qosClass: 'BestEffort', mode: 'relieve' });
    // The next interval picks hog-1, but the PDB (minAvailable 1) refuses: it stays.
    const second = await events.waitFor((e) => e.type === 'node.pressure.relieved' && e.subject === RELIEVE && e.id !== first.id, 'a second relief attempt', 30_000);
    expect(second.data).toMatchObject({ pod: `${ns}/hog-1`, outcome: 'pdb_blocked' });
    await waitFor(async () => (await podsOn(RELIEVE)).every((p) => p.metadata?.name !== 'hog-0'), 'hog-0 to go', 10_000, 250);
    expect((await podsOn(RELIEVE)).some((p) => p.metadata?.name === 'hog-1')).toBe(true);
    const evictions = await db.query<{ decision: string }>(`SELECT decision FROM nodes.scaling_events WHERE node_name = $1 AND action = 'pressure.relief' AND decision = 'evicted'`, [RELIEVE]);
    expect(evictions).toHaveLength(1);
    kube.scenario.setPressure(RELIEVE, null);
  });
});
