import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CommandMeta } from '@nodes-manager/contracts';
import type { Provider } from '@nestjs/common';
import { FakeClock, JsonLogger, PAUSE_GATE, PauseGate } from '@nodes-manager/platform';
import { testToken } from '@nodes-manager/platform/testing';
import { admitted, type LedgerRowLike, type Offering, type PoolPrice, type Requirement } from '@nodes-manager/steering';
import { marketOf, type SteeringSources } from '../src/steering/steering-sources.adapter.js';
import { SteeringController } from '../src/steering/steering.controller.js';
import { aNodeClaim, aNodePool } from './nodepool.builder.js';
import { startHarness, type Harness } from './harness.js';

const HOUR = 3_600_000;
const A = { instanceType: 'm5.large', zone: 'us-east-1a' };
const B = { instanceType: 'c5.large', zone: 'us-east-1b' };
const OTHERS = [
  { instanceType: 'm5.large', zone: 'us-east-1b' },
  { instanceType: 'c5.large', zone: 'us-east-1a' },
];
const MARKET = [A, B, ...OTHERS].map((p) => ({ ...p, spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096 }));
const { offerings: OFFERINGS } = marketOf(MARKET);

const req = (key: string, operator: string, ...values: string[]): Requirement => ({ key, operator, values });
const GENERAL: Requirement[] = [req('karpenter.sh/capacity-type', 'In', 'spot', 'on-demand'), req('node.kubernetes.io/instance-type', 'In', 'm5.large', 'c5.large')];
const TEAM = req('team', 'In', 'payments');
const ONLY_A: Requirement[] = [req('karpenter.sh/capacity-type', 'In', 'spot', 'on-demand'), req('node.kubernetes.io/instance-type', 'In', 'm5.large'), req('topology.kubernetes.io/zone', 'In', 'us-east-1a')];

/**
 * FakeLedger — a hand-written stand-in for uncordon's ledger and spot-advisor's prices: each simulated hour, one
 * rebalance per pool, followed by an interruption 30 min later as the pool's follow-up pattern says — pool A 4 in 5
 * (80%), pool B 1 in 20 (5%), the others never. Deterministic; interruptions an hour apart (no bursts).
 */
class FakeLedger implements SteeringSources {
  readonly rows: LedgerRowLike[] = [];
  private hour = 0;
  aInterrupts = true;
  ledgerCalls = 0;
  /** The Spot prices the market answers with (USD per hour, by pool); the others at MARKET's. */
  spotPrices: Record<string, number> = {};

  play(now: Date): void {
    const seenAt = new Date(now.getTime() - HOUR);
    const row = (p: { instanceType: string; zone: string }, interrupted: boolean): LedgerRowLike => ({
      ...p,
      capacityType: 'spot',
      seenAt: seenAt.toISOString(),
      outcome: interrupted ? 'interrupted' : 'survived',
      interruptedAt: interrupted ? new Date(seenAt.getTime() + 30 * 60_000).toISOString() : null,
      leadTimeMs: interrupted ? 30 * 60_000 : null,
    });
    this.rows.push(row(A, this.aInterrupts && this.hour % 5 !== 4), row(B, this.hour % 20 === 7), ...OTHERS.map((p) => row(p, false)));
    this.hour += 1;
  }

  async ledger(from: Date, _meta: CommandMeta): Promise<LedgerRowLike[]> {
    this.ledgerCalls += 1;
    return this.rows.filter((r) => Date.parse(String(r.seenAt)) >= from.getTime());
  }

  async market(_meta: CommandMeta): Promise<{ prices: Map<string, PoolPrice>; offerings: Offering[] }> {
    return marketOf(MARKET.map((p) => ({ ...p, spotUsdPerHour: this.spotPrices[`${p.instanceType}/${p.zone}`] ?? p.spotUsdPerHour })));
  }
}

