import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import type { CloudEvent } from '@nodes-manager/contracts';
import { createRuntime } from '@nodes-manager/platform';
import { createTestDatabase, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from '../../all-in-one/src/all-in-one.js';
import { simulatedAllInOneEnv } from '../support/all-in-one.js';

/**
 * The loop wired end to end in the all-in-one process (the same modules as split mode): scheduler-scoring plans
 * consolidation from its own cache with spot-advisor's prices, executes it through the real uncordon drains, and
 * karpenter-gateway consolidates a pool from scheduler-scoring's real plan.
 */
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: AllInOne;
const events: CloudEvent[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ karpenter: true, podTerminationMs: 50 } as never);
  kube.load(generateFleet({ seed: 11, nodes: 16, karpenter: true }));
  ec2 = await startEc2Sim({ region: 'us-east-1' });
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'error' });
  runtime.eventBus!.tap((e) => events.push(e));
  system = await startAllInOne({
    runtime,
    env: simulatedAllInOneEnv({ databaseUrl: db.url, kube, ec2 }, { OPTIMIZE_MAX_DISRUPTIONS: '2', DRAIN_TIMEOUT_SECONDS: '30', KARPENTER_DISCOVERY_CACHE_SECONDS: '1' }),
  });
}, 120_000);

afterAll(async () => {
  await system?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

const api = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(system.url + path, {
    ...init,
    headers: { authorization: `Bearer ${testToken('nodes:read nodes:write', 'erin')}`, 'content-type': 'application/json', ...init.headers },
  });
  return { status: res.status, body: (await res.json()) as any };
};

interface Plan {
  remove: { node: string; pods: { pod: string }[] }[];
  hourlySavingsUsd: number;
  priceSource: string;
}

describe('all-in-one: the optimisation loop through the real services', () => {
  let plan: Plan;
  let firstRun: string[] = [];

  it('plans consolidation of the under-used nodes with savings, priced by spot-advisor', async () => {
    plan = await waitFor(async () => {
      const r = await api('/api/v1/optimize/plan');
      // A plan made before spot-advisor first answered is priced from the bundled catalogue (and says so); the
      // loop's next plan is spot-advisor's.
      const p = r.body as Plan;
      return r.status === 200 && p.remove.length > 0 && p.priceSource === 'spot-advisor' ? p : undefined;
    }, 'a consolidation plan with nodes to remove, priced by spot-advisor', 60_000, 1000);
    expect(plan.hourlySavingsUsd).toBeGreaterThan(0);
    expect(plan.priceSource).toBe('spot-advisor');
  });

  it('a pool consolidation dry run selects NodeClaims of planned nodes only, within the budget', async () => {
    const core = kube.kubeConfig().makeApiClient(k8s.CoreV1Api);
    const planned = new Set(plan.remove.map((r) => r.node));
    const nodes = (await core.listNode()).items.filter((n) => planned.has(n.metadata!.name!));
    const pool = nodes.map((n) => n.metadata!.labels?.['karpenter.sh/nodepool']).find(Boolean)!;
    expect(pool).toBeDefined();
    const poolPlan = (await api(`/api/v1/optimize/plan?nodePool=${pool}`)).body as Plan;
    const poolPlanned = new Set(poolPlan.remove.map((x) => x.node));
    expect(poolPlanned.size).toBeGreaterThan(0);
    const r = await api(`/api/v1/nodepools/${pool}/consolidate`, { method: 'POST', body: JSON.stringify({ dryRun: true }) });
    expect(r.status).toBe(202);
    const result = r.body as { dryRun: boolean; planned: number; nodeClaims: { node: string }[]; budget: unknown };
    expect(result.dryRun).toBe(true);
    expect(result.planned).toBe(poolPlanned.size);
    expect(result.nodeClaims.length).toBeGreaterThan(0);
    for (const c of result.nodeClaims) expect(poolPlanned.has(c.node)).toBe(true);
    const custom = kube.kubeConfig().makeApiClient(k8s.CustomObjectsApi);
    const claims = (await custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: unknown[] };
    expect(claims.items.length).toBeGreaterThan(0); // a dry run deletes nothing
  });

  /**
   * "Exactly the planned nodes" with a cap: the run walks the plan in order; each node is either drained or
   * skipped with a reason. The drained nodes are the first OPTIMIZE_MAX_DISRUPTIONS (2) planned nodes whose
   * re-check passed, in plan order; a planned node before the cap is reached is skipped only for a re-check
   * reason, every one after it as `max_disruptions`.
   */
  it('executing the plan drains the first OPTIMIZE_MAX_DISRUPTIONS planned nodes the re-check accepts, through uncordon, and every PDB holds', async () => {
    const r = await api('/api/v1/optimize/trigger', { method: 'POST', body: JSON.stringify({ dryRun: false }) });
    expect(r.status).toBe(202);
    const drained: { node: string }[] = r.body.execution.drained;
    const skipped: { node: string; reason: string }[] = r.body.execution.skipped;
    const order: string[] = (r.body.plan as Plan).remove.map((x) => x.node);
    expect(drained.length).toBeGreaterThan(0);
    const reasonOf = new Map(skipped.map((x) => [x.node, x.reason]));
    const accepted = order.filter((n) => !reasonOf.has(n) || reasonOf.get(n) === 'max_disruptions');
    expect(drained.map((d) => d.node)).toEqual(accepted.slice(0, 2));
    expect([...drained.map((d) => d.node), ...skipped.map((x) => x.node)].sort()).toEqual([...order].sort());
    const capAt = order.indexOf(drained[drained.length - 1]!.node);
    for (const [i, n] of order.entries()) {
      if (drained.some((d) => d.node === n)) continue;
      if (i > capAt && drained.length === 2) expect(`${n} ${reasonOf.get(n)}`).toBe(`${n} max_disruptions`);
      else expect(`${n} ${reasonOf.get(n)}`).not.toBe(`${n} max_disruptions`);
    }

    for (const d of drained) {
      await waitFor(() => events.find((e) => (e.type === 'node.drain.completed' || e.type === 'node.drain.failed') && e.subject === d.node), `the drain of ${d.node} to end`, 60_000, 250);
    }
    const started = events.filter((e) => e.type === 'node.drain.started');
    expect(new Set(started.map((e) => e.subject))).toEqual(new Set(drained.map((d) => d.node)));
    expect(started.every((e) => e.actor === 'erin')).toBe(true);
    firstRun = drained.map((d) => d.node);

    const policy = kube.kubeConfig().makeApiClient(k8s.PolicyV1Api);
    for (const pdb of (await policy.listPodDisruptionBudgetForAllNamespaces()).items) {
      const s = pdb.status!;
      expect(`${pdb.metadata!.namespace}/${pdb.metadata!.name} ${s.currentHealthy! >= s.desiredHealthy!}`).toBe(`${pdb.metadata!.namespace}/${pdb.metadata!.name} true`);
    }
    const decisions = await api('/api/v1/decisions?limit=50');
    expect(decisions.status).toBe(200);
    expect(decisions.body.items.some((d: { rationale: string }) => d.rationale.length > 0)).toBe(true);
  });

  it('a second run right after drains none of the nodes drained already (cordoned): never planned, or skipped on re-check', async () => {
    const r = await api('/api/v1/optimize/trigger', { method: 'POST', body: JSON.stringify({ dryRun: false }) });
    expect(r.status).toBe(202);
    const drainedAgain = (r.body.execution?.drained ?? []).map((d: { node: string }) => d.node);
    expect(drainedAgain.filter((n: string) => firstRun.includes(n))).toEqual([]);
    for (const s of r.body.execution?.skipped ?? []) {
      if (firstRun.includes(s.node)) expect(`${s.node} ${s.reason}`).toBe(`${s.node} already_cordoned`);
    }
    for (const n of drainedAgain) {
      await waitFor(() => events.find((e) => (e.type === 'node.drain.completed' || e.type === 'node.drain.failed') && e.subject === n), `the drain of ${n} to end`, 60_000, 250);
    }
    const startedPerNode = new Map<string, number>();
    for (const e of events.filter((x) => x.type === 'node.drain.started')) startedPerNode.set(e.subject!, (startedPerNode.get(e.subject!) ?? 0) + 1);
    expect([...startedPerNode.values()].every((k) => k === 1)).toBe(true);
  });
});
