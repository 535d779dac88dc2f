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
 * paused by DISRUPTION_PAUSE at start. An optimizer drain (an idle node, OPTIMIZE_MODE=execute) and a fence (a hung
 * opted-in node) that would happen do not while paused — readiness degraded, the metric 1, `disruptions.paused` —
 * and happen once an operator resumes (DELETE); paused again with an `until`, a second drain and fence wait, and
 * happen once `until` passes (`disruptions.resumed`, why `expired`).
 *
 * Steering: no steering controller exists yet; the gate's `steer` check is `PauseGate.check('steer')` for the
 * controller that will call it (docs/pause.md), so no steering case is asserted here.
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
/** The busy nodes (over the optimizer's threshold), five of them opted in to fencing, and one idle node. */
function fleet() {
  const busy = [
    busyNode('busy-a', 'us-east-1a'),
    busyNode('busy-b', 'us-east-1b', true),
    busyNode('busy-c', 'us-east-1c', true),
    busyNode('hung-1', 'us-east-1a', true),
    busyNode('hung-2', 'us-east-1b', true),
    busyNode('spare-c', 'us-east-1c', true),
  ];
  return {
    nodes: [...busy, aKubeNode('idle-web', { nodePool: 'general' })],
    pods: [...busy.flatMap((n) => busyPods(n.metadata!.name!)), aKubePod('web-1', 'idle-web', { app: 'web', cpu: '200m', memory: '256Mi' })],
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

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ podTerminationMs: 50, kubelet: { renewMs: 1_000 } });
  const f = fleet();
  kube.load(f as never);
  ec2 = await startEc2Sim();
  ec2.adoptNodes(f.nodes);
  core = kube.kubeConfig('e2e-reader').makeApiClient(k8s.CoreV1Api);
  events = await EventCollector.start(['disruptions.#', 'node.drain.#', 'node.fenced']);
  const env = splitSystemEnv({ databaseUrl: db.url, kube, ec2 }, { COMMAND_TIMEOUT_MS: '5000', DISRUPTION_PAUSE: 'true', DISRUPTION_PAUSE_REASON: 'change freeze' });
  const perService = {
    'scheduler-scoring': { OPTIMIZE_MODE: 'execute' },
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
  it('paused by DISRUPTION_PAUSE at start (recorded once): no optimizer drain, no fence; readiness degraded, the metric 1, disruptions.paused', async () => {
    const paused = await events.waitFor((e) => e.type === 'disruptions.paused', 'disruptions.paused from the configuration', 30_000);
    expect(paused).toMatchObject({ source: 'nodes-manager/uncordon', data: { pausedBy: 'config:DISRUPTION_PAUSE', source: 'configuration', reason: 'change freeze', scope: 'disruptive', until: null } });
    kube.scenario.hangNode('hung-1', { since: new Date(Date.now() - 3 * 60_000) });

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
  }, 120_000);

  it('DELETE resumes (who resumed recorded): the optimizer drains idle-web and hung-1 is fenced, within a few scan intervals', async () => {
    const res = await api('/api/v1/pause', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ paused: false, pause: null, changes: [expect.objectContaining({ action: 'resume', actor: 'alice', source: 'api' }), expect.anything()] });
    const resumed = await events.waitFor((e) => e.type === 'disruptions.resumed', 'disruptions.resumed', 10_000);
    expect(resumed).toMatchObject({ actor: 'alice', data: { resumedBy: 'alice', why: 'operator', pause: { pausedBy: 'config:DISRUPTION_PAUSE' } } });

    await events.waitFor((e) => e.type === 'node.drain.started' && (e.data as { node: string }).node === 'idle-web', 'the optimizer drain of idle-web', 30_000);
    await events.waitFor((e) => e.type === 'node.fenced' && e.subject === 'hung-1', 'the fence of hung-1', 60_000);
    expect(stops()).toBe(1);
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
