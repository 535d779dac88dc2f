import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DAY_MS, startRetention, testEnv, type RetentionHarness } from '@nodes-manager/platform/testing';
import { migrations } from '../../../migrations/karpenter-gateway/index.js';
import { entities } from '../src/adapters/outbound/karpenter-gateway.entities.js';
import { loadKarpenterGatewayConfig } from '../src/config.js';
import { karpenterGatewayRetention } from '../src/retention.js';

/** karpenter-gateway's retention on its migrated schema (docs/retention.md), with the variables set shorter than their defaults. */
const config = loadKarpenterGatewayConfig(
  testEnv('postgres://unused/x', { RETENTION_NODEPOOL_CHANGES_DAYS: '10', RETENTION_POOL_HEALTH_TRANSITIONS_DAYS: '5', RETENTION_APPROVALS_DAYS: '20' }),
);
let h: RetentionHarness;

beforeAll(async () => {
  h = await startRetention({ service: 'karpenter-gateway', entities, migrations, spec: karpenterGatewayRetention, config });
});
afterAll(async () => {
  await h?.stop();
});

describe('karpenter-gateway retention', () => {
  it("every rule's time column leads an index", async () => {
    expect(await h.unindexed()).toEqual([]);
  });

  it('deletes NodePool changes, pool-health transitions and decided approvals past their configured retention', async () => {
    await h.row('nodepool_changes', { node_pool: 'changed' });
    await h.row('pool_health_transitions', { pool: 'm5.large/us-east-1a', to_state: 'avoid', evidence: '{}' });
    await h.row('consolidation_approvals', { id: 'approved', status: 'approved' });
    await h.row('consolidation_approvals', { id: 'done', status: 'executed' });
    await h.row('steer_approvals', { id: 'expired', status: 'expired' });
    await h.row('steer_approvals', { id: 'executing', status: 'executing' });
    // Bounded tables are never touched.
    await h.row('steering_plans', { node_pool: 'default', mode: 'plan', plan: '{}', status: 'planned', detail: 'x' });

    await h.stepPast(5 * DAY_MS + 60_000);
    expect(await h.left('pool_health_transitions', 'pool')).toEqual([]);
    expect(await h.left('nodepool_changes', 'node_pool')).toEqual(['changed']);
    await h.stepPast(5 * DAY_MS);
    expect(await h.left('nodepool_changes', 'node_pool')).toEqual([]);
    await h.stepPast(10 * DAY_MS);
    expect(await h.left('consolidation_approvals', 'id')).toEqual(['approved']);
    expect(await h.left('steer_approvals', 'id')).toEqual(['executing']);
    expect(await h.left('steering_plans', 'node_pool')).toEqual(['default']);
    expect([await h.deleted('nodepool_changes'), await h.deleted('pool_health_transitions'), await h.deleted('consolidation_approvals'), await h.deleted('steer_approvals')]).toEqual([1, 1, 1, 1]);
  });
});