const STEERING_ENV = {
  STEERING_INTERVAL_SECONDS: String(HOUR / 1000),
  STEERING_MIN_SAMPLES: '10',
  STEERING_COOL_OFF_HOURS: '6',
  STEERING_WINDOW_HOURS: '168',
  STEERING_MAX_AVOID_PER_HOUR: '3',
  STEERING_MAX_EXCLUDED_SHARE: '0.5',
  SCAN_INTERVAL_SECONDS: '60',
};

async function setUp(mode: string, env: Record<string, string> = {}, providers: (clock: FakeClock) => Provider[] = () => [], spotPrices: Record<string, number> = {}) {
  const clock = new FakeClock('2026-05-04T00:00:00Z');
  const ledger = new FakeLedger();
  ledger.spotPrices = spotPrices;
  const h = await startHarness({ karpenter: true, clock, steeringSources: ledger, env: { ...STEERING_ENV, STEERING_MODE: mode, ...env }, providers: providers(clock) });
  for (const [name, requirements] of [['general', GENERAL], ['only-a', ONLY_A]] as const) {
    const pool = aNodePool({ metadata: { name } });
    (pool.spec.template.spec as { requirements: Requirement[] }).requirements = requirements;
    expect((await h.call('POST', '/api/v1/nodepools', pool)).status).toBe(201);
  }
  const steering = h.app.get(SteeringController, { strict: false });
  /** hours — plays `n` hours of rebalances, a steering pass at each hour. */
  const hours = async (n: number) => {
    for (let i = 0; i < n; i++) {
      ledger.play(clock.now());
      await clock.step(HOUR);
      await steering.controller.settled();
      await steering.approvals.controller.settled();
    }
  };
  const requirements = async (name: string): Promise<Requirement[]> => (await h.call('GET', `/api/v1/nodepools/${name}`)).body.nodePool.spec.template.spec.requirements;
  const spotOffered = async (name: string) => admitted(await requirements(name), OFFERINGS).filter((o) => o.capacityType === 'spot').map((o) => `${o.instanceType}/${o.zone}`).sort();
  const patches = () => h.sim.stats().byVerbResource['patch nodepools'] ?? 0;
  const status = async () => (await h.call('GET', '/api/v1/approvals?kind=steer')).body;
  return { h, clock, ledger, hours, requirements, spotOffered, patches, status, steering };
}

