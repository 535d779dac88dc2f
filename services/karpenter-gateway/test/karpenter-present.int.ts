import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@nodes-manager/platform/testing';
import { aNodeClaim, aNodePool } from './nodepool.builder.js';
import { aNode, startHarness, type Harness } from './harness.js';

const DND = { 'karpenter.sh/do-not-disrupt': 'true' };

describe('karpenter-gateway with Karpenter (through the REST API)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ karpenter: true, commandTimeoutMs: 1_500 });
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  const nodepoolEvents = async (n: number) => {
    await waitFor(() => h.events.filter((e) => e.type.startsWith('nodepool.')).length >= n, `${n} nodepool events`, 10_000);
    return h.events.filter((e) => e.type.startsWith('nodepool.'));
  };

  it('create → get → patch limits → patch budgets → nodeclaims → consolidate (dry run, then real) → delete, recorded and published with the actor', async () => {
    const created = await h.call('POST', '/api/v1/nodepools', aNodePool({ spec: { disruption: { budgets: [{ nodes: '1' }] } } }));
    expect(created.status).toBe(201);
    expect(created.body.metadata.name).toBe('general');
    const managers = created.body.metadata.managedFields.map((m: { manager: string }) => m.manager);
    expect(managers).toEqual(['nodes-manager']);

    // Karpenter launches five nodes for it: one on-demand, one NodeClaim and one node protected from disruption.
    h.sim.load({
      nodes: [aNode('node-0', 'general'), aNode('node-1', 'general'), aNode('node-2', 'general'), aNode('node-3', 'general', DND), aNode('node-4', 'general')] as never,
      nodeClaims: [
        aNodeClaim('claim-0', 'general', 'node-0'),
        aNodeClaim('claim-1', 'general', 'node-1', { capacityType: 'on-demand' }),
        aNodeClaim('claim-2', 'general', 'node-2', { annotations: DND }),
        aNodeClaim('claim-3', 'general', 'node-3'),
        aNodeClaim('claim-4', 'general', 'node-4'),
        aNodeClaim('other-0', 'other', 'node-9'),
      ],
    });

    const got = await h.call('GET', '/api/v1/nodepools/general');
    expect(got.status).toBe(200);
    expect(got.body.nodeClaims).toEqual({ count: 5, deleting: 0, capacityTypes: { spot: 4, 'on-demand': 1 }, nodes: ['node-0', 'node-1', 'node-2', 'node-3', 'node-4'] });
    expect(got.body.summary).toMatchObject({ name: 'general', weight: 10, limits: { cpu: '1000', memory: '1000Gi' } });

    const limits = await h.call('PATCH', '/api/v1/nodepools/general', { spec: { limits: { cpu: '64' } } });
    expect(limits.status).toBe(200);
    expect(limits.body.spec.limits).toEqual({ cpu: '64', memory: '1000Gi' });

    const budgets = await h.call('PATCH', '/api/v1/nodepools/general', { spec: { disruption: { budgets: [{ nodes: '2' }, { nodes: '0', reasons: ['Drifted'] }] } } });
    expect(budgets.status).toBe(200);
    expect(budgets.body.spec.disruption).toEqual({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '2' }, { nodes: '0', reasons: ['Drifted'] }] });
    expect(budgets.body.spec.template.spec.expireAfter).toBe('720h');

    const claims = await h.call('GET', '/api/v1/nodepools/general/nodeclaims');
    expect(claims.status).toBe(200);
    expect(claims.body.karpenterInstalled).toBe(true);
    expect(claims.body.items.map((c: { name: string }) => c.name)).toEqual(['claim-0', 'claim-1', 'claim-2', 'claim-3', 'claim-4']);
    expect(claims.body.items[2]).toMatchObject({ name: 'claim-2', nodeName: 'node-2', doNotDisrupt: true, capacityType: 'spot' });

    h.scheduler.planRemoving(['node-0', 'node-1', 'node-2', 'node-3', 'node-4', 'node-9']);
    const deletesBefore = h.sim.stats().byVerbResource['delete nodeclaims'] ?? 0;
    const dry = await h.call('POST', '/api/v1/nodepools/general/consolidate', { dryRun: true });
    expect(dry.status).toBe(202);
    expect(dry.body.dryRun).toBe(true);
    expect(dry.body.nodeClaims.map((c: { nodeClaim: string }) => c.nodeClaim)).toEqual(['claim-0', 'claim-1']);
    expect(dry.body.skipped).toEqual([
      { node: 'node-2', nodeClaim: 'claim-2', reason: 'nodeclaim_do_not_disrupt' },
      { node: 'node-3', nodeClaim: 'claim-3', reason: 'node_do_not_disrupt' },
      { node: 'node-4', nodeClaim: 'claim-4', reason: 'budget_exhausted' },
      { node: 'node-9', reason: 'no_nodeclaim' },
    ]);
    expect(h.sim.stats().byVerbResource['delete nodeclaims'] ?? 0).toBe(deletesBefore);
    expect(h.scheduler.calls.at(-1)).toMatchObject({ data: { nodePool: 'general' }, meta: { actor: 'alice' } });

    const real = await h.call('POST', '/api/v1/nodepools/general/consolidate', { dryRun: false });
    expect(real.status).toBe(202);
    expect(real.body).toMatchObject({ dryRun: false, failed: [] });
    expect(real.body.nodeClaims.map((c: { nodeClaim: string }) => c.nodeClaim)).toEqual(['claim-0', 'claim-1']);
    expect(h.sim.stats().byVerbResource['delete nodeclaims']).toBe(deletesBefore + 2);
    const left = await h.call('GET', '/api/v1/nodepools/general/nodeclaims');
    expect(left.body.items.map((c: { name: string }) => c.name)).toEqual(['claim-2', 'claim-3', 'claim-4']);

    const del = await h.call('DELETE', '/api/v1/nodepools/general');
    expect(del.status).toBe(200);
    const gone = await h.call('GET', '/api/v1/nodepools/general');
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('NOT_FOUND');

    const rows = await h.db.query<{ action: string; actor: string; result: string; dry_run: boolean; correlation_id: string }>(
      `SELECT action, actor, result, dry_run, correlation_id FROM nodes.nodepool_changes WHERE node_pool = 'general' ORDER BY created_at, action`,
    );
    expect(rows.map((r) => [r.action, r.result, r.dry_run])).toEqual([
      ['create', 'applied', false],
      ['update', 'applied', false],
      ['update', 'applied', false],
      ['consolidate', 'dry_run', true],
      ['consolidate', 'applied', false],
      ['delete', 'applied', false],
    ]);
    expect(rows.every((r) => r.actor === 'alice' && r.correlation_id)).toBe(true);

    const events = await nodepoolEvents(5);
    expect(events.map((e) => e.type)).toEqual(['nodepool.created', 'nodepool.updated', 'nodepool.updated', 'nodepool.consolidation.requested', 'nodepool.deleted']);
    expect(events.every((e) => e.actor === 'alice' && e.subject === 'general' && e.source === 'nodes-manager/karpenter-gateway')).toBe(true);
    expect(events[1]!.data).toMatchObject({ nodePool: 'general', before: { limits: { cpu: '1000' } }, after: { limits: { cpu: '64', memory: '1000Gi' } } });
    expect((events[3]!.data as { nodeClaims: { nodeClaim: string }[] }).nodeClaims.map((c) => c.nodeClaim)).toEqual(['claim-0', 'claim-1']);
    expect(rows.map((r) => r.correlation_id).filter((id) => events.some((e) => e.correlationid === id))).toHaveLength(5);
  });

  it.each([
    ['a bad operator', aNodePool({ metadata: { name: 'bad-op' }, spec: { template: { spec: { requirements: [{ key: 'kubernetes.io/arch', operator: 'Equals', values: ['amd64'] }] } } } }), 'spec.template.spec.requirements[0].operator'],
    ['a bad duration', aNodePool({ metadata: { name: 'bad-duration' }, spec: { disruption: { consolidateAfter: '5 minutes' } } }), 'spec.disruption.consolidateAfter'],
    ['weight 0', aNodePool({ metadata: { name: 'bad-weight' }, spec: { weight: 0 } }), 'spec.weight: must be an integer from 1 to 100'],
    ['a budget of "half"', aNodePool({ metadata: { name: 'bad-budget' }, spec: { disruption: { budgets: [{ nodes: 'half' }] } } }), 'spec.disruption.budgets[0].nodes: must be a count or a percentage'],
  ])('refuses a NodePool with %s: 400 naming the field, nothing sent', async (_what, pool, field) => {
    const writes = h.writesSeen();
    const res = await h.call('POST', '/api/v1/nodepools', pool);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.message).toContain(field);
    // One VALIDATION_FAILED shape, the gateway's and the services' alike: each field by its real name, in the body.
    expect(res.body.details.errors).toContainEqual(expect.objectContaining({ in: 'body', field: field.split(':')[0] }));
    expect(h.writesSeen()).toBe(writes);
    const [row] = await h.db.query<{ result: string; actor: string }>(`SELECT result, actor FROM nodes.nodepool_changes WHERE node_pool = $1`, [pool.metadata.name]);
    expect(row).toEqual({ result: 'refused:VALIDATION_FAILED', actor: 'alice' });
  });

  it.each([
    ['touching spec.template', { spec: { template: { spec: { expireAfter: '1h' } } } }, 'spec.template: cannot be changed'],
    ['touching spec.weight', { spec: { weight: 5 } }, 'spec.weight: cannot be changed'],
    ['in the other shape', { limits: { cpu: '1' } }, 'limits: cannot be changed'],
    ['with a bad budget duration', { spec: { disruption: { budgets: [{ nodes: '0', schedule: '@daily', duration: '30s' }] } } }, 'spec.disruption.budgets[0].duration'],
  ])('refuses a PATCH %s: 400 naming the field, nothing sent', async (_what, body, field) => {
    expect((await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'patch-me' } }))).status).toBeLessThan(410);
    const writes = h.writesSeen();
    const res = await h.call('PATCH', '/api/v1/nodepools/patch-me', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
    expect(h.writesSeen()).toBe(writes);
  });

  it('creating a pool that exists is a 409 CONFLICT; a concurrent change during PATCH is re-read and re-applied', async () => {
    await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'busy' } }));
    const again = await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'busy' } }));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
    h.sim.faults.set({ conflictNextWrite: true });
    const res = await h.call('PATCH', '/api/v1/nodepools/busy', { spec: { limits: { cpu: '12' } } });
    expect(res.status).toBe(200);
    expect(res.body.spec.limits.cpu).toBe('12');
  });

  it('never deletes more NodeClaims than the budget allows (NodeClaims already deleting count), nor one marked do-not-disrupt', async () => {
    expect((await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'batch' }, spec: { disruption: { budgets: [{ nodes: '50%' }] } } }))).status).toBe(201);
    const nodes = ['b-0', 'b-1', 'b-2', 'b-3'];
    h.sim.load({
      nodes: nodes.map((n) => aNode(n, 'batch')) as never,
      nodeClaims: [aNodeClaim('bc-0', 'batch', 'b-0', { deleting: true }), aNodeClaim('bc-1', 'batch', 'b-1'), aNodeClaim('bc-2', 'batch', 'b-2'), aNodeClaim('bc-3', 'batch', 'b-3')],
    });
    h.scheduler.planRemoving(nodes, 'empty');
    const deletesBefore = h.sim.stats().byVerbResource['delete nodeclaims'] ?? 0;
    // 50% of 4 → 2, minus the one already being deleted → 1.
    const res = await h.call('POST', '/api/v1/nodepools/batch/consolidate', { dryRun: false });
    expect(res.status).toBe(202);
    expect(res.body.nodeClaims.map((c: { nodeClaim: string }) => c.nodeClaim)).toEqual(['bc-1']);
    expect(res.body.budget).toMatchObject({ poolNodes: 4, disrupting: 1, allowed: { Empty: 1 } });
    expect(h.sim.stats().byVerbResource['delete nodeclaims']).toBe(deletesBefore + 1);

    expect((await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'guarded' }, spec: { disruption: { budgets: [{ nodes: '100%' }] } } }))).status).toBe(201);
    h.sim.load({
      nodes: [aNode('g-0', 'guarded', DND), aNode('g-1', 'guarded')] as never,
      nodeClaims: [aNodeClaim('gc-0', 'guarded', 'g-0'), aNodeClaim('gc-1', 'guarded', 'g-1', { annotations: DND })],
    });
    h.scheduler.planRemoving(['g-0', 'g-1']);
    const guarded = await h.call('POST', '/api/v1/nodepools/guarded/consolidate', { dryRun: false });
    expect(guarded.status).toBe(202);
    expect(guarded.body.nodeClaims).toEqual([]);
    expect(guarded.body.skipped.map((s: { reason: string }) => s.reason)).toEqual(['node_do_not_disrupt', 'nodeclaim_do_not_disrupt']);
    expect(h.sim.stats().byVerbResource['delete nodeclaims']).toBe(deletesBefore + 1);
  });

  it('keeps a NodeClaim whose node runs a do-not-disrupt pod the plan did not know about (read fresh before deleting)', async () => {
    expect((await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'fresh' }, spec: { disruption: { budgets: [{ nodes: '100%' }] } } }))).status).toBe(201);
    h.sim.load({
      nodes: [aNode('f-0', 'fresh'), aNode('f-1', 'fresh')] as never,
      nodeClaims: [aNodeClaim('fc-0', 'fresh', 'f-0'), aNodeClaim('fc-1', 'fresh', 'f-1')],
      pods: [
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'late-arrival', namespace: 'default', uid: 'late-arrival-uid', annotations: DND },
          spec: { nodeName: 'f-0', containers: [{ name: 'c', image: 'busybox' }] },
          status: { phase: 'Running' },
        },
      ] as never,
    });
    // The plan (older than the pod) proposes both nodes.
    h.scheduler.planRemoving(['f-0', 'f-1']);
    const deletesBefore = h.sim.stats().byVerbResource['delete nodeclaims'] ?? 0;
    const res = await h.call('POST', '/api/v1/nodepools/fresh/consolidate', { dryRun: false });
    expect(res.status).toBe(202);
    expect(res.body.nodeClaims.map((c: { nodeClaim: string }) => c.nodeClaim)).toEqual(['fc-1']);
    expect(res.body.skipped).toContainEqual({ node: 'f-0', nodeClaim: 'fc-0', reason: 'pod_do_not_disrupt' });
    expect(h.sim.stats().byVerbResource['delete nodeclaims']).toBe(deletesBefore + 1);
  });

  it('serialises consolidations of one pool: two at once never delete more than the budget allows', async () => {
    expect((await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'twice' }, spec: { disruption: { budgets: [{ nodes: '1' }] } } }))).status).toBe(201);
    const nodes = ['t-0', 't-1', 't-2'];
    h.sim.load({ nodes: nodes.map((n) => aNode(n, 'twice')) as never, nodeClaims: nodes.map((n, i) => aNodeClaim(`tc-${i}`, 'twice', n, { deleting: false })) });
    h.scheduler.planRemoving(nodes, 'empty');
    const [a, b] = await Promise.all([
      h.call('POST', '/api/v1/nodepools/twice/consolidate', { dryRun: false }),
      h.call('POST', '/api/v1/nodepools/twice/consolidate', { dryRun: false }),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    // One after the other: each run reads the pool after the other's deletion (the simulator removes a deleted NodeClaim
    // at once), so each deletes one distinct NodeClaim within its budget of 1. Run together on one view, both would pick
    // the same NodeClaim and one deletion would fail.
    expect([...a.body.failed, ...b.body.failed]).toEqual([]);
    const deleted = [...a.body.nodeClaims, ...b.body.nodeClaims].map((c: { nodeClaim: string }) => c.nodeClaim);
    expect([a.body.nodeClaims.length, b.body.nodeClaims.length]).toEqual([1, 1]);
    expect(new Set(deleted).size).toBe(2);
  });

  it('answers SERVICE_UNAVAILABLE (503) or TIMEOUT (504) when scheduler-scoring does not answer, and deletes nothing', async () => {
    await h.call('POST', '/api/v1/nodepools', aNodePool({ metadata: { name: 'lonely' } }));
    const deletesBefore = h.sim.stats().byVerbResource['delete nodeclaims'] ?? 0;
    const registry = h.runtime.commands!.handlers;
    const handler = registry.get('optimize.plan')!;
    registry.delete('optimize.plan');
    try {
      const down = await h.call('POST', '/api/v1/nodepools/lonely/consolidate', { dryRun: false });
      expect(down.status).toBe(503);
      expect(down.body.code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      registry.set('optimize.plan', handler);
    }
    h.scheduler.reply = () => new Promise(() => undefined);
    const slow = await h.call('POST', '/api/v1/nodepools/lonely/consolidate', { dryRun: false });
    expect(slow.status).toBe(504);
    expect(slow.body.code).toBe('TIMEOUT');
    expect(h.sim.stats().byVerbResource['delete nodeclaims'] ?? 0).toBe(deletesBefore);
  });
});
