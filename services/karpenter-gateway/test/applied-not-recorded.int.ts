import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { aNodePool } from './nodepool.builder.js';
import { startHarness, type Harness } from './harness.js';

/**
 * A change karpenter-gateway made in the cluster whose record then failed (the link between karpenter-gateway and Postgres
 * cut, the write to the cluster made): the caller is told APPLIED_NOT_RECORDED with the change that is in effect — not a
 * plain INTERNAL, not a refusal (docs/karpenter.md#applied-but-not-recorded).
 */
describe('karpenter-gateway: applied, but recording it failed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ karpenter: true, proxyDatabase: true });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('a create whose record fails answers 500 APPLIED_NOT_RECORDED naming the NodePool as created, and the pool is there', async () => {
    // Nothing on the way to the write reads the database: with the link to Postgres cut, the NodePool is created in
    // the cluster and only its record (retried) fails.
    h.dbLink!.cut();
    const answer = await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'unrecorded' } }));

    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({
      code: 'APPLIED_NOT_RECORDED',
      details: {
        applied: true,
        recorded: false,
        change: { resource: 'nodepool', name: 'unrecorded', action: 'create', result: 'applied', actor: expect.any(String), after: { metadata: { name: 'unrecorded' } } },
        recordError: 'database unavailable',
      },
    });
    expect(answer.body.message).toContain('the create of NodePool unrecorded was applied, but recording it failed');
    expect(JSON.stringify(answer.body)).not.toMatch(/127\.0\.0\.1|ECONN|Connection terminated/);

    // It is in effect: the pool exists in the cluster; once the database is back, the history has no row for it.
    h.dbLink!.restore();
    const read = await h.call('GET', '/api/v1/nodepools/unrecorded');
    expect(read.status).toBe(200);
    const rows = await h.db.query(`SELECT 1 FROM nodes.nodepool_changes WHERE node_pool = 'unrecorded'`);
    expect(rows).toEqual([]);
  }, 60_000);
});
