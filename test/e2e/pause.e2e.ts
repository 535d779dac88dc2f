import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { FENCING_LABEL, ServiceNames, type FencingView, type PauseView } from '@nodes-manager/contracts';
import { createTestDatabase, EventCollector, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { aKubeNode, aKubePod } from '@nodes-manager/kube/testing';
import { splitSystemEnv } from '../support/split-system.js';
import { startSplitSystem, startTogether, stopProcess, type ServiceProcess, type SplitSystem } from './harness.js';

/**
 * The fleet-wide pause end to end (docs/pause.md): two replicas of each of the six services as processes, the fleet
 * paused by DISRUPTION_PAUSE at start. An optimizer drain (an idle node, OPTIMIZE_MODE=execute), a fence (a hung
 * opted-in node) and a steering change (STEERING_MODE=execute: two Spot nodes of one pool reclaimed within minutes put
 * it in `avoid`, and NodePool `general` would stop offering it) that would happen do not while paused — readiness
 * degraded, the metric 1, `disruptions.paused`, the NodePool's plan `paused` naming the pause, no NodePool write — and
 * happen once an operator resumes (DELETE); paused again with an `until`, a second drain and fence wait, and happen
 * once `until` passes (`disruptions.resumed`, why `expired`).
 */
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: SplitSystem;
let seconds: ServiceProcess[] = [];
let events: EventCollector;
let core: k8s.CoreV1Api;

const SCAN_MS = 2_000;
const busyPods = (node: string) => Array.from({ length: 9 }, (_, i) => aKubePod(`core-${node}-${i}`, node, { app: 'core', cpu: '500m', memory: '1Gi' }));
const busyNode = (name: string, zone: string, fence = false) =>
  aKubeNode(name, { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi', zone, ...(fence ? { labels: { [FENCING_LABEL]: 'enabled' } } : {}) });
/** The Spot pool steering is shown to avoid, and the NodePool that offers it among others. */
const POOL = { instanceType: 'm5.large', zone: 'us-east-1a' };
const SPOT = ['spot-1', 'spot-2'];
const req = (key: string, operator: string, ...values: string[]) => ({ key, operator, values });
const GENERAL = [
  req('karpenter.sh/capacity-type', 'In', 'spot', 'on-demand'),
  req('node.kubernetes.io/instance-type', 'In', 'm5.large', 'c5.large'),
  req('topology.kubernetes.io/zone', 'In', 'us-east-1a', 'us-east-1b', 'us-east-1c'),
];
const nodePool = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'general' }, spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: GENERAL } } } };
/** The busy nodes (over the optimizer's threshold), five of them opted in to fencing, two busy Spot nodes of POOL, and one idle node. */
function fleet() {
  const busy = [
    busyNode('busy-a', 'us-east-1a'),
    busyNode('busy-b', 'us-east-1b', true),
    busyNode('busy-c', 'us-east-1c', true),
    busyNode('hung-1', 'us-east-1a', true),
    busyNode('hung-2', 'us-east-1b', true),
    busyNode('spare-c', 'us-east-1c', true),
  ];
  const spot = SPOT.map((n) => aKubeNode(n, { ...POOL, capacityType: 'spot', cpu: '2', memory: '8Gi' }));
  return {
    nodes: [...busy, ...spot, aKubeNode('idle-web', { nodePool: 'general' })],
    pods: [
      ...busy.flatMap((n) => busyPods(n.metadata!.name!)),
      ...SPOT.flatMap((n) => busyPods(n).slice(0, 3)),
      aKubePod('web-1', 'idle-web', { app: 'web', cpu: '200m', memory: '256Mi' }),
    ],
    nodePools: [nodePool],
  };
}