describe('steering on the simulators, compressed time (STEERING_MODE=execute)', () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    t = await setUp('execute');
  }, 60_000);
  afterAll(async () => {
    await t?.h.stop();
  });

  it('A (80% interrupted) goes to avoid and the NodePool stops offering it; B (5%) is untouched; a NodePool with only A falls back to on-demand', async () => {
    expect(await t.spotOffered('general')).toEqual(['c5.large/us-east-1a', 'c5.large/us-east-1b', 'm5.large/us-east-1a', 'm5.large/us-east-1b']);
    await t.hours(14);
    const spot = await t.spotOffered('general');
    expect(spot).not.toContain('m5.large/us-east-1a');
    expect(spot).toContain('c5.large/us-east-1b');
    expect(await t.requirements('general')).toEqual([...GENERAL, req('node.kubernetes.io/instance-type', 'NotIn', 'm5.large')]);
    expect(await t.spotOffered('only-a')).toEqual([]);
    expect(await t.requirements('only-a')).toEqual([...ONLY_A, req('karpenter.sh/capacity-type', 'NotIn', 'spot')]);

    const health = t.h.events.filter((e) => e.type === 'pool.health.changed').map((e) => e.data as { pool: string; to: string; sentence: string });
    expect(health.filter((e) => e.pool === 'm5.large/us-east-1a').map((e) => e.to)).toContain('avoid');
    expect(health.some((e) => e.pool === 'c5.large/us-east-1b')).toBe(false);
    const steered = t.h.events.filter((e) => e.type === 'nodepool.steered').map((e) => e.data as { nodePool: string; changes: string[]; exclusions: unknown[] });
    expect(steered.map((s) => [s.nodePool, s.changes])).toEqual(
      expect.arrayContaining([
        ['general', ['narrow']],
        ['only-a', ['fallback-to-on-demand']],
      ]),
    );
    const change = (await t.h.db.query(`SELECT actor, before, after, request FROM nodes.nodepool_changes WHERE action = 'steer' AND node_pool = 'general'`)) as any[];
    expect(change[0]).toMatchObject({ actor: 'system:karpenter-gateway', before: { requirements: GENERAL } });
    expect(change[0].request.evidence[0]).toMatchObject({ pool: 'm5.large/us-east-1a', state: 'avoid' });
  }, 120_000);

  it('a steady plan writes nothing more', async () => {
    const before = t.patches();
    await t.hours(2);
    expect(t.patches()).toBe(before);
  }, 60_000);

  it("someone else's edit is kept: steering re-plans on it and writes their change back untouched", async () => {
    const theirs = [...GENERAL, TEAM];
    const res = await fetch(`${t.h.sim.url}/apis/karpenter.sh/v1/nodepools/general?fieldManager=kubectl-edit`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { template: { spec: { requirements: theirs } } } }),
    });
    expect(res.status).toBe(200);
    await t.hours(1);
    expect(await t.requirements('general')).toEqual([...theirs, req('node.kubernetes.io/instance-type', 'NotIn', 'm5.large')]);
    const last = t.h.events.filter((e) => e.type === 'nodepool.steered').map((e) => e.data as { nodePool: string; changes: string[]; original: Requirement[] }).at(-1);
    expect(last).toMatchObject({ nodePool: 'general', changes: ['replan-after-foreign-edit'], original: theirs });
  }, 120_000);

  it("when A's later recommendations all survive, A is restored after its cool-off — the requirements exactly as they were — and the on-demand NodePool returns to Spot", async () => {
    t.h.sim.load({ nodeClaims: [aNodeClaim('od-1', 'only-a', 'node-od-1', { capacityType: 'on-demand' }), aNodeClaim('od-2', 'only-a', 'node-od-2', { capacityType: 'on-demand' })] } as never);
    t.ledger.aInterrupts = false;
    // Restored once the cool-off has passed and the rebalances seen since A was avoided say so (their interval's
    // upper bound under 50%): hour by hour, at most two days.
    let hours = 0;
    while (hours < 48 && (await t.requirements('general')).length !== GENERAL.length + 1) {
      await t.hours(1);
      hours += 1;
    }
    expect(hours).toBeGreaterThanOrEqual(6);
    // The owner's requirements as they are now — their edit included — entry for entry.
    expect(await t.requirements('general')).toEqual([...GENERAL, TEAM]);
    expect(await t.requirements('only-a')).toEqual(ONLY_A);
    const back = t.h.events.filter((e) => e.type === 'nodepool.steered').map((e) => e.data as { nodePool: string; changes: string[]; replaceOnDemand: string[] });
    expect(back).toEqual(expect.arrayContaining([expect.objectContaining({ nodePool: 'only-a', changes: ['return-to-spot'], replaceOnDemand: ['node-od-1', 'node-od-2'] }), expect.objectContaining({ nodePool: 'general', changes: ['restore'] })]));
    // The on-demand nodes launched during the fallback are handed to scheduler-scoring's optimizer (optimize.replace),
    // which drains them within its budget, windows and approvals: karpenter-gateway deletes no NodeClaim itself.
    const asked = t.h.scheduler.replaceCalls;
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(asked[0]!.data).toMatchObject({ nodePool: 'only-a', nodes: ['node-od-1', 'node-od-2'], reason: expect.stringMatching(/admits Spot again/) });
    expect(asked[0]!.meta.actor).toBe('system:karpenter-gateway');
    expect(t.h.sim.stats().byVerbResource['delete nodeclaims'] ?? 0).toBe(0);
    // A budget of one: node-od-1 accepted, node-od-2 queued and asked for again on the next pass, alone.
    const left = async () => ((await t.h.db.query(`SELECT replace_nodes FROM nodes.nodepool_steering WHERE node_pool = 'only-a'`)) as any[])[0].replace_nodes;
    expect(await left()).toEqual(['node-od-2']);
    const recorded = ((await t.h.db.query(`SELECT plan FROM nodes.steering_plans WHERE node_pool = 'only-a'`)) as any[])[0].plan.replacement;
    expect(recorded).toMatchObject({ nodes: ['node-od-1', 'node-od-2'], action: 'drain', results: [expect.objectContaining({ node: 'node-od-1', outcome: 'accepted' }), expect.objectContaining({ node: 'node-od-2', outcome: 'queued' })] });
    const calls = asked.length;
    await t.hours(1);
    expect(asked.slice(calls).map((c) => c.data.nodes)).toEqual([['node-od-2']]);
    expect(await left()).toEqual([]);
    await t.hours(1);
    expect(asked.length).toBe(calls + 1);
    const st = (await t.h.db.query(`SELECT state, reason FROM nodes.pool_health WHERE pool = 'm5.large/us-east-1a'`)) as any[];
    expect(st[0]).toMatchObject({ state: 'watch' });
  }, 120_000);

});

