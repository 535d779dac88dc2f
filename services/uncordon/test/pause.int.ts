import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CloudEvent } from '@nodes-manager/contracts';
import { FakeClock, PAUSE_GATE, type PauseGate } from '@nodes-manager/platform';
import { createTestDatabase, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { becomesLeader, startUncordon, type UncordonApp } from './uncordon.harness.js';

/**
 * The pause's owner (docs/pause.md) with the gateway, on real Postgres: the routes (write scope, 400 naming the field,
 * who paused from the token's sub), the changes and their events, a drain refused while paused, the end at `until`
 * on the fake clock, and a resume that is safe to retry.
 */
const clock = new FakeClock('2026-03-01T10:00:00Z');
const inMin = (m: number) => new Date(clock.now().getTime() + m * 60_000).toISOString();

describe('the pause, kept by uncordon, through the gateway', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let app: UncordonApp;
  const events: CloudEvent[] = [];
  const call = async (method: string, path: string, body?: unknown, token = testToken('nodes:read nodes:write', 'alice')) => {
    const res = await fetch(`${app.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const gate = () => app.app.get<PauseGate>(PAUSE_GATE, { strict: false });

  beforeAll(async () => {
    sim = await startKubeSim({ clock: () => clock.now(), timers: clock });
    sim.load(generateFleet({ seed: 3, nodes: 4, karpenter: false }));
    db = await createTestDatabase('nm_pause');
    app = await startUncordon({ databaseUrl: db.url, kubeconfig: sim.kubeconfigPath, gateway: true, clock });
    app.runtime.eventBus!.tap((e) => void events.push(e));
    await becomesLeader(app);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await sim?.stop();
    await db?.drop();
  });

  it('answers running; refuses a pause without the write scope (403) and a bad one naming the field (400)', async () => {
    expect((await call('GET', '/api/v1/pause')).body).toMatchObject({ paused: false, pause: null, changes: [] });
    expect((await call('POST', '/api/v1/pause', { reason: 'x' }, testToken('nodes:read', 'rita'))).status).toBe(403);
    const cases: [unknown, string][] = [
      [{}, 'reason'],
      [{ reason: '' }, 'reason'],
      [{ reason: 'x', until: 'tomorrow' }, 'until'],
      [{ reason: 'x', until: inMin(-5) }, 'until'],
      [{ reason: 'x', until: inMin(31 * 24 * 60) }, 'until'],
      [{ reason: 'x', scope: 'everything' }, 'scope'],
      [{ reason: 'x', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const r = await call('POST', '/api/v1/pause', body);
      expect([JSON.stringify(body), r.status, r.body.code]).toEqual([JSON.stringify(body), 400, 'VALIDATION_FAILED']);
      expect(r.body.details.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await call('GET', '/api/v1/pause')).body.changes).toEqual([]);
  });

  it('pauses as the caller: recorded, published, every drain refused (409 paused) and the gate closed', async () => {
    const until = inMin(0.05); // 3 s of the fake clock: the scan interval is 1 s, each step runs every controller
    const r = await call('POST', '/api/v1/pause', { reason: 'CNI rollout misbehaving', until });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ paused: true, pause: { reason: 'CNI rollout misbehaving', scope: 'disruptive', pausedBy: 'alice', until, source: 'api' } });
    await waitFor(() => events.find((e) => e.type === 'disruptions.paused'), 'disruptions.paused');
    expect(events.find((e) => e.type === 'disruptions.paused')).toMatchObject({ actor: 'alice', data: { pausedBy: 'alice', until } });
    expect(await gate().check('drain')).toMatchObject({ go: false, reason: 'paused' });
    expect(await gate().check('uncordon')).toEqual({ go: true });
    const node = sim.objects('nodes')[0]!.metadata!.name!;
    const drain = await call('POST', `/api/v1/nodes/${node}/drain`, {});
    expect([drain.status, drain.body.code, drain.body.details?.reason]).toEqual([409, 'CONFLICT', 'paused']);
  });

  it('ends by itself at until (on the clock): recorded as expired by the system, disruptions.resumed', async () => {
    await clock.step(3_000);
    await waitFor(() => events.find((e) => e.type === 'disruptions.resumed'), 'disruptions.resumed at until', 15_000);
    expect(events.find((e) => e.type === 'disruptions.resumed')).toMatchObject({ data: { resumedBy: 'system:uncordon', why: 'expired', pause: { pausedBy: 'alice' } } });
    const view = (await call('GET', '/api/v1/pause')).body;
    expect(view).toMatchObject({ paused: false, pause: null });
    expect(view.changes.map((c: { action: string; source: string; actor: string }) => [c.action, c.source, c.actor])).toEqual([
      ['resume', 'expiry', 'system:uncordon'],
      ['pause', 'api', 'alice'],
    ]);
    expect(await gate().check('drain')).toEqual({ go: true });
  }, 30_000);

  it('DELETE resumes as the caller; again, it records nothing and answers the same state', async () => {
    expect((await call('POST', '/api/v1/pause', { reason: 'second', scope: 'all' })).body.pause).toMatchObject({ scope: 'all', until: null });
    expect(await gate().check('uncordon')).toMatchObject({ go: false });
    expect((await call('DELETE', '/api/v1/pause', undefined, testToken('nodes:read', 'rita'))).status).toBe(403);
    const first = await call('DELETE', '/api/v1/pause', undefined, testToken('nodes:read nodes:write', 'bob'));
    expect(first.body).toMatchObject({ paused: false, changes: [expect.objectContaining({ action: 'resume', actor: 'bob', source: 'api' }), expect.anything(), expect.anything(), expect.anything()] });
    const again = await call('DELETE', '/api/v1/pause', undefined, testToken('nodes:read nodes:write', 'bob'));
    expect(again.body.changes).toHaveLength(4);
    await waitFor(() => events.filter((e) => e.type === 'disruptions.resumed').length === 2 || undefined, 'the second disruptions.resumed');
    expect(events.filter((e) => e.type === 'disruptions.resumed')[1]).toMatchObject({ actor: 'bob', data: { why: 'operator', pause: { reason: 'second' } } });
  });
});