const api = (path: string, init: RequestInit = {}, token = testToken('nodes:read nodes:write', 'alice')) =>
  fetch(system.gatewayUrl + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
const pauseView = async (): Promise<PauseView> => (await (await api('/api/v1/pause')).json()) as PauseView;
const fencing = async (): Promise<FencingView> => (await (await api('/api/v1/fencing')).json()) as FencingView;
const cordoned = async (node: string) => (await core.readNode({ name: node })).spec?.unschedulable === true;
const stops = () => ec2.calls().filter((c) => c.action === 'StopInstances').length;
const drainsOf = (node: string) => events.events.filter((e) => e.type === 'node.drain.started' && (e.data as { node: string }).node === node);
const every = (service: string) => [system.processes.get(service as never)!, ...seconds.filter((p) => p.service === service)];
const metric = async (p: ServiceProcess, name: string) => {
  const text = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text();
  return text.split('\n').find((l) => l.startsWith(`${name}{`))?.split(' ').pop();
};
const readiness = async (p: ServiceProcess) => (await (await fetch(`http://127.0.0.1:${p.port}/readyz`)).json()) as { status: string; checks: Record<string, { ok: boolean; degraded?: boolean; detail?: string }> };
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
interface SteeringPools {
  pools: { instanceType: string; zone: string; state: string }[];
  nodePools: { nodePool: string; status: string; detail?: string; excluded: { kind: string; value: string }[] }[];
}
const steering = async (): Promise<SteeringPools> => (await (await api('/api/v1/steering/pools')).json()) as SteeringPools;
const requirements = async () => ((await (await api('/api/v1/nodepools/general')).json()) as { nodePool: typeof nodePool }).nodePool.spec.template.spec.requirements;
const nodePoolPatches = () => kube.stats().byVerbResource['patch nodepools'] ?? 0;

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ karpenter: true, podTerminationMs: 50, kubelet: { renewMs: 1_000 } });
  const f = fleet();
  kube.load(f as never);
  ec2 = await startEc2Sim();
  ec2.adoptNodes(f.nodes);
  core = kube.kubeConfig('e2e-reader').makeApiClient(k8s.CoreV1Api);
  events = await EventCollector.start(['disruptions.#', 'node.drain.#', 'node.fenced', 'nodepool.steered']);
  const env = splitSystemEnv({ databaseUrl: db.url, kube, ec2 }, { COMMAND_TIMEOUT_MS: '5000', DISRUPTION_PAUSE: 'true', DISRUPTION_PAUSE_REASON: 'change freeze' });
  const perService = {
    'scheduler-scoring': { OPTIMIZE_MODE: 'execute' },
    // A pass every 2 s; two interruptions within minutes are a burst (the default is three).
    'karpenter-gateway': { STEERING_MODE: 'execute', STEERING_INTERVAL_SECONDS: '2', STEERING_BURST_SIZE: '2', KARPENTER_DISCOVERY_CACHE_SECONDS: '1' },
    uncordon: { FENCING_LEASE_TIMEOUT_SECONDS: '3', FENCING_POD_DELETE_WAIT_SECONDS: '1', FENCING_CONFIRM_TIMEOUT_SECONDS: '30' },
  } as Record<string, Record<string, string>>;
  // Twelve processes on a shared machine: each start is given longer than the default.
  system = await startSplitSystem({ env, perService, timeoutMs: 300_000 });
  seconds = await startTogether(ServiceNames.map((service) => ({ service, env: { ...env, ...perService[service] }, name: `${service} (second replica)` })), { timeoutMs: 300_000 });
}, 660_000);

afterAll(async () => {
  await Promise.all(seconds.map((p) => stopProcess(p)));
  await system?.stop();
  await events?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
}, 120_000);