describe('steering in plan mode writes nothing', () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    t = await setUp('plan');
  }, 60_000);
  afterAll(async () => {
    await t?.h.stop();
  });

  it('decides A avoided and records the plan, but never patches a NodePool', async () => {
    await t.hours(14);
    expect(t.patches()).toBe(0);
    expect(await t.requirements('general')).toEqual(GENERAL);
    const st = await t.h.app.get(SteeringController, { strict: false });
    expect(st).toBeDefined();
    const plans = (await t.h.db.query(`SELECT node_pool, status FROM nodes.steering_plans ORDER BY node_pool`)) as any[];
    expect(plans).toEqual([
      { node_pool: 'general', status: 'planned' },
      { node_pool: 'only-a', status: 'planned' },
    ]);
    expect(t.h.events.some((e) => e.type === 'nodepool.steered')).toBe(false);
    expect(t.h.events.some((e) => e.type === 'pool.health.changed')).toBe(true);
  }, 120_000);
});

describe('steering with steer=manual and a maintenance window (16:00–20:00 UTC)', () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    t = await setUp('execute', { DISRUPTION_APPROVAL: 'automatic,steer=manual', APPROVAL_TTL_MINUTES: String(7 * 24 * 60), DISRUPTION_WINDOWS: '0 16 * * * 4h UTC' });
  }, 60_000);
  afterAll(async () => {
    await t?.h.stop();
  });

  it('asks for approval outside the window (the approval comes before the window) and writes nothing until an operator approves inside it; then re-checks and writes', async () => {
    await t.hours(14);
    expect(t.clock.now().toISOString()).toBe('2026-05-04T14:00:00.000Z');
    expect(t.patches()).toBe(0);
    const pending = (await t.h.call('GET', '/api/v1/approvals?kind=steer&status=pending')).body.items as any[];
    expect(pending.map((a) => a.subject).sort()).toEqual(['general', 'only-a']);
    const general = pending.find((a) => a.subject === 'general');
    expect(general).toMatchObject({ kind: 'steer', service: 'karpenter-gateway', requestedBy: 'system:karpenter-gateway' });
    expect(general.reason).toMatch(/^Exclude instance type m5\.large/);
    await t.hours(2);
    expect(t.patches()).toBe(0);

    // 16:00: the window is open.
    const ok = await t.h.call('POST', `/api/v1/approvals/${general.id}/approve`, { comment: 'go' }, testToken('nodes:read nodes:write', 'bob'));
    expect(ok.status).toBe(200);
    await t.steering.approvals.controller.settled();
    await t.hours(1);
    const done = (await t.h.call('GET', `/api/v1/approvals/${general.id}`)).body;
    expect(done).toMatchObject({ status: 'executed', results: [{ node: 'general', outcome: 'started', reason: 'steered' }] });
    expect(t.patches()).toBe(1);
    const change = (await t.h.db.query(`SELECT actor, request FROM nodes.nodepool_changes WHERE action = 'steer'`)) as any[];
    expect(change).toHaveLength(1);
    expect(change[0].actor).toBe('bob');
    expect(change[0].request).toMatchObject({ approvalId: general.id, evidence: [{ pool: 'm5.large/us-east-1a', state: 'avoid' }] });
    expect(await t.requirements('general')).toEqual([...GENERAL, req('node.kubernetes.io/instance-type', 'NotIn', 'm5.large')]);
    expect(await t.requirements('only-a')).toEqual(ONLY_A);
  }, 120_000);
});

