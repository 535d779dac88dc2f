import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DAY_MS, startRetention, testEnv, type RetentionHarness } from '@nodes-manager/platform/testing';
import { migrations } from '../../../migrations/uncordon/index.js';
import { entities } from '../src/adapters/outbound/uncordon.entities.js';
import { loadUncordonConfig } from '../src/config.js';
import { uncordonRetention } from '../src/retention.js';

/**
 * uncordon's retention on its migrated schema (docs/retention.md): rows past their table's retention go when the
 * Clock steps past it; what a rule keeps (a running drain, a fence under way, an unresolved rebalance, an open
 * approval, the pause in force) stays; a long backlog goes in bounded batches, counted.
 */
const config = loadUncordonConfig(testEnv('postgres://unused/x', { RETENTION_BATCH_SIZE: '100', RETENTION_INTERVAL_MINUTES: '60' }));
let h: RetentionHarness;

beforeAll(async () => {
  h = await startRetention({ service: 'uncordon', entities, migrations, spec: uncordonRetention, config });
});
afterAll(async () => {
  await h?.stop();
});

describe('uncordon retention', () => {
  it("every rule's time column leads an index", async () => {
    expect(await h.unindexed()).toEqual([]);
  });

  it('deletes each table\'s rows past its retention when the Clock steps past it, and keeps what is still needed', async () => {
    const now = () => h.clock.now();
    // Made now: scaling events (30 days), drains finished now (30), a running drain, fences (90), the ledger (60),
    // approvals (90), pause changes (365).
    await h.row('scaling_events', { node_name: 'old' });
    const finished = await h.row('drain_operations', { node_name: 'finished', status: 'succeeded', finished_at: now() });
    const running = await h.row('drain_operations', { node_name: 'running', status: 'running' });
    await h.row('fencing_operations', { node_name: 'fenced', status: 'stopped', finished_at: now() });
    await h.row('fencing_operations', { node_name: 'fencing', status: 'ec2_requested' });
    await h.row('rebalance_ledger', { node_name: 'resolved', outcome: 'interrupted', resolved_at: now() });
    await h.row('rebalance_ledger', { node_name: 'open', outcome: 'open' });
    await h.row('spot_interruptions', { node_name: 'interrupted', evidence: '[]' });
    await h.row('fence_approvals', { id: 'decided', status: 'rejected' });
    await h.row('fence_approvals', { id: 'pending', status: 'pending' });
    await h.row('drain_approvals', { id: 'executed', status: 'executed' });
    await h.row('disruption_pause', { action: 'pause', scope: 'disruptive', source: 'configuration', reason: 'by configuration' });
    await h.row('disruption_pause', { action: 'pause', scope: 'all', source: 'api', reason: 'old api pause' });
    await h.row('disruption_pause', { action: 'resume', source: 'api', reason: 'in force' });

    await h.stepPast(30 * DAY_MS - 60_000);
    expect(await h.left('scaling_events', 'node_name')).toEqual(['old']);
    expect(await h.left('drain_operations', 'node_name')).toEqual(['finished', 'running']);

    await h.stepPast(2 * DAY_MS);
    expect(await h.left('scaling_events', 'node_name')).toEqual([]);
    expect(await h.left('drain_operations', 'id')).toEqual([running['id']]);
    expect(finished['id']).not.toEqual(running['id']);
    expect(await h.left('fencing_operations', 'node_name')).toEqual(['fenced', 'fencing']);
    expect(await h.left('rebalance_ledger', 'node_name')).toEqual(['open', 'resolved']);

    expect(await h.left('spot_interruptions', 'node_name')).toEqual(['interrupted']);
    await h.stepPast(30 * DAY_MS);
    expect(await h.left('rebalance_ledger', 'node_name')).toEqual(['open']);
    expect(await h.left('spot_interruptions', 'node_name')).toEqual([]);
    expect(await h.left('fence_approvals', 'id')).toEqual(['decided', 'pending']);

    await h.stepPast(30 * DAY_MS);
    expect(await h.left('fencing_operations', 'node_name')).toEqual(['fencing']);
    expect(await h.left('fence_approvals', 'id')).toEqual(['pending']);
    expect(await h.left('drain_approvals', 'id')).toEqual([]);
    expect(await h.left('disruption_pause', 'reason')).toEqual(['by configuration', 'in force', 'old api pause']);

    await h.stepPast(300 * DAY_MS);
    // The pause in force and the last one by configuration stay, however old.
    expect(await h.left('disruption_pause', 'reason')).toEqual(['by configuration', 'in force']);
    for (const t of ['scaling_events', 'drain_operations', 'fencing_operations', 'rebalance_ledger', 'spot_interruptions', 'fence_approvals', 'drain_approvals', 'disruption_pause']) {
      expect([t, await h.deleted(t)]).toEqual([t, 1]);
    }
  });

  it('deletes a backlog in batches of RETENTION_BATCH_SIZE, one second apart, and counts every row', async () => {
    const before = await h.deleted('scaling_events');
    await h.ds.query(
      `INSERT INTO nodes.scaling_events (id, node_name, action, reason, actor, created_at)
       SELECT gen_random_uuid(), 'n' || i, 'uncordon', 'r', 'a', $1 FROM generate_series(1, 250) i`,
      [h.daysAgo(31)],
    );
    await h.row('scaling_events', { node_name: 'young' });
    await h.controller.request('scaling_events');
    expect((await h.left('scaling_events', 'node_name')).length).toBe(151);
    await h.clock.step(1_000);
    await h.controller.settled();
    expect((await h.left('scaling_events', 'node_name')).length).toBe(51);
    await h.clock.step(1_000);
    await h.controller.settled();
    expect(await h.left('scaling_events', 'node_name')).toEqual(['young']);
    expect((await h.deleted('scaling_events')) - before).toBe(250);
  });
});
