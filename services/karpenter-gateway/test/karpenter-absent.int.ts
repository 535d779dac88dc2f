import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeClock, JsonLogger } from '@nodes-manager/platform';
import { testToken } from '@nodes-manager/platform/testing';
import { aNodePool } from './nodepool.builder.js';
import { startHarness, type Harness } from './harness.js';

const ABSENT_WARNING = 'Karpenter is not installed';
/** The discovery cache (KARPENTER_DISCOVERY_CACHE_SECONDS=1), on the harness's clock, which the test steps. */
const DISCOVERY_MS = 1_000;

describe('karpenter-gateway without Karpenter (through the REST API, fake clock)', () => {
  let h: Harness;
  const clock = new FakeClock(new Date());
  const logLines: string[] = [];
  let untap: (() => void) | undefined;
  const warnings = () => logLines.filter((l) => l.includes(ABSENT_WARNING) && l.includes('"level":"warn"')).length;

  beforeAll(async () => {
    untap = JsonLogger.tap((line) => logLines.push(line));
    h = await startHarness({ karpenter: false, clock });
  }, 60_000);
  afterAll(async () => {
    untap?.();
    await h?.stop();
  });

  it('lists answer empty, reads 404 KARPENTER_NOT_INSTALLED, writes 409 KARPENTER_NOT_INSTALLED_FOR_WRITE; nothing is written', async () => {
    expect(await h.call('GET', '/api/v1/nodepools')).toEqual({ status: 200, body: { items: [], karpenterInstalled: false } });
    expect(await h.call('GET', '/api/v1/nodepools/general/nodeclaims')).toEqual({ status: 200, body: { items: [], karpenterInstalled: false } });
    const get = await h.call('GET', '/api/v1/nodepools/general');
    expect(get.status).toBe(404);
    expect(get.body.code).toBe('KARPENTER_NOT_INSTALLED');

    const writes = [
      await h.call('POST', '/api/v1/nodepools', aNodePool()),
      await h.call('PATCH', '/api/v1/nodepools/general', { spec: { limits: { cpu: '10' } } }),
      await h.call('DELETE', '/api/v1/nodepools/general'),
      await h.call('POST', '/api/v1/nodepools/general/consolidate', { dryRun: true }),
      await h.call('POST', '/api/v1/nodepools/general/consolidate', { dryRun: false }),
    ];
    for (const w of writes) {
      expect(w.status).toBe(409);
      expect(w.body.code).toBe('KARPENTER_NOT_INSTALLED_FOR_WRITE');
    }
    expect(h.writesSeen()).toBe(0);
    expect(h.scheduler.calls).toHaveLength(0);
    // Refusals are recorded with the actor; nothing is published.
    const rows = await h.db.query<{ action: string; actor: string; result: string }>(`SELECT action, actor, result FROM nodes.nodepool_changes ORDER BY created_at`);
    expect(rows.map((r) => r.action).sort()).toEqual(['consolidate', 'consolidate', 'create', 'delete', 'update']);
    expect(rows.every((r) => r.actor === 'alice' && r.result === 'refused:KARPENTER_NOT_INSTALLED_FOR_WRITE')).toBe(true);
    expect(h.events.filter((e) => e.type.startsWith('nodepool.'))).toEqual([]);
  });

  it('an invalid NodePool is still a 400 (validation comes first), a read-only token a 403', async () => {
    const bad = await h.call('POST', '/api/v1/nodepools', aNodePool({ spec: { weight: 0 } }));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('spec.weight');
    const ro = await h.call('POST', '/api/v1/nodepools', aNodePool(), testToken('nodes:read'));
    expect(ro.status).toBe(403);
  });

  it('logs one warning for the absence, not one per request', async () => {
    for (let i = 0; i < 5; i++) await h.call('GET', '/api/v1/nodepools');
    expect(warnings()).toBe(1);
  });

  it('an API server that fails is an UPSTREAM_ERROR (502), never mistaken for "not installed"', async () => {
    h.sim.faults.set({ rate500: 1 });
    try {
      // Past the 1 s cache, discovery itself fails.
      await clock.step(DISCOVERY_MS);
      const res = await h.call('GET', '/api/v1/nodepools');
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('UPSTREAM_ERROR');
      expect(res.body).not.toHaveProperty('karpenterInstalled');
      expect((await h.call('POST', '/api/v1/nodepools', aNodePool())).status).toBe(502);
    } finally {
      h.sim.faults.clear();
    }
    expect((await h.call('GET', '/api/v1/nodepools')).body).toEqual({ items: [], karpenterInstalled: false });
    expect(warnings()).toBe(1);
  });

  it('notices Karpenter being installed, and removed again, without a restart (within the 1 s discovery cache)', async () => {
    // The last discovery (the end of the test before) is fresh: until it is a second old, the answer is the cached one.
    h.sim.scenario.installKarpenter();
    const installedAt = clock.now().getTime();
    await clock.step(DISCOVERY_MS - 1);
    expect((await h.call('GET', '/api/v1/nodepools')).body.karpenterInstalled).toBe(false);
    await clock.step(1);
    expect((await h.call('GET', '/api/v1/nodepools')).body.karpenterInstalled).toBe(true);
    // The discovery cache is 1 s: the same running process serves Karpenter within that.
    expect(clock.now().getTime() - installedAt).toBeLessThan(3_000);
    const created = await h.call('POST', '/api/v1/nodepools', aNodePool());
    expect(created.status).toBe(201);
    const list = await h.call('GET', '/api/v1/nodepools');
    expect(list.body.items.map((p: { name: string }) => p.name)).toEqual(['general']);
    expect((await h.call('GET', '/api/v1/nodepools/general')).status).toBe(200);

    h.sim.scenario.removeKarpenter();
    // A read that races the cache re-checks discovery on the API server's 404, so it never answers a stale "not found".
    const get = await h.call('GET', '/api/v1/nodepools/general');
    expect(get.status).toBe(404);
    expect(get.body.code).toBe('KARPENTER_NOT_INSTALLED');
    await clock.step(DISCOVERY_MS);
    expect((await h.call('GET', '/api/v1/nodepools')).body.karpenterInstalled).toBe(false);
    expect(warnings()).toBe(2);
  });
});
