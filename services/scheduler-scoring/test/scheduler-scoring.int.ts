import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import pg from 'pg';
import { FakeClock } from '@nodes-manager/platform';
import { testToken, waitFor } from '@nodes-manager/platform/testing';
import { drainId, busyPair, startHarness, type Harness } from './harness.js';
import { aKubeNode, aKubePdb, aKubePod } from '@nodes-manager/kube/testing';

/**
 * A fleet with obviously under-used nodes: two busy m5.2xlarge (≈57% cpu), and four m5.xlarge each with one
 * small pod — `idle-web` (its PDB allows one disruption), `idle-api` (no PDB), `idle-ledger` (PDB minAvailable 1
 * over one replica: no disruption allowed) and `idle-naked` (a pod without a controller). Three Pending 6-core
 * job pods fit nowhere. Expected plan: remove idle-web and idle-api; keep the other two with their reasons.
 */
function fleet() {
  const busy = busyPair();
  return {
    nodes: [
      ...busy.nodes,
      aKubeNode('idle-web'),
      aKubeNode('idle-api', { zone: 'us-east-1b' }),
      aKubeNode('idle-ledger'),
      aKubeNode('idle-naked', { zone: 'us-east-1c' }),
    ],
    pods: [
      ...busy.pods,
      aKubePod('web-1', 'busy-a', { app: 'web', cpu: '200m', memory: '256Mi' }),
      aKubePod('web-2', 'idle-web', { app: 'web', cpu: '200m', memory: '256Mi' }),
      aKubePod('api-1', 'idle-api', { app: 'api', cpu: '300m', memory: '512Mi' }),
      aKubePod('ledger-1', 'idle-ledger', { app: 'ledger', cpu: '250m', memory: '512Mi' }),
      aKubePod('naked-1', 'idle-naked', { app: 'naked', owner: 'none' }),
      ...[1, 2, 3].map((i) => aKubePod(`bigjob-${i}`, undefined, { app: 'bigjob', cpu: '6', memory: '8Gi', owner: { kind: 'Job', name: 'bigjob' } })),
    ],
    pdbs: [aKubePdb('web-pdb', { maxUnavailable: 1 }), aKubePdb('ledger-pdb', { minAvailable: 1 })],
  };
}

/** The optimisation interval of the tests below: a loop cycle each time the clock is stepped this far. */
const SCAN_MS = 1_000;

