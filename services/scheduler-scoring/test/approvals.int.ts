import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { ApprovalStore, createDataSource, FakeClock, JsonLogger, Outbox } from '@nodes-manager/platform';
import { testToken, waitFor } from '@nodes-manager/platform/testing';
import { entities, OPTIMIZE_APPROVALS } from '../src/adapters/outbound/scheduler-scoring.entities.js';
import { busyPair, startHarness, type Harness } from './harness.js';
import { aKubeNode, aKubePod } from '@nodes-manager/kube/testing';

/**
 * OPTIMIZE_MODE=execute with DISRUPTION_APPROVAL=manual and a nightly window (02:00–05:00 UTC), on a fake clock:
 * two busy nodes and two idle ones (`idle-web`, `idle-api`) the plan removes. The loop runs every 45 s of the clock,
 * which the test steps.
 */
function fleet() {
  const busy = busyPair();
  return {
    nodes: [
      ...busy.nodes,
      aKubeNode('idle-web', { nodePool: 'general' }),
      aKubeNode('idle-api', { zone: 'us-east-1b', nodePool: 'general' }),
    ],
    pods: [...busy.pods, aKubePod('web-2', 'idle-web', { app: 'web', cpu: '200m', memory: '256Mi' }), aKubePod('api-1', 'idle-api', { app: 'api', cpu: '300m', memory: '512Mi' })],
  };
}

const MIN = 60_000;
/** Not a divisor of the TTL: a deadline never falls on an interval, so only the exact requeue can expire a request on time. */
const SCAN_MS = 45_000;
const TTL_MS = 10 * MIN;

