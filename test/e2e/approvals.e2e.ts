import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { createTestDatabase, EventCollector, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { aKubeNode, aKubePod } from '@nodes-manager/kube/testing';
import { splitSystemEnv } from '../support/split-system.js';
import { startSplitSystem, type SplitSystem } from './harness.js';

/**
 * OPTIMIZE_MODE=execute with DISRUPTION_APPROVAL=manual, the six services as separate processes on the real broker
 * and database: the optimizer asks, nothing is cordoned or evicted until an operator approves, then the uncordon
 * service drains within a scan interval.
 */
let db: TestDatabase;
let kube: KubeSim;
let system: SplitSystem;
let events: EventCollector;

function fleet() {
  const busy = (node: string) => Array.from({ length: 9 }, (_, i) => aKubePod(`core-${node}-${i}`, node, { app: 'core', cpu: '500m', memory: '1Gi' }));
  return {
    nodes: [aKubeNode('busy-a', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi' }), aKubeNode('busy-b', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi', zone: 'us-east-1b' }), aKubeNode('idle-web', { nodePool: 'general' })],
    pods: [...busy('busy-a'), ...busy('busy-b'), aKubePod('web-2', 'idle-web', { app: 'web', cpu: '200m', memory: '256Mi' })],
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ podTerminationMs: 50 });
  kube.load(fleet() as never);
  events = await EventCollector.start(['approval.#', 'node.drain.#']);
  system = await startSplitSystem({
    env: splitSystemEnv({ databaseUrl: db.url, kube }, { COMMAND_TIMEOUT_MS: '5000' }),
    perService: { 'scheduler-scoring': { OPTIMIZE_MODE: 'execute', DISRUPTION_APPROVAL: 'manual', APPROVAL_TTL_MINUTES: '30' } },
  });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await events?.close();
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
});
