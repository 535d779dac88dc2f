import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeClock } from '@nodes-manager/platform';
import { testToken, waitFor } from '@nodes-manager/platform/testing';
import { aNodeClaim, aNodePool } from './nodepool.builder.js';
import { aNode, startHarness, type Harness } from './harness.js';

const SCAN_MS = 60_000;

/**
 * DISRUPTION_APPROVAL=manual for consolidations, with distinct approvers and a window for pool `general` only
 * (02:00–05:00 UTC), on a fake clock that starts outside it. The approvals controller lists the approvals in play
 * every minute of the clock, which the test steps.
 */
describe('approvals of NodePool consolidations (through the REST API, fake clock)', () => {
  let h: Harness;
  const clock = new FakeClock('2026-03-11T00:30:00Z');
  const bob = testToken('nodes:read nodes:write', 'bob');
  const deletes = () => h.sim.stats().byVerbResource['delete nodeclaims'] ?? 0;

  beforeAll(async () => {
    h = await startHarness({
      karpenter: true,
      clock,
      env: { SCAN_INTERVAL_SECONDS: String(SCAN_MS / 1000), DISRUPTION_APPROVAL: 'automatic,consolidate=manual', APPROVAL_DISTINCT_APPROVER: 'true', DISRUPTION_WINDOWS: '0 2 * * * 3h UTC nodePool=general', APPROVAL_TTL_MINUTES: '60' },
    });
    expect((await h.call('POST', '/api/v1/nodepools', aNodePool({ spec: { disruption: { budgets: [{ nodes: '5' }] } } }))).status).toBe(201);
    h.sim.load({
      nodes: [aNode('node-0', 'general'), aNode('node-1', 'general'), aNode('node-2', 'general')] as never,
      nodeClaims: [aNodeClaim('claim-0', 'general', 'node-0'), aNodeClaim('claim-1', 'general', 'node-1'), aNodeClaim('claim-2', 'general', 'node-2')],
    });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('asks for approval instead of deleting, approves only with another approver, waits for the window, then re-checks and deletes', async () => {
    h.scheduler.planRemoving(['node-0', 'node-1']);
    const before = deletes();
    const asked = await h.call('POST', '/api/v1/nodepools/general/consolidate', { dryRun: false });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ dryRun: false, nodeClaims: [], approval: { id: expect.stringMatching(/^consolidate-/), status: 'pending' } });
    const id = asked.body.approval.id as string;
    const a = (await h.call('GET', `/api/v1/approvals/${id}`)).body;
    expect(a).toMatchObject({ kind: 'consolidate', service: 'karpenter-gateway', subject: 'general', requestedBy: 'alice', status: 'pending' });
    expect(a.nodes.map((n: any) => [n.node, n.nodeClaim])).toEqual([['node-0', 'claim-0'], ['node-1', 'claim-1']]);
    expect(deletes()).toBe(before);

    // One open request per pool.
    expect((await h.call('POST', '/api/v1/nodepools/general/consolidate', { dryRun: false })).status).toBe(409);
    // The requester may not approve it; someone else may.
    const own = await h.call('POST', `/api/v1/approvals/${id}/approve`, {});
    expect([own.status, own.body.code]).toEqual([403, 'FORBIDDEN']);
    const ok = await h.call('POST', `/api/v1/approvals/${id}/approve`, {}, bob);
    expect([ok.status, ok.body.status, ok.body.decidedBy]).toEqual([200, 'approved', 'bob']);

    // Outside the pool's window nothing happens: not at the approval, not at the listings after it.
    await h.controllersSettled();
    await clock.step(2 * SCAN_MS);
    expect((await h.call('GET', `/api/v1/approvals/${id}`)).body.status).toBe('approved');
    expect(deletes()).toBe(before);

    // Meanwhile the plan changed: node-1 is no longer a removal. Inside the window only node-0 goes.
    h.scheduler.planRemoving(['node-0']);
    // The window opens: within one listing interval the approved consolidation runs.
    clock.set('2026-03-11T02:10:00Z');
    await clock.step(SCAN_MS);
    expect((await h.call('GET', `/api/v1/approvals/${id}`)).body.status).toBe('executed');
    const done = (await h.call('GET', `/api/v1/approvals/${id}`)).body;
    expect(done.results).toEqual([
      expect.objectContaining({ node: 'node-0', outcome: 'started', nodeClaim: 'claim-0' }),
      expect.objectContaining({ node: 'node-1', outcome: 'skipped', reason: 'no_longer_planned' }),
    ]);
    expect(deletes()).toBe(before + 1);
    await waitFor(() => h.events.some((e) => e.type === 'approval.executed' && (e.data as any).approvalId === id), 'approval.executed');
    expect((await h.call('GET', '/api/v1/approvals?kind=consolidate')).body.items.map((x: any) => x.id)).toEqual([id]);
  });

  it('a consolidation rejected is never carried out', async () => {
    h.scheduler.planRemoving(['node-2']);
    const before = deletes();
    const asked = await h.call('POST', '/api/v1/nodepools/general/consolidate', { dryRun: false });
    const id = asked.body.approval.id as string;
    const no = await h.call('POST', `/api/v1/approvals/${id}/reject`, { comment: 'not today' }, bob);
    expect([no.status, no.body.status, no.body.comment]).toEqual([200, 'rejected', 'not today']);
    await h.controllersSettled();
    await clock.step(2 * SCAN_MS);
    expect(deletes()).toBe(before);
    expect((await h.call('POST', `/api/v1/approvals/${id}/approve`, {}, bob)).status).toBe(409);
  });
});