describe('approvals of optimizer drains (all-in-one, real Postgres, Kubernetes simulator, fake clock)', () => {
  let h: Harness;
  const clock = new FakeClock('2026-03-11T00:30:00Z'); // outside the 02:00 UTC window
  const readOnly = testToken('nodes:read', 'bob');
  const cordoned = async () => {
    const core = h.sim.kubeConfig('test-reader').makeApiClient(k8s.CoreV1Api);
    return (await core.listNode()).items.filter((n) => n.spec?.unschedulable).map((n) => n.metadata!.name!);
  };
  const pending = async () => (await h.call('GET', '/api/v1/approvals?status=pending')).body.items as any[];

  beforeAll(async () => {
    h = await startHarness(
      fleet(),
      { SCAN_INTERVAL_SECONDS: String(SCAN_MS / 1000), OPTIMIZE_MODE: 'execute', OPTIMIZE_MAX_DISRUPTIONS: '2', DISRUPTION_APPROVAL: 'manual', DISRUPTION_WINDOWS: '0 2 * * * 3h UTC', APPROVAL_TTL_MINUTES: String(TTL_MS / MIN) },
      { clock },
    );
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('asks for approval instead of draining: the nodes, their pods and where they go, savings, the plan, the deadline', async () => {
    await waitFor(async () => (await pending()).length === 1, 'an approval request', 20_000);
    const [a] = await pending();
    expect(a).toMatchObject({ kind: 'optimize', service: 'scheduler-scoring', status: 'pending', subject: 'cluster', requestedBy: 'system:scheduler-scoring', expiresAt: new Date(clock.now().getTime() + TTL_MS).toISOString() });
    expect(a.id).toMatch(/^optimize-[0-9a-f-]{36}$/);
    expect(a.nodes.map((n: any) => n.node).sort()).toEqual(['idle-api', 'idle-web']);
    expect(a.nodes.find((n: any) => n.node === 'idle-web')).toMatchObject({ nodePool: 'general', reason: 'underutilized', pods: [{ pod: 'default/web-2', to: expect.any(String) }] });
    expect(a.reason).toMatch(/drain 2 nodes .* saving \$/);
    expect(a.planId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.hourlySavingsUsd).toBeGreaterThan(0);
    expect((await h.call('GET', `/api/v1/approvals/${a.id}`)).body).toEqual(a);
    await waitFor(() => h.events.some((e) => e.type === 'approval.requested' && (e.data as any).approvalId === a.id), 'approval.requested');
    // Several loop passes later: still the one request, nothing cordoned or evicted.
    await clock.step(3 * SCAN_MS);
    expect((await pending()).map((p) => p.id)).toEqual([a.id]);
    expect(h.uncordon.drains).toEqual([]);
    expect(await cordoned()).toEqual([]);
  });

  it('refuses approval without the write scope (403), and refuses a malformed id (400)', async () => {
    const [a] = await pending();
    expect((await h.call('POST', `/api/v1/approvals/${a.id}/approve`, {}, readOnly)).status).toBe(403);
    const bad = await h.call('POST', `/api/v1/approvals/not-an-id/approve`, {});
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await h.call('GET', `/api/v1/approvals/consolidate-0b7f3c3e-8c1a-4a55-9f0e-1d2c3b4a5f60`)).status).toBe(503); // karpenter-gateway is not in this process
    expect((await h.call('GET', `/api/v1/approvals/${a.id}`)).body.status).toBe('pending');
  });

  it('lets an approval left alone expire exactly at its deadline, not a millisecond before, and nothing happens', async () => {
    const [a] = await pending();
    const status = async () => (await h.call('GET', `/api/v1/approvals/${a.id}`)).body.status;
    const left = new Date(a.expiresAt).getTime() - clock.now().getTime();
    await clock.step(left - 1);
    expect(await status()).toBe('pending');
    await clock.step(1);
    expect(await status()).toBe('expired');
    await waitFor(() => h.events.some((e) => e.type === 'approval.expired' && (e.data as any).approvalId === a.id), 'approval.expired');
    const late = await h.call('POST', `/api/v1/approvals/${a.id}/approve`, {});
    expect([late.status, late.body.code]).toEqual([409, 'CONFLICT']);
    expect(h.uncordon.drains).toEqual([]);
    expect(await cordoned()).toEqual([]);
  });

  it('an approved request waits outside the window, then drains within a scan interval of the window opening, re-checking each node', async () => {
    // The next loop cycle asks again.
    await clock.step(SCAN_MS);
    expect(await pending()).toHaveLength(1);
    const [a] = await pending();
    const ok = await h.call('POST', `/api/v1/approvals/${a.id}/approve`, { comment: 'go at night' });
    expect([ok.status, ok.body.status, ok.body.decidedBy, ok.body.comment]).toEqual([200, 'approved', 'alice', 'go at night']);
    expect((await h.call('POST', `/api/v1/approvals/${a.id}/approve`, {})).status).toBe(409);
    await clock.step(2 * SCAN_MS);
    expect((await h.call('GET', `/api/v1/approvals/${a.id}`)).body.status).toBe('approved');
    expect(h.uncordon.drains).toEqual([]);
    // Someone cordons idle-api meanwhile: at execution it no longer holds and is skipped with its reason.
    await h.sim.kubeConfig('kubectl').makeApiClient(k8s.CoreV1Api).patchNode({ name: 'idle-api', body: { spec: { unschedulable: true } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    // The window opens: within one scan interval the approved drains run.
    clock.set('2026-03-11T02:05:00Z');
    await clock.step(SCAN_MS);
    expect((await h.call('GET', `/api/v1/approvals/${a.id}`)).body.status).toBe('executed');
    const done = (await h.call('GET', `/api/v1/approvals/${a.id}`)).body;
    expect(done.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ node: 'idle-web', outcome: 'started', reason: 'planned_removal', operationId: expect.any(String) }),
        expect.objectContaining({ node: 'idle-api', outcome: 'skipped', reason: 'already_cordoned' }),
      ]),
    );
    expect(h.uncordon.drains.map((d) => [d.data.node, d.meta.actor])).toEqual([['idle-web', 'alice']]);
    await waitFor(() => h.events.some((e) => e.type === 'approval.executed' && (e.data as any).approvalId === a.id && (e.data as any).status === 'executed'), 'approval.executed');
    const listed = (await h.call('GET', '/api/v1/approvals?status=executed')).body.items.map((x: any) => x.id);
    expect(listed).toEqual([a.id]);
  });

  it('pages the list newest first with a cursor, and refuses a forged cursor', async () => {
    const all = (await h.call('GET', '/api/v1/approvals?limit=100')).body.items.map((x: any) => x.id);
    expect(all.length).toBeGreaterThanOrEqual(2);
    const first = await h.call('GET', '/api/v1/approvals?limit=1');
    expect(first.body.items.map((x: any) => x.id)).toEqual([all[0]]);
    const second = await h.call('GET', `/api/v1/approvals?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((x: any) => x.id)).toEqual([all[1]]);
    expect((await h.call('GET', '/api/v1/approvals?cursor=bm9wZQ')).status).toBe(400);
    expect((await h.call('GET', '/api/v1/approvals?status=maybe')).status).toBe(400);
  });

  it('two replicas claiming one approved request at once: exactly one wins', async () => {
    const make = async () => {
      const ds = createDataSource({ url: h.db.url, service: 'scheduler-scoring', entities, migrations: [] } as never);
      await ds.initialize();
      const store = new ApprovalStore({ ds, outbox: new Outbox('scheduler-scoring'), clock, logger: new JsonLogger('test', 'error'), service: 'scheduler-scoring', kind: 'optimize', table: OPTIMIZE_APPROVALS, rules: { distinctApprover: true }, ttlMinutes: 10 });
      return { ds, store };
    };
    const [one, two] = await Promise.all([make(), make()]);
    try {
      const a = await one.store.request({ subject: 'race-test', reason: 'race', planId: null, nodes: [] }, { actor: 'carol', correlationId: 'c1' });
      await expect(one.store.decide(a.id, 'approve', { actor: 'carol', correlationId: 'c2' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await two.store.decide(a.id, 'approve', { actor: 'dave', correlationId: 'c3' });
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).store.claim(a.id)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      await one.store.finish(a.id, [], { actor: 'dave', correlationId: 'c4' });
      expect((await two.store.get(a.id)).status).toBe('failed');
    } finally {
      await one.ds.destroy();
      await two.ds.destroy();
    }
  });
});