describe('steering while the fleet-wide pause holds', () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  let gate: PauseGate;
  beforeAll(async () => {
    t = await setUp('execute', { DISRUPTION_APPROVAL: 'manual' }, (clock) => {
      gate = new PauseGate({
        service: 'karpenter-gateway',
        source: async () => ({ pause: { reason: 'incident review', scope: 'disruptive', pausedBy: 'alice', pausedAt: '2026-05-03T23:00:00.000Z', until: null, source: 'api' } }),
        clock,
        logger: new JsonLogger('karpenter-gateway', 'error'),
        intervalMs: 20 * 24 * HOUR, // below the 2^31 ms a timer takes; the reading stays fresh over the test
      });
      return [{ provide: PAUSE_GATE, useValue: gate }];
    });
    await gate.refresh();
  }, 60_000);
  afterAll(async () => {
    await t?.h.stop();
  });

  it('decides and records, but no steering write starts, and with steer=manual nothing is asked for (the pause comes first)', async () => {
    await t.hours(14);
    expect(t.patches()).toBe(0);
    expect((await t.h.call('GET', '/api/v1/approvals?kind=steer')).body.items).toEqual([]);
    const plans = (await t.h.db.query(`SELECT node_pool, status, detail FROM nodes.steering_plans ORDER BY node_pool`)) as any[];
    expect(plans.map((p) => p.status)).toEqual(['paused', 'paused']);
    expect(plans[0].detail).toContain('incident review');
  }, 120_000);
});

describe("steering keeps a NodePool's cheapest Spot offerings (STEERING_KEEP_CHEAPEST, 3 by default)", () => {
  let t: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    // m5.large in us-east-1b and c5.large in us-east-1a are the cheapest pools besides A: excluding A's type would
    // take out the first, excluding its zone the second, each with nothing as cheap left instead.
    t = await setUp('execute', {}, () => [], { 'm5.large/us-east-1b': 0.02, 'c5.large/us-east-1a': 0.021 });
  }, 60_000);
  afterAll(async () => {
    await t?.h.stop();
  });

  it('A is avoided but stays in general, the plan saying why; the NodePool offering nothing else still falls back', async () => {
    await t.hours(14);
    const st = (await t.h.db.query(`SELECT state FROM nodes.pool_health WHERE pool = 'm5.large/us-east-1a'`)) as any[];
    expect(st[0]).toMatchObject({ state: 'avoid' });
    expect(await t.requirements('general')).toEqual(GENERAL);
    expect(await t.requirements('only-a')).toEqual([...ONLY_A, req('karpenter.sh/capacity-type', 'NotIn', 'spot')]);
    const plan = ((await t.h.db.query(`SELECT status, plan FROM nodes.steering_plans WHERE node_pool = 'general'`)) as any[])[0];
    expect(plan.status).toBe('nothing_to_do');
    expect(plan.plan.heldBack).toEqual([expect.objectContaining({ pool: A, reason: 'launch-price-rail' })]);
    expect(plan.plan.heldBack[0].sentence).toContain('m5.large in us-east-1b ($0.020/h)');
    expect(t.h.events.filter((e) => e.type === 'nodepool.steered').map((e) => (e.data as { nodePool: string }).nodePool)).toEqual(['only-a']);
  }, 120_000);
});
