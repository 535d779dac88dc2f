import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { FENCING_LABEL } from '@nodes-manager/contracts';
import { createTestDatabase, EventCollector, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { aKubeNode, aKubePod } from '@nodes-manager/kube/testing';
import { splitSystemEnv } from '../support/split-system.js';
import { startSplitSystem, type SplitSystem } from './harness.js';

/**
 * OPTIMIZE_MODE=execute with DISRUPTION_APPROVAL=manual, the six services as separate processes on the real broker
 * and database: the optimizer asks, nothing is cordoned or evicted until an operator approves, then the uncordon
 * service drains within a scan interval. The uncordon service runs with `fence=manual`: a hung opted-in node is
 * not stopped through EC2 (the simulator) until approved, then fenced; a manual drain is recorded as an approval.
 */
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: SplitSystem;
let events: EventCollector;

function fleet() {
  const busy = (node: string) => Array.from({ length: 9 }, (_, i) => aKubePod(`core-${node}-${i}`, node, { app: 'core', cpu: '500m', memory: '1Gi' }));
  return {
    nodes: [
      aKubeNode('busy-a', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi' }),
      aKubeNode('busy-b', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi', zone: 'us-east-1b', labels: { [FENCING_LABEL]: 'enabled' } }),
      aKubeNode('idle-web', { nodePool: 'general' }),
    ],
    pods: [...busy('busy-a'), ...busy('busy-b'), aKubePod('web-2', 'idle-web', { app: 'web', cpu: '200m', memory: '256Mi' })],
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ podTerminationMs: 50, kubelet: { renewMs: 1_000 } });
  const f = fleet();
  kube.load(f as never);
  ec2 = await startEc2Sim();
  ec2.adoptNodes(f.nodes);
  events = await EventCollector.start(['approval.#', 'node.drain.#', 'node.fenced']);
  system = await startSplitSystem({
    env: splitSystemEnv({ databaseUrl: db.url, kube, ec2 }, { COMMAND_TIMEOUT_MS: '5000' }),
    perService: {
      'scheduler-scoring': { OPTIMIZE_MODE: 'execute', DISRUPTION_APPROVAL: 'manual', APPROVAL_TTL_MINUTES: '30' },
      uncordon: { DISRUPTION_APPROVAL: 'automatic,fence=manual', FENCING_LEASE_TIMEOUT_SECONDS: '5', FENCING_POD_DELETE_WAIT_SECONDS: '1', FENCING_CONFIRM_TIMEOUT_SECONDS: '30' },
    },
  });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await events?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

const api = (path: string, init: RequestInit = {}, token = testToken('nodes:read nodes:write', 'alice')) =>
  fetch(system.gatewayUrl + path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });

describe('approvals across processes', () => {
  it('nothing is cordoned until approval; a read-only token cannot approve; after approval the drain starts within a scan interval', async () => {
    const requested = await events.waitFor((e) => e.type === 'approval.requested', 'approval.requested', 60_000);
    expect(requested).toMatchObject({ source: 'nodes-manager/scheduler-scoring', data: { kind: 'optimize', nodes: ['idle-web'], status: 'pending' } });
    const id = (requested.data as { approvalId: string }).approvalId;
    const listed = (await (await api('/api/v1/approvals?status=pending')).json()) as { items: { id: string }[]; unavailable?: unknown };
    expect([listed.items.map((i) => i.id), listed.unavailable]).toEqual([[id], undefined]);

    await new Promise((r) => setTimeout(r, 4_500)); // two scan intervals
    const core = kube.kubeConfig('e2e-reader').makeApiClient(k8s.CoreV1Api);
    expect((await core.readNode({ name: 'idle-web' })).spec?.unschedulable).toBeFalsy();
    expect(events.events.filter((e) => e.type.startsWith('node.drain.'))).toEqual([]);

    expect((await api(`/api/v1/approvals/${id}/approve`, { method: 'POST', body: '{}' }, testToken('nodes:read', 'bob'))).status).toBe(403);
    const approvedAt = Date.now();
    const ok = await api(`/api/v1/approvals/${id}/approve`, { method: 'POST', body: '{}' });
    expect(ok.status).toBe(200);

    const started = await events.waitFor((e) => e.type === 'node.drain.started' && (e.data as { node: string }).node === 'idle-web', 'the drain of idle-web', 30_000);
    expect(started.actor).toBe('alice');
    expect(Date.now() - approvedAt).toBeLessThan(2 * 2_000 + 5_000); // a scan interval (2 s), plus the drain's own start
    const executed = await events.waitFor((e) => e.type === 'approval.executed' && (e.data as { approvalId: string }).approvalId === id, 'approval.executed', 30_000);
    expect(executed.data).toMatchObject({ status: 'executed', results: [{ node: 'idle-web', outcome: 'started' }] });
    await waitFor(async () => ((await (await api(`/api/v1/approvals/${id}`)).json()) as { status: string }).status === 'executed', 'the approval to read executed');
  });

  it('fence=manual: a hung opted-in node is not stopped through EC2 until approved; a read-only token gets 403; after approval it is fenced, as the approver', async () => {
    const instance = fleet().nodes.find((n) => n.metadata!.name === 'busy-b')!.spec!.providerID!.split('/').pop()!;
    kube.scenario.hangNode('busy-b', { since: new Date(Date.now() - 3 * 60_000) });
    const requested = await events.waitFor((e) => e.type === 'approval.requested' && (e.data as { kind: string }).kind === 'fence', 'approval.requested for the fence', 60_000);
    expect(requested).toMatchObject({ source: 'nodes-manager/uncordon', subject: 'busy-b', data: { nodes: ['busy-b'], status: 'pending', requestedBy: 'system:uncordon' } });
    const id = (requested.data as { approvalId: string }).approvalId;
    const shown = (await (await api(`/api/v1/approvals/${id}`)).json()) as Record<string, unknown>;
    expect(shown).toMatchObject({ kind: 'fence', service: 'uncordon', status: 'pending', subject: 'busy-b', nodes: [{ node: 'busy-b', reason: 'hung', instanceId: instance, evidence: { ready: 'Unknown' } }] });
    expect(shown['reason']).toContain(instance);
    const pending = (await (await api('/api/v1/approvals?kind=fence&status=pending')).json()) as { items: { id: string }[] };
    expect(pending.items.map((i) => i.id)).toEqual([id]);

    await new Promise((r) => setTimeout(r, 5_000)); // more than two scan intervals: still one request, nothing stopped
    expect(ec2.calls().filter((c) => c.action === 'StopInstances' || c.action === 'TerminateInstances')).toEqual([]);
    expect(ec2.instances().find((i) => i.instanceId === instance)?.state).toBe('running');
    expect(await db.query(`SELECT 1 FROM nodes.fencing_operations WHERE node_name = 'busy-b'`)).toEqual([]);
    expect(events.ofType('approval.requested').filter((e) => (e.data as { kind: string }).kind === 'fence')).toHaveLength(1);

    expect((await api(`/api/v1/approvals/${id}/approve`, { method: 'POST', body: '{}' }, testToken('nodes:read', 'bob'))).status).toBe(403);
    expect(ec2.calls().filter((c) => c.action === 'StopInstances')).toEqual([]);
    const ok = await api(`/api/v1/approvals/${id}/approve`, { method: 'POST', body: '{"comment":"dead, go"}' });
    expect(ok.status).toBe(200);

    const executed = await events.waitFor((e) => e.type === 'approval.executed' && (e.data as { approvalId: string }).approvalId === id, 'approval.executed for the fence', 30_000);
    expect(executed.data).toMatchObject({ status: 'executed', decidedBy: 'alice', results: [{ node: 'busy-b', outcome: 'started', reason: 'fence' }] });
    const fenced = await events.waitFor((e) => e.type === 'node.fenced' && e.subject === 'busy-b', 'node.fenced for busy-b', 90_000);
    expect(fenced).toMatchObject({ actor: 'alice', data: { instanceId: instance, instanceState: 'stopped' } });
    expect(ec2.calls().filter((c) => c.action === 'StopInstances')).toHaveLength(1);
    expect(ec2.instances().find((i) => i.instanceId === instance)?.state).toBe('stopped');
    const op = (await db.query<{ id: string; actor: string; status: string }>(`SELECT id, actor, status FROM nodes.fencing_operations WHERE node_name = 'busy-b'`))[0];
    expect(op).toMatchObject({ actor: 'alice', status: 'completed' });
    expect(((await (await api(`/api/v1/approvals/${id}`)).json()) as { results: unknown[] }).results).toEqual([expect.objectContaining({ operationId: op!.id })]);
  }, 180_000);

  it('a manual drain through the API stays immediate and is recorded as an executed drain approval, its operator requester and approver', async () => {
    const res = await api('/api/v1/nodes/busy-a/drain', { method: 'POST', body: JSON.stringify({ timeoutSeconds: 60, force: true }) });
    expect(res.status).toBe(202);
    const drain = (await res.json()) as { id: string };
    // A second drain of the same node while the first runs (it looks at its evicted pods no sooner than 2 s after
    // evicting them) is refused, with no second record.
    expect((await api('/api/v1/nodes/busy-a/drain', { method: 'POST', body: '{}' })).status).toBe(409);
    const executed = await events.waitFor((e) => e.type === 'approval.executed' && (e.data as { kind: string }).kind === 'drain', 'approval.executed for the manual drain', 30_000);
    expect(executed).toMatchObject({ source: 'nodes-manager/uncordon', actor: 'alice', subject: 'busy-a', data: { status: 'executed', requestedBy: 'alice', decidedBy: 'alice', results: [{ node: 'busy-a', outcome: 'started', reason: 'manual_drain', operationId: drain.id }] } });
    expect(events.ofType('approval.approved').some((e) => (e.data as { approvalId: string }).approvalId === (executed.data as { approvalId: string }).approvalId)).toBe(true);
    const listed = (await (await api('/api/v1/approvals?kind=drain')).json()) as { items: { id: string; status: string; requestedBy: string; decidedBy: string; subject: string }[] };
    expect(listed.items).toEqual([expect.objectContaining({ id: (executed.data as { approvalId: string }).approvalId, status: 'executed', requestedBy: 'alice', decidedBy: 'alice', subject: 'busy-a' })]);
    // Every owner answers the unfiltered list: the optimizer's, the fence's and the drain's.
    const all = (await (await api('/api/v1/approvals?limit=100')).json()) as { items: { kind: string }[]; unavailable?: unknown };
    expect([new Set(all.items.map((i) => i.kind)), all.unavailable]).toEqual([new Set(['optimize', 'fence', 'drain']), undefined]);
    expect(await db.query(`SELECT 1 FROM nodes.drain_approvals`)).toHaveLength(1);
  });
});