describe('the fleet-wide pause, two replicas of each service', () => {
  it('paused by DISRUPTION_PAUSE at start (recorded once): no optimizer drain, no fence, no steering write; readiness degraded, the metric 1, disruptions.paused', async () => {
    const paused = await events.waitFor((e) => e.type === 'disruptions.paused', 'disruptions.paused from the configuration', 30_000);
    expect(paused).toMatchObject({ source: 'nodes-manager/uncordon', data: { pausedBy: 'config:DISRUPTION_PAUSE', source: 'configuration', reason: 'change freeze', scope: 'disruptive', until: null } });
    kube.scenario.hangNode('hung-1', { since: new Date(Date.now() - 3 * 60_000) });
    // Two Spot nodes of one pool get their rebalance recommendation (NTH's Event and cordon), then are reclaimed.
    for (const n of SPOT) {
      kube.scenario.nodeEvent(n, 'RebalanceRecommendation', 'Rebalance recommendation received. Instance will be cordoned now');
      kube.scenario.cordonAsNth(n, { taint: true });
    }
    await waitFor(async () => {
      const rows = (await (await api('/api/v1/rebalances?limit=100')).json()) as { items: { node: string }[] };
      return SPOT.every((n) => rows.items.some((r) => r.node === n));
    }, 'the ledger to record both rebalances', 30_000, 250);
    for (const n of SPOT) kube.scenario.interruptAsNth(n);

    // The fence would be decided now: it waits, with the pause as its reason, on the leader's verdicts.
    await waitFor(async () => (await fencing()).verdicts.find((v) => v.node === 'hung-1')?.reason === 'PAUSED', 'the fence of hung-1 to wait, PAUSED', 30_000, 500);
    await settle(3 * SCAN_MS);
    expect(stops()).toBe(0);
    expect(await cordoned('idle-web')).toBe(false);
    expect(drainsOf('idle-web')).toEqual([]);
    // Both uncordon replicas applied the configuration; one change recorded.
    expect(events.ofType('disruptions.paused')).toHaveLength(1);
    const view = await pauseView();
    expect(view).toMatchObject({ paused: true, pause: { pausedBy: 'config:DISRUPTION_PAUSE', reason: 'change freeze' } });
    expect(view.changes).toHaveLength(1);

    for (const service of ['scheduler-scoring', 'karpenter-gateway', 'uncordon']) {
      for (const p of every(service)) {
        const r = await readiness(p);
        expect([service, r.status, r.checks[`${service}.pause`]]).toEqual([service, 'degraded', expect.objectContaining({ ok: false, degraded: true, detail: expect.stringContaining('change freeze') })]);
        expect(await metric(p, 'nodes_manager_disruptions_paused')).toBe('1');
      }
    }
    // A manual drain is refused while paused, naming why.
    const refused = await api('/api/v1/nodes/busy-a/drain', { method: 'POST', body: '{}' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'CONFLICT', details: { reason: 'paused' } });

    // The pool is avoided and NodePool general would stop offering it: its plan is held, naming the pause; no write.
    const held = await waitFor(async () => {
      const s = await steering();
      const avoided = s.pools.some((p) => p.instanceType === POOL.instanceType && p.zone === POOL.zone && p.state === 'avoid');
      return avoided ? s.nodePools.find((p) => p.nodePool === 'general' && p.status === 'paused') : undefined;
    }, 'the steering change of general to be held by the pause', 60_000, 500);
    expect(held.detail).toMatch(/^disruptive actions paused by configuration \(DISRUPTION_PAUSE\) at .*: change freeze$/);
    expect(await requirements()).toEqual(GENERAL);
    expect(nodePoolPatches()).toBe(0);
    expect(events.ofType('nodepool.steered')).toEqual([]);
  }, 120_000);

  it('DELETE resumes (who resumed recorded): the optimizer drains idle-web, hung-1 is fenced and NodePool general is steered, within a few scan intervals', async () => {
    const res = await api('/api/v1/pause', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ paused: false, pause: null, changes: [expect.objectContaining({ action: 'resume', actor: 'alice', source: 'api' }), expect.anything()] });
    const resumed = await events.waitFor((e) => e.type === 'disruptions.resumed', 'disruptions.resumed', 10_000);
    expect(resumed).toMatchObject({ actor: 'alice', data: { resumedBy: 'alice', why: 'operator', pause: { pausedBy: 'config:DISRUPTION_PAUSE' } } });

    await events.waitFor((e) => e.type === 'node.drain.started' && (e.data as { node: string }).node === 'idle-web', 'the optimizer drain of idle-web', 30_000);
    await events.waitFor((e) => e.type === 'node.fenced' && e.subject === 'hung-1', 'the fence of hung-1', 60_000);
    expect(stops()).toBe(1);
    // The held steering change is written: NodePool general no longer offers the avoided pool (its owner's entries kept).
    const steered = await events.waitFor((e) => e.type === 'nodepool.steered' && (e.data as { nodePool: string }).nodePool === 'general', 'the steering write of general', 30_000);
    expect(steered.data).toMatchObject({ changes: ['narrow'] });
    const after = await requirements();
    expect(after.slice(0, GENERAL.length)).toEqual(GENERAL);
    expect(after.slice(GENERAL.length)).toEqual([expect.objectContaining({ operator: 'NotIn', values: expect.arrayContaining([expect.stringMatching(/^(m5\.large|us-east-1a)$/)]) })]);
    expect((await steering()).nodePools.find((p) => p.nodePool === 'general')?.status).not.toBe('paused');
    for (const p of every('scheduler-scoring')) {
      await waitFor(async () => (await metric(p, 'nodes_manager_disruptions_paused')) === '0', 'the metric back to 0', 10_000, 250);
      expect((await readiness(p)).checks['scheduler-scoring.pause']).toMatchObject({ ok: true });
    }
  }, 120_000);

  it('paused with until: a new idle node and a second hung node wait; both happen after until, its end recorded as expired', async () => {
    const bad = await api('/api/v1/pause', { method: 'POST', body: JSON.stringify({ reason: 'x', until: 'tomorrow' }) });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('until');
    expect((await api('/api/v1/pause', { method: 'POST', body: JSON.stringify({ reason: 'too early' }) }, testToken('nodes:read', 'bob'))).status).toBe(403);

    const until = new Date(Date.now() + 20_000).toISOString();
    const set = await api('/api/v1/pause', { method: 'POST', body: JSON.stringify({ reason: 'CNI rollout misbehaving', until }) });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ paused: true, pause: { pausedBy: 'alice', reason: 'CNI rollout misbehaving', until, source: 'api' } });
    await events.waitFor((e) => e.type === 'disruptions.paused' && (e.data as { pausedBy: string }).pausedBy === 'alice', 'disruptions.paused by alice', 10_000);
    await settle(SCAN_MS + 500); // every gate has read it

    await core.createNode({ body: aKubeNode('idle-api', { nodePool: 'general', zone: 'us-east-1c' }) });
    await core.createNamespacedPod({ namespace: 'default', body: aKubePod('api-1', 'idle-api', { app: 'api', cpu: '200m', memory: '256Mi' }) });
    kube.scenario.hangNode('hung-2', { since: new Date(Date.now() - 3 * 60_000) });
    await waitFor(async () => (await fencing()).verdicts.find((v) => v.node === 'hung-2')?.reason === 'PAUSED', 'the fence of hung-2 to wait, PAUSED', 15_000, 500);
    expect(stops()).toBe(1);
    expect(drainsOf('idle-api')).toEqual([]);

    const expired = await events.waitFor((e) => e.type === 'disruptions.resumed' && (e.data as { why: string }).why === 'expired', 'the end of the pause at until', 40_000);
    expect(expired).toMatchObject({ data: { resumedBy: 'system:uncordon', why: 'expired', pause: { pausedBy: 'alice', until } } });
    expect(Date.parse(expired.time)).toBeGreaterThanOrEqual(Date.parse(until));
    await events.waitFor((e) => e.type === 'node.drain.started' && (e.data as { node: string }).node === 'idle-api', 'the optimizer drain of idle-api', 30_000);
    await events.waitFor((e) => e.type === 'node.fenced' && e.subject === 'hung-2', 'the fence of hung-2', 60_000);
    expect(stops()).toBe(2);
    expect((await pauseView()).changes.map((c) => [c.action, c.source])).toEqual([
      ['resume', 'expiry'],
      ['pause', 'api'],
      ['resume', 'api'],
      ['pause', 'configuration'],
    ]);
  }, 150_000);
});
