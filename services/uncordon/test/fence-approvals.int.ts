import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { FENCING_LABEL, type CloudEvent } from '@nodes-manager/contracts';
import { ApprovalStore, createDataSource, FakeClock, JsonLogger, Outbox, SystemClock } from '@nodes-manager/platform';
import { createTestDatabase, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { nodePoolOf } from '@nodes-manager/kube';
import { DrainRepository } from '../src/drain/drain.repository.js';
import { entities, FENCE_APPROVALS_TABLE } from '../src/adapters/outbound/uncordon.entities.js';
import { UncordonRepository } from '../src/auto-uncordon/uncordon.repository.js';
import { becomesLeader, startUncordon, type UncordonApp } from './uncordon.harness.js';

/**
 * Fence approvals (docs/fencing.md#approval) on real Postgres and the Kubernetes simulator: the uncordon service with
 * the gateway in one process, `DISRUPTION_APPROVAL=automatic,fence=manual`. spot-advisor is not in this process, so
 * an approved fence stops at its EC2 request: what is checked here is the gate, the approval's life and the intent
 * recorded with it, the claim between two replicas, and that a drain and its approval record are one transaction.
 */
const FLEET = generateFleet({ seed: 5, nodes: 12, karpenter: false });
const OPTED = FLEET.nodes.slice(0, 10).map((n) => n.metadata!.name!);
for (const n of FLEET.nodes) if (OPTED.includes(n.metadata!.name!)) n.metadata!.labels![FENCING_LABEL] = 'enabled';
const zoneOf = (node: string) => FLEET.nodes.find((n) => n.metadata!.name === node)!.metadata!.labels!['topology.kubernetes.io/zone']!;
const poolOf = (node: string) => nodePoolOf(FLEET.nodes.find((n) => n.metadata!.name === node)!.metadata!.labels!);
// Two hung nodes apart in zone and in pool: neither share (per zone, per pool) looks like a partition.
const [A, B] = [OPTED[0]!, OPTED.find((n) => zoneOf(n) !== zoneOf(OPTED[0]!) && poolOf(n) !== poolOf(OPTED[0]!))!];
/**
 * The service and the simulator share a fake clock (the kubelets stamp their Lease renewals with it): the fencing
 * evaluation runs every scan interval (1 s here) of it, as the test steps it.
 */
const clock = new FakeClock('2026-03-01T10:00:00Z');

describe('fence approvals (uncordon with the gateway, real Postgres, Kubernetes simulator)', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let app: UncordonApp;
  /** evaluations — `n` scan intervals pass: `n` fencing evaluations, each with what it set off. */
  const evaluations = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await clock.step(1_000);
      await app.settled();
    }
  };
  const events: CloudEvent[] = [];
  const call = async (path: string, init: { method?: string; body?: unknown } = {}, token = testToken('nodes:read nodes:write', 'alice')) => {
    const res = await fetch(`${app.url}${path}`, { method: init.method ?? 'GET', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const fenceApprovals = async (node: string) => ((await call(`/api/v1/approvals?kind=fence&limit=100`)).body.items as any[]).filter((a) => a.subject === node);
  const operations = (node: string) => db.query<{ id: string; actor: string; status: string; evidence: any }>(`SELECT id, actor, status, evidence FROM nodes.fencing_operations WHERE node_name = $1`, [node]);

  beforeAll(async () => {
    sim = await startKubeSim({ kubelet: { renewMs: 1_000 }, clock: () => clock.now(), timers: clock });
    sim.load(FLEET);
    db = await createTestDatabase('nm_fence_approvals');
    app = await startUncordon({ databaseUrl: db.url, kubeconfig: sim.kubeconfigPath, gateway: true, clock, env: { DISRUPTION_APPROVAL: 'automatic,fence=manual', APPROVAL_TTL_MINUTES: '30' } });
    app.runtime.eventBus!.tap((e) => void events.push(e));
    await becomesLeader(app);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await sim?.stop();
    await db?.drop();
  });

  it('a hung opted-in node gets one pending request (the node, its instance, why, until when) and no fence', async () => {
    sim.scenario.hangNode(A, { since: new Date(clock.now().getTime() - 3 * 60_000) });
    sim.scenario.hangNode(B, { since: new Date(clock.now().getTime() - 3 * 60_000) });
    const [a] = await waitFor(async () => (await evaluations(1), (await fenceApprovals(A)).length === 1 ? fenceApprovals(A) : undefined), 'a fence request for A', 20_000);
    const instanceId = FLEET.nodes.find((n) => n.metadata!.name === A)!.spec!.providerID!.split('/').pop()!;
    expect(a).toMatchObject({ kind: 'fence', service: 'uncordon', status: 'pending', subject: A, requestedBy: 'system:uncordon', nodes: [{ node: A, reason: 'hung', instanceId, evidence: { ready: 'Unknown', leaseStaleSeconds: expect.any(Number) } }] });
    expect(a.id).toMatch(/^fence-[0-9a-f-]{36}$/);
    expect(a.reason).toContain(instanceId);
    expect(Date.parse(a.expiresAt) - Date.parse(a.requestedAt)).toBe(30 * 60_000);
    await waitFor(async () => (await evaluations(1), (await fenceApprovals(B)).length === 1), 'a fence request for B', 20_000);
    await evaluations(3); // several evaluations: still one request per node, nothing fenced
    expect((await fenceApprovals(A)).length).toBe(1);
    expect(await operations(A)).toEqual([]);
    const verdict = (await call('/api/v1/fencing')).body.verdicts.find((v: any) => v.node === A);
    expect(verdict).toMatchObject({ decision: 'fence', reason: 'FENCE' });
    expect(verdict.message).toContain(`waits for approval ${a.id} (pending)`);
  });

  it('approval needs the write scope; approved, the fence intent is recorded as the approver in the transaction that ends it executed', async () => {
    const [a] = await fenceApprovals(A);
    expect((await call(`/api/v1/approvals/${a.id}/approve`, { method: 'POST', body: {} }, testToken('nodes:read', 'bob'))).status).toBe(403);
    expect((await call(`/api/v1/approvals/${a.id}/approve`, { method: 'POST', body: { comment: 'it is dead' } })).status).toBe(200);
    const done = await waitFor(async () => {
      await evaluations(1);
      const got = (await call(`/api/v1/approvals/${a.id}`)).body;
      return got.status === 'executed' ? got : undefined;
    }, 'the approval executed', 20_000);
    const [op] = await operations(A);
    expect(op).toMatchObject({ actor: 'alice', evidence: { approvalId: a.id } });
    expect(done).toMatchObject({ decidedBy: 'alice', comment: 'it is dead', results: [{ node: A, outcome: 'started', reason: 'fence', operationId: op!.id }] });
    // The event goes out through the outbox relay after the commit: wait for it, then make sure it stays one.
    const executed = () => events.filter((e) => e.type === 'approval.executed' && (e.data as any).approvalId === a.id);
    await waitFor(() => executed().length > 0 || undefined, 'approval.executed on the bus', 10_000);
    // More evaluations, and the outbox published to the end: still one.
    await evaluations(2);
    await waitFor(async () => (await db.query(`SELECT 1 FROM nodes.outbox_uncordon WHERE sent_at IS NULL`)).length === 0 || undefined, 'the outbox published');
    expect(executed()).toHaveLength(1);
    expect(await operations(A)).toHaveLength(1);
  });

  it('a rejected fence is not asked again for that node object', async () => {
    const [b] = await fenceApprovals(B);
    expect((await call(`/api/v1/approvals/${b.id}/reject`, { method: 'POST', body: {} })).status).toBe(200);
    await evaluations(3);
    expect((await fenceApprovals(B)).map((x) => [x.id, x.status])).toEqual([[b.id, 'rejected']]);
    expect(await operations(B)).toEqual([]);
    const verdict = (await call('/api/v1/fencing')).body.verdicts.find((v: any) => v.node === B);
    expect(verdict.message).toContain(`rejected (${b.id})`);
  });

  it('two replicas claiming one approved fence at once: exactly one wins', async () => {
    const make = async () => {
      const ds = createDataSource({ url: db.url, service: 'uncordon', entities, migrations: [] } as never);
      await ds.initialize();
      const store = new ApprovalStore({ ds, outbox: new Outbox('uncordon'), clock: new SystemClock(), logger: new JsonLogger('test', 'error'), service: 'uncordon', kind: 'fence', table: FENCE_APPROVALS_TABLE, rules: { distinctApprover: false }, ttlMinutes: 10 });
      return { ds, store };
    };
    const [one, two] = await Promise.all([make(), make()]);
    try {
      const a = await one.store.request({ subject: 'race-node', reason: 'race', planId: null, nodes: [{ node: 'race-node', nodePool: null, reason: 'hung' }], extra: { nodeUid: 'uid-race' } }, { actor: 'system:uncordon', correlationId: 'c1' });
      await two.store.decide(a.id, 'approve', { actor: 'dave', correlationId: 'c2' });
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).store.claim(a.id)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      // The loser of a race finishing late changes nothing: the row is no longer executing.
      await one.store.finish(a.id, [{ node: 'race-node', outcome: 'skipped', reason: 'node_gone', detail: 'gone' }], { actor: 'dave', correlationId: 'c3' });
      await expect(two.store.finish(a.id, [], { actor: 'dave', correlationId: 'c4' })).rejects.toMatchObject({ code: 'CONFLICT' });
      expect((await two.store.get(a.id)).status).toBe('failed');
    } finally {
      await one.ds.destroy();
      await two.ds.destroy();
    }
  });

  it('a manual drain is recorded with its approval in one transaction: executed, its operator requester and approver; a failure leaves neither', async () => {
    const node = FLEET.nodes[11]!.metadata!.name!;
    const res = await call(`/api/v1/nodes/${node}/drain`, { method: 'POST', body: { timeoutSeconds: 30 } });
    expect(res.status).toBe(202);
    const [rec] = (await call('/api/v1/approvals?kind=drain')).body.items as any[];
    expect(rec).toMatchObject({ kind: 'drain', status: 'executed', subject: node, requestedBy: 'alice', decidedBy: 'alice', results: [{ node, outcome: 'started', reason: 'manual_drain', operationId: res.body.id }] });
    expect(rec.id).toMatch(/^drain-/);
    const recorded = () => events.filter((e) => (e.data as any).approvalId === rec.id).map((e) => e.type);
    await waitFor(() => recorded().length >= 2 || undefined, "the drain approval's events on the bus", 10_000);
    expect(recorded()).toEqual(['approval.approved', 'approval.executed']);

    const ds = createDataSource({ url: db.url, service: 'uncordon', entities, migrations: [] } as never);
    await ds.initialize();
    try {
      const repo = new DrainRepository(ds, new UncordonRepository(ds));
      const id = randomUUID();
      const row = { id, node: 'atomic-node', status: 'pending' as const, actor: 'alice', correlationId: 'c5', options: { timeoutSeconds: 30, force: false, deleteEmptyDirData: false, ignoreDaemonSets: true }, progress: {}, startedAt: new Date() };
      await expect(repo.create(row, async () => Promise.reject(new Error('the approval record failed')))).rejects.toThrow('the approval record failed');
      expect(await db.query(`SELECT 1 FROM nodes.drain_operations WHERE id = $1`, [id])).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });
});
