import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DAY_MS, startRetention, testEnv, type RetentionHarness } from '@nodes-manager/platform/testing';
import { migrations } from '../../../migrations/scheduler-scoring/index.js';
import { entities } from '../src/adapters/outbound/scheduler-scoring.entities.js';
import { loadSchedulerScoringConfig } from '../src/config.js';
import { schedulerScoringRetention } from '../src/retention.js';

/**
 * scheduler-scoring's retention on its migrated schema (docs/retention.md): plans after 3 days unless an open approval
 * references them, decisions after 14, approvals after 90 unless open.
 */
const config = loadSchedulerScoringConfig(testEnv('postgres://unused/x'));
let h: RetentionHarness;

beforeAll(async () => {
  h = await startRetention({ service: 'scheduler-scoring', entities, migrations, spec: schedulerScoringRetention, config });
});
afterAll(async () => {
  await h?.stop();
});

describe('scheduler-scoring retention', () => {
  it("every rule's time column leads an index", async () => {
    expect(await h.unindexed()).toEqual([]);
  });

  it('deletes decisions, plans and approvals past their retention, keeping a plan an open approval references', async () => {
    await h.row('scheduling_decisions', { subject: 'decided' });
    const done = await h.row('consolidation_plans', { status: 'executed', node_pool: 'done', plan: '{}' });
    const waiting = await h.row('consolidation_plans', { status: 'planned', node_pool: 'awaiting approval', plan: '{}' });
    const decided = await h.row('consolidation_plans', { status: 'planned', node_pool: 'rejected', plan: '{}' });
    await h.row('optimize_approvals', { id: 'open', status: 'pending', plan_id: waiting['id'] });
    await h.row('optimize_approvals', { id: 'closed', status: 'rejected', plan_id: decided['id'] });
    expect(done['id']).toBeDefined();

    await h.stepPast(3 * DAY_MS - 60_000);
    expect(await h.left('consolidation_plans', 'node_pool')).toEqual(['awaiting approval', 'done', 'rejected']);
    await h.stepPast(2 * DAY_MS);
    expect(await h.left('consolidation_plans', 'node_pool')).toEqual(['awaiting approval']);
    expect(await h.left('scheduling_decisions', 'subject')).toEqual(['decided']);
    await h.stepPast(10 * DAY_MS);
    expect(await h.left('scheduling_decisions', 'subject')).toEqual([]);
    await h.stepPast(80 * DAY_MS);
    expect(await h.left('optimize_approvals', 'id')).toEqual(['open']);
    expect(await h.left('consolidation_plans', 'node_pool')).toEqual(['awaiting approval']);

    // Once its approval is decided, the plan goes at the next pass.
    await h.ds.query(`UPDATE nodes.optimize_approvals SET status = 'expired' WHERE id = 'open'`);
    await h.stepPast(60 * 60_000);
    expect(await h.left('consolidation_plans', 'node_pool')).toEqual([]);
    expect(await h.deleted('consolidation_plans')).toBe(3);
    expect(await h.deleted('scheduling_decisions')).toBe(1);
  });
});