describe('scheduler-scoring through the gateway (all-in-one, real Postgres, Kubernetes simulator, fake clock)', () => {
  let h: Harness;
  const clock = new FakeClock(new Date());
  /** loopCycles — `n` optimisation intervals pass: `n` loop cycles run, one after the other, and are done. */
  const loopCycles = (n: number) => clock.step(n * SCAN_MS);
  beforeAll(async () => {
    h = await startHarness(fleet(), { SCAN_INTERVAL_SECONDS: String(SCAN_MS / 1000), OPTIMIZE_MAX_DISRUPTIONS: '2', OPTIMIZE_MODE: 'plan' }, { clock });
    await waitFor(async () => (await h.call('GET', '/api/v1/optimize/plan')).status === 200, 'the cluster cache to sync', 20_000);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('plans the obviously under-used nodes away, with savings, PDB impact and the reasons the others stay', async () => {
    const { status, body } = await h.call('GET', '/api/v1/optimize/plan');
    expect(status).toBe(200);
    expect(body.remove.map((r: { node: string }) => r.node).sort()).toEqual(['idle-api', 'idle-web']);
    expect(body.blocked.map((b: { node: string; reason: string }) => [b.node, b.reason]).sort()).toEqual([
      ['idle-ledger', 'pdb_exhausted'],
      ['idle-naked', 'pod_without_controller'],
    ]);
    expect(body.pdbImpact).toEqual(expect.arrayContaining([{ pdb: 'default/web-pdb', disruptionsUsed: 1, disruptionsAllowed: 1 }]));
    // Two m5.xlarge at the bundled On-Demand price: spot-advisor is not running here, and the answer says so.
    expect(body.hourlySavingsUsd).toBeCloseTo(2 * 0.192, 6);
    expect(body.monthlySavingsUsd).toBeCloseTo(2 * 0.192 * 730, 2);
    expect(body.priceSource).toBe('bundled-catalog');
  });

  it('filters the plan by NodePool (what karpenter-gateway asks)', async () => {
    const none = await h.call('GET', '/api/v1/optimize/plan?nodePool=gpu');
    expect(none.status).toBe(200);
    expect(none.body.remove).toEqual([]);
    expect((await h.call('GET', '/api/v1/optimize/plan?nodePool=general')).body.remove).toHaveLength(2);
  });

  it('records the loop’s decisions with rationales, newest first, and publishes them', async () => {
    const loop = await waitFor(async () => {
      const { body } = await h.call('GET', '/api/v1/decisions?limit=50');
      const mine = body.items.filter((d: { actor: string }) => d.actor === 'system:scheduler-scoring');
      const up = mine.find((d: { kind: string }) => d.kind === 'scale_up');
      const plan = mine.find((d: { kind: string }) => d.kind === 'consolidation');
      return up && plan ? { up, plan, items: body.items } : undefined;
    }, 'a loop cycle', 15_000);
    expect(loop.up).toMatchObject({ outcome: 'add_nodes', reason: 'pending_pods_need_capacity', subject: 'cluster' });
    expect(loop.up.rationale).toMatch(/^3 pending pods in 1 group; add \d+ nodes? \(/);
    expect(loop.up.details.pendingPods).toBe(3);
    expect(loop.plan).toMatchObject({ outcome: 'remove_nodes', reason: 'underutilized_nodes' });
    expect(loop.plan.rationale).toContain('idle-web');
    expect(loop.plan.rationale).toContain('bundled On-Demand prices');
    // The node the plan could not take because of a PodDisruptionBudget is counted, with the budget.
    const blocked = await h.runtime.metrics.registry.getSingleMetric('nodes_manager_pdb_blocked_nodes')!.get();
    expect(blocked.values.filter((v) => v.labels['source'] === 'plan')).toEqual([expect.objectContaining({ labels: { service: 'scheduler-scoring', source: 'plan', pdb: expect.stringMatching(/^default\//) }, value: 1 })]);
    const times = loop.items.map((d: { createdAt: string }) => d.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    // The events leave through the outbox relay after the decisions commit: wait for them.
    const types = () => new Set(h.events.map((e) => e.type));
    await waitFor(() => (types().has('scheduling.decided') && types().has('optimize.planned')) || undefined, 'the loop events', 10_000);
    expect(types().has('scheduling.decided')).toBe(true);
    expect(types().has('optimize.planned')).toBe(true);
    const plans = await h.db.query<{ status: string; dry_run: boolean }>(`SELECT status, dry_run FROM nodes.consolidation_plans WHERE actor = 'system:scheduler-scoring'`);
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every((p) => p.status === 'planned' && p.dry_run)).toBe(true);
    expect(h.uncordon.drains).toEqual([]); // OPTIMIZE_MODE=plan never drains
  });

  it('records a loop decision when it changes, not again every cycle', async () => {
    // The loop runs every interval and stores a plan each time; its decisions are the same every time.
    await loopCycles(3);
    await waitFor(
      async () => (await h.db.query(`SELECT id FROM nodes.consolidation_plans WHERE actor = 'system:scheduler-scoring'`)).length >= 3,
      'three loop cycles',
      15_000,
    );
    const rows = await h.db.query<{ kind: string; n: number }>(
      `SELECT kind, count(*)::int AS n FROM nodes.scheduling_decisions WHERE actor = 'system:scheduler-scoring' GROUP BY kind ORDER BY kind`,
    );
    expect(rows).toEqual([
      { kind: 'consolidation', n: 1 },
      { kind: 'scale_up', n: 1 },
    ]);
  });

  it('publishes optimize.planned when the plan changes, not again for an unchanged plan every cycle', async () => {
    const loopPlans = async () => (await h.db.query(`SELECT id FROM nodes.consolidation_plans WHERE actor = 'system:scheduler-scoring'`)).length;
    const before = await loopPlans();
    await loopCycles(3);
    expect(await loopPlans()).toBeGreaterThanOrEqual(before + 3);
    await h.relayed();
    const planned = h.events.filter((e) => e.type === 'optimize.planned' && e.actor === 'system:scheduler-scoring');
    expect(await loopPlans()).toBeGreaterThanOrEqual(4);
    expect(planned).toHaveLength(1); // the same cluster, the same prices: one plan announced, the rest recorded only
    expect((planned[0]!.data as { remove: { node: string }[] }).remove.map((r) => r.node).sort()).toEqual(['idle-api', 'idle-web']);
  });

  it('pages the decision log and filters it by kind and subject', async () => {
    // The loop records a decision once; a user's trigger records it again.
    expect((await h.call('POST', '/api/v1/optimize/trigger', { dryRun: true })).status).toBe(202);
    await waitFor(async () => (await h.call('GET', '/api/v1/decisions?limit=2&kind=scale_up')).body.items.length === 2, 'a second scale-up decision', 15_000);
    const first = await h.call('GET', '/api/v1/decisions?limit=1&kind=scale_up&subject=cluster');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await h.call('GET', `/api/v1/decisions?limit=1&kind=scale_up&cursor=${first.body.nextCursor}`);
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    expect(second.body.items[0].createdAt <= first.body.items[0].createdAt).toBe(true);
    expect((await h.call('GET', '/api/v1/decisions?cursor=bm90LWEtY3Vyc29y')).status).toBe(400);
  });

  it('lists every running workload pod with node, class, score and rationale; filters and pages', async () => {
    const all = await h.call('GET', '/api/v1/workloads/placement?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.items).toHaveLength(18 + 5);
    const web = all.body.items.find((p: { pod: string }) => p.pod === 'default/web-2');
    expect(web).toMatchObject({ node: 'idle-web', workloadClass: 'stateless', workload: 'web' });
    expect(web.score).toBeGreaterThan(0);
    expect(web.rationale.length).toBeGreaterThan(20);
    const onNode = await h.call('GET', '/api/v1/workloads/placement?node=busy-a&limit=5');
    expect(onNode.body.items).toHaveLength(5);
    expect(onNode.body.items.every((p: { node: string }) => p.node === 'busy-a')).toBe(true);
    const next = await h.call('GET', `/api/v1/workloads/placement?node=busy-a&limit=5&cursor=${onNode.body.nextCursor}`);
    expect(next.body.items).toHaveLength(5); // 10 pods on busy-a
    expect(next.body.nextCursor).toBeUndefined();
    const batch = await h.call('GET', '/api/v1/workloads/placement?workloadClass=batch');
    expect(batch.body.items).toEqual([]); // the only Job pods are Pending
  });

  it('simulates pod groups on the current fleet: free capacity first, then priced new nodes', async () => {
    const { status, body } = await h.call('POST', '/api/v1/simulate', {
      pods: [
        { name: 'small', count: 4, cpu: '500m', memory: '512Mi' },
        { name: 'large', count: 6, cpu: '4', memory: '16Gi' },
      ],
    });
    expect(status).toBe(200);
    expect(body.placedOnExisting.some((p: { pod: string }) => p.pod === 'small')).toBe(true);
    expect(body.newNodes).toBeGreaterThan(0);
    expect(body.hourlyCostUsd).toBeGreaterThan(0);
    expect(body.hourlyCostUsd).toBeGreaterThanOrEqual(body.lowerBoundUsdPerHour - 1e-9);
    expect(body.additions.every((a: { capacityType: string }) => a.capacityType === 'on-demand')).toBe(true); // Spot unknown
    expect(body.unschedulable).toEqual([]);
    expect(body.priceSource).toBe('bundled-catalog');
    // No spot-advisor here: the instance types are the bundled catalog, and the answer says why.
    expect(body.catalogSource).toBe('bundled');
    expect(body.catalogSourceDetail).toEqual(expect.any(String));
  });

  it('a user’s trigger says which instance catalog its scale-up used, and the decision records it', async () => {
    const r = await h.call('POST', '/api/v1/optimize/trigger', { dryRun: true });
    expect(r.status).toBe(202);
    expect(r.body.catalogSource).toBe('bundled');
    const up = r.body.decisions.find((d: { kind: string }) => d.kind === 'scale_up');
    expect(up.details.catalogSource).toBe('bundled');
    expect(up.rationale).toContain('the bundled instance-type catalog');
  });

  it.each([
    ['an unknown query parameter', 'GET', '/api/v1/decisions?color=red', undefined],
    ['limit 0', 'GET', '/api/v1/workloads/placement?limit=0', undefined],
    ['an unknown workload class', 'GET', '/api/v1/workloads/placement?workloadClass=huge', undefined],
    ['an empty nodePool', 'GET', '/api/v1/optimize/plan?nodePool=', undefined],
    ['dryRun that is not a boolean', 'POST', '/api/v1/optimize/trigger', { dryRun: 'yes' }],
    ['no pod groups', 'POST', '/api/v1/simulate', { pods: [] }],
    ['a count of 0', 'POST', '/api/v1/simulate', { pods: [{ count: 0, cpu: '1', memory: '1Gi' }] }],
    ['a cpu that is no quantity', 'POST', '/api/v1/simulate', { pods: [{ count: 1, cpu: 'lots', memory: '1Gi' }] }],
  ])('answers 400 from the gateway for %s', async (_, method, path, body) => {
    const r = await h.call(method, path, body);
    expect(r.status).toBe(400);
  });

  it('refuses a trigger without the write scope', async () => {
    const r = await h.call('POST', '/api/v1/optimize/trigger', { dryRun: true }, testToken('nodes:read', 'reader'));
    expect(r.status).toBe(403);
  });

  it('answers a coded CONFLICT to dryRun:false while another replica holds the execution lock, and drains nothing', async () => {
    const other = new pg.Client({ connectionString: h.db.url });
    await other.connect();
    try {
      await other.query(`SELECT pg_advisory_lock(hashtext('nodes-manager.optimize.execute'))`);
      const r = await h.call('POST', '/api/v1/optimize/trigger', { dryRun: false });
      expect([r.status, r.body.code]).toEqual([409, 'CONFLICT']);
      expect(r.body.message).toContain('an optimisation run is in progress');
      expect(h.uncordon.drains).toEqual([]);
    } finally {
      await other.end();
    }
  });

  it('dryRun:false drains exactly the planned nodes through node.drain as the user, and the PDBs hold', async () => {
    // Each drain is on record as soon as it has started: the second sees the first's operation id stored.
    const recordedBefore: string[][] = [];
    h.uncordon.afterDrain = async () => {
      const rows = await h.db.query<{ id: string }>(
        `SELECT d->>'operationId' AS id FROM nodes.consolidation_plans, jsonb_array_elements(COALESCE(plan->'execution'->'drained', '[]'::jsonb)) AS d ORDER BY 1`,
      );
      recordedBefore.push(rows.map((x) => x.id));
    };
    const r = await h.call('POST', '/api/v1/optimize/trigger', { dryRun: false });
    h.uncordon.afterDrain = undefined;
    expect(recordedBefore).toEqual([[], [drainId(1)]]);
    expect(r.status).toBe(202);
    expect(r.body.mode).toBe('execute');
    const planned = r.body.plan.remove.map((x: { node: string }) => x.node).sort();
    expect(planned).toEqual(['idle-api', 'idle-web']);
    expect(r.body.execution.drained.map((d: { node: string }) => d.node).sort()).toEqual(planned);
    expect(r.body.execution.skipped).toEqual([]);
    expect(h.uncordon.drains.map((d) => d.data.node).sort()).toEqual(planned);
    expect(h.uncordon.drains.every((d) => d.meta.actor === 'alice')).toBe(true);
    // Every eviction was allowed: the plan spent the web budget once, and never touched the ledger's.
    expect(h.uncordon.evictions.map((e) => [e.pod, e.status]).sort()).toEqual([
      ['default/api-1', 201],
      ['default/web-2', 201],
    ]);
    const core = h.sim.kubeConfig('test').makeApiClient(k8s.CoreV1Api);
    const cordoned = (await core.listNode()).items.filter((n) => n.spec?.unschedulable).map((n) => n.metadata!.name);
    expect(cordoned.sort()).toEqual(planned);
    await waitFor(async () => !(await core.listNamespacedPod({ namespace: 'default' })).items.some((p) => p.metadata!.name === 'web-2'), 'web-2 to go');
    const left = (await core.listNamespacedPod({ namespace: 'default' })).items.map((p) => p.metadata!.name);
    expect(left).toEqual(expect.arrayContaining(['web-1', 'ledger-1', 'naked-1']));
    const executed = await h.db.query<{ status: string; dry_run: boolean; actor: string }>(`SELECT status, dry_run, actor FROM nodes.consolidation_plans WHERE id = $1`, [r.body.planId]);
    expect(executed).toEqual([{ status: 'executed', dry_run: false, actor: 'alice' }]);
    await waitFor(() => h.events.some((e) => e.type === 'optimize.executed' && (e.data as { planId: string }).planId === r.body.planId), 'optimize.executed');
    const actions = await h.call('GET', '/api/v1/decisions?kind=consolidation_action&limit=10');
    expect(actions.body.items.map((d: { subject: string; outcome: string }) => [d.subject, d.outcome]).sort()).toEqual([
      ['idle-api', 'drain_started'],
      ['idle-web', 'drain_started'],
    ]);
  });

  it('a second dryRun:false right after plans and drains none of the nodes drained already (cordoned)', async () => {
    const core = h.sim.kubeConfig('test').makeApiClient(k8s.CoreV1Api);
    await waitFor(async () => (await h.call('GET', '/api/v1/optimize/plan')).body.remove.length === 0, 'the cache to see the cordons', 10_000);
    const before = h.uncordon.drains.length;
    const r = await h.call('POST', '/api/v1/optimize/trigger', { dryRun: false });
    expect(r.status).toBe(202);
    expect(r.body.plan.remove).toEqual([]);
    expect(h.uncordon.drains).toHaveLength(before);
    const cordoned = (await core.listNode()).items.filter((n) => n.spec?.unschedulable).map((n) => n.metadata!.name);
    expect(cordoned.sort()).toEqual(['idle-api', 'idle-web']);
  });
});

/**
 * Two idle nodes planned away; the Kubernetes API starts failing right after the first drain has started. The
 * second node's re-check fails and is skipped with its reason; the first drain is still on record.
 */
describe('scheduler-scoring execution when the Kubernetes API fails half-way', () => {
  let h: Harness;
  beforeAll(async () => {
    const busy = Array.from({ length: 9 }, (_, i) => aKubePod(`core-${i}`, 'busy', { app: 'core', cpu: '500m', memory: '1Gi' }));
    h = await startHarness(
      {
        nodes: [aKubeNode('busy', { instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi' }), aKubeNode('idle-1'), aKubeNode('idle-2')],
        pods: [...busy, aKubePod('a-1', 'idle-1', { app: 'a', cpu: '200m', memory: '256Mi' }), aKubePod('b-1', 'idle-2', { app: 'b', cpu: '200m', memory: '256Mi' })],
      },
      { SCAN_INTERVAL_SECONDS: '3600', OPTIMIZE_MAX_DISRUPTIONS: '2', OPTIMIZE_MODE: 'plan' },
    );
    await waitFor(async () => (await h.call('GET', '/api/v1/optimize/plan')).status === 200, 'the cluster cache to sync', 20_000);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('skips the rest as recheck_failed and still records the drain it started, with optimize.executed', async () => {
    h.uncordon.afterDrain = () => h.sim.faults.set({ rate500: 1 });
    const r = await h.call('POST', '/api/v1/optimize/trigger', { dryRun: false });
    h.sim.faults.clear();
    h.uncordon.afterDrain = undefined;
    expect(r.status).toBe(202);
    expect(r.body.plan.remove).toHaveLength(2);
    const [first, second] = r.body.plan.remove.map((x: { node: string }) => x.node);
    expect(r.body.execution.drained.map((d: { node: string; operationId: string }) => [d.node, d.operationId])).toEqual([[first, drainId(1)]]);
    expect(r.body.execution.skipped.map((s: { node: string; reason: string }) => [s.node, s.reason])).toEqual([[second, 'recheck_failed']]);
    const [row] = await h.db.query<{ status: string; drained: { node: string }[] }>(
      `SELECT status, plan->'execution'->'drained' AS drained FROM nodes.consolidation_plans WHERE id = $1`,
      [r.body.planId],
    );
    expect([row!.status, row!.drained.map((d) => d.node)]).toEqual(['executed', [first]]);
    await waitFor(() => h.events.some((e) => e.type === 'optimize.executed' && (e.data as { planId: string }).planId === r.body.planId), 'optimize.executed');
  });
});
