import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CommandMeta } from '@nodes-manager/contracts';
import { createRuntime } from '@nodes-manager/platform';
import { createTestDatabase, testEnv, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import type { LedgerRowLike } from '@nodes-manager/steering';
import { startBehindGateway } from '../../../test/support/gateway.js';
import { loadKarpenterGatewayConfig } from '../src/config.js';
import { KarpenterGatewayModule } from '../src/karpenter-gateway.module.js';
import { marketOf, STEERING_SOURCES, type SteeringSources } from '../src/steering/steering-sources.adapter.js';

/**
 * `GET /api/v1/steering/report` through the real gateway and karpenter-gateway on real Postgres, with a hand-written
 * ledger and market (the port steering reads uncordon's `rebalances.list` and spot-advisor's `spot.prices` through):
 * pool A's rebalances turn into interruptions 80% of the time, pool B's 5%. The report names A, not B, the
 * interruptions spared and the extra cost; bad windows are 400s naming the field.
 */
const T0 = Date.parse('2026-11-01T00:00:00Z');
const H = 3_600_000;
const A = { instanceType: 'm5.large', zone: 'us-east-1a' };
const B = { instanceType: 'm5.large', zone: 'us-east-1b' };

function row(pool: typeof A, h: number, interrupted: boolean, i: number) {
  const seen = T0 + h * H;
  return {
    node: `${pool.zone}-n${i}`,
    ...pool,
    capacityType: 'spot',
    seenAt: new Date(seen).toISOString(),
    outcome: interrupted ? 'interrupted' : 'survived',
    interruptedAt: interrupted ? new Date(seen + 20 * 60_000).toISOString() : null,
    leadTimeMs: interrupted ? 20 * 60_000 : null,
    resolvedAt: new Date(interrupted ? seen + 20 * 60_000 : seen + 24 * H).toISOString(),
  };
}

class FakeSources implements SteeringSources {
  readonly ledgerFrom: Date[] = [];
  rows = [
    ...Array.from({ length: 40 }, (_, i) => row(A, 1 + i * 3, i % 5 !== 0, i)),
    ...Array.from({ length: 40 }, (_, i) => row(B, 1 + i * 3, i % 20 === 0, i)),
  ];
  async ledger(from: Date, _meta: CommandMeta): Promise<LedgerRowLike[]> {
    this.ledgerFrom.push(from);
    return this.rows.filter((r) => Date.parse(r.seenAt) >= from.getTime());
  }
  async market() {
    return marketOf([
      { ...A, spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096 },
      { ...B, spotUsdPerHour: 0.045, onDemandUsdPerHour: 0.096 },
    ]);
  }
}

let db: TestDatabase;
let sim: KubeSim;
let stop: () => Promise<void>;
let call: Awaited<ReturnType<typeof startBehindGateway>>['call'];
const sources = new FakeSources();

beforeAll(async () => {
  db = await createTestDatabase('nm_steering_report');
  sim = await startKubeSim({ karpenter: false });
  const cfg = loadKarpenterGatewayConfig(testEnv(db.url, { KUBECONFIG: sim.kubeconfigPath, STEERING_MODE: 'plan', STEERING_MIN_SAMPLES: '10', STEERING_INTERVAL_SECONDS: '1' }));
  const started = await startBehindGateway({
    databaseUrl: db.url,
    runtime: createRuntime({ mode: 'all-in-one', logLevel: 'warn' }),
    modules: [KarpenterGatewayModule.forRoot(cfg, { steeringSources: { provide: STEERING_SOURCES, useValue: sources } })],
  });
  call = started.call;
  stop = () => started.app.close();
}, 60_000);

afterAll(async () => {
  await stop?.();
  await sim?.stop();
  await db?.drop();
});

describe('GET /api/v1/steering/report', () => {
  it('replays the window: A would have been avoided, B not; the interruptions spared and the extra cost', async () => {
    const from = new Date(T0).toISOString();
    const to = new Date(T0 + 130 * H).toISOString();
    const res = await call('GET', `/api/v1/steering/report?from=${from}&to=${to}`);
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r.from).toBe(from);
    expect(r.to).toBe(to);
    expect(r.pools).toBe(2);
    expect([...new Set(r.avoided.map((a: { zone: string }) => a.zone))]).toEqual(['us-east-1a']);
    const first = r.avoided[0];
    expect(first.why).toMatch(/^Avoid/);
    expect(Date.parse(first.from)).toBeGreaterThan(T0);
    expect(r.interruptions.avoided).toBeGreaterThan(10);
    expect(r.interruptions.avoided).toBeLessThan(r.interruptions.total);
    // A's node-hours move to B, $0.005/h dearer.
    expect(first.extraUsdPerNodeHour).toBeCloseTo(0.005, 6);
    expect(r.extraCostUsd).toBeGreaterThan(0);
    expect(r.sentence).toMatch(/up to \d+ of \d+ interruptions spared, for about \$\d+\.\d\d more/);
    // The rule's look-back: the ledger is read from a window before `from`.
    // (The steering loop's own passes read it too, from their own `now`.)
    expect(sources.ledgerFrom.map((d) => d.getTime())).toContain(T0 - 168 * H);
  });

  it.each([
    ['no from', '', 'from'],
    ['a from that is no time', 'from=yesterday', 'from'],
    ['a to before from', 'from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'to'],
    ['a window over 31 days', 'from=2026-09-01T00:00:00Z&to=2026-11-01T00:00:00Z', 'to'],
    ['an unknown parameter', 'from=2026-11-01T00:00:00Z&pool=a', 'pool'],
  ])('%s is a 400 naming the field', async (_, qs, field) => {
    const res = await call('GET', `/api/v1/steering/report${qs ? `?${qs}` : ''}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.details.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('a from in the future (to defaulting to now) is a 400 naming from', async () => {
    const res = await call('GET', `/api/v1/steering/report?from=2999-01-01T00:00:00Z`);
    expect(res.status).toBe(400);
    expect(res.body.details.errors.map((e: { field: string }) => e.field)).toContain('from');
  });
});

describe('GET /api/v1/steering/pools', () => {
  it('lists every pool of the last pass with its health, price, expected cost and no countdown when not avoided', async () => {
    const body = await waitFor(async () => {
      const res = await call('GET', '/api/v1/steering/pools');
      return res.status === 200 && res.body.pools.length >= 2 ? res.body : undefined;
    }, 'a steering pass with both pools', 30_000, 250);
    expect(body.mode).toBe('plan');
    expect(body.disruptionCostUsd).toBe(1);
    const a = body.pools.find((p: { zone: string }) => p.zone === 'us-east-1a');
    expect(a).toMatchObject({ instanceType: 'm5.large', state: 'healthy', spotUsdPerHour: 0.04, onDemandUsdPerHour: 0.096, restoreAt: null, restoreInSeconds: null });
    expect(a.expectedUsdPerHour).toBeGreaterThanOrEqual(0.04);
    expect(typeof a.sentence).toBe('string');
    expect((await call('GET', '/api/v1/steering/pools?state=avoid')).status).toBe(400);
  });
});
