import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1Node } from '@kubernetes/client-node';
import type { RebalancesSummary, RebalanceView } from '@nodes-manager/contracts';
import { createTestDatabase, EventCollector, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, RebalancePlayout, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim, type PlannedRebalance } from '@nodes-manager/sim';
import { splitSystemEnv } from '../support/split-system.js';
import { startSplitSystem, type SplitSystem } from './harness.js';

/**
 * Done, point 3: the six services as separate processes. NTH-style rebalance cordons on four Spot nodes; one is then
 * interrupted (after auto-uncordon gave it back: spot-itn taint, NTH's Event, the node going, EC2's state reason), one
 * removed without an interruption, two left to survive a short observation horizon (REBALANCE_HORIZON_HOURS=0.008,
 * about 29 s). The ledger lists all four with the right outcomes, the summary counts them, and spot-advisor's market
 * shows the interrupted pool "measured in this cluster".
 */
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: SplitSystem;
let events: EventCollector;
let spot: V1Node[];
const HORIZON_HOURS = 0.008;

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim();
  const fleet = generateFleet({ seed: 11, nodes: 16 });
  kube.load(fleet);
  ec2 = await startEc2Sim();
  spot = fleet.nodes.filter((n) => n.metadata?.labels?.['karpenter.sh/capacity-type'] === 'spot' && /i-[0-9a-f]+$/.test(n.spec?.providerID ?? ''));
  ec2.adoptNodes(spot);
  events = await EventCollector.start(['rebalance.*']);
  system = await startSplitSystem({
    env: splitSystemEnv(
      { databaseUrl: db.url, kube, ec2 },
      {
        COMMAND_TIMEOUT_MS: '5000',
        SCAN_INTERVAL_SECONDS: '1',
        AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '0.05',
        REBALANCE_HORIZON_HOURS: String(HORIZON_HOURS),
        SPOT_MEASURED_MIN_SAMPLES: '1',
        SPOT_MEASURED_CACHE_SECONDS: '1',
      },
    ),
  });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await events?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

const api = async <T>(path: string): Promise<T> => {
  const res = await fetch(system.gatewayUrl + path, { headers: { authorization: `Bearer ${testToken()}` } });
  expect(`${path} ${res.status}`).toBe(`${path} 200`);
  return (await res.json()) as T;
};

describe('the rebalance ledger across processes', () => {
  it('lists every NTH rebalance cordon with its outcome; the summary and the market reflect them', async () => {
    expect(spot.length).toBeGreaterThanOrEqual(4);
    await waitFor(async () => (await api<{ items: unknown[] }>('/api/v1/nodes?limit=500')).items.length === 16, 'node-sync to project the fleet', 60_000, 500);
    const [interrupted, removed, survivorA, survivorB] = spot.slice(0, 4).map((n) => n.metadata!.name!) as [string, string, string, string];
    const instanceOf = (name: string) => spot.find((n) => n.metadata!.name === name)!.spec!.providerID!.split('/').at(-1)!;
    const start = Date.now();
    const plan: PlannedRebalance[] = [
      { node: interrupted, at: new Date(start), instanceId: instanceOf(interrupted), interruption: { at: new Date(start + 8_000), leadMs: 8_000, evidence: ['taint', 'event', 'removal', 'ec2'] } },
      { node: removed, at: new Date(start), instanceId: instanceOf(removed) },
      { node: survivorA, at: new Date(start) },
      { node: survivorB, at: new Date(start) },
    ];
    const playout = new RebalancePlayout(kube, plan, { ec2, removeAfterMs: 2_000 });
    const timer = setInterval(() => playout.advanceTo(new Date()), 200);
    try {
      playout.advanceTo(new Date());
      await waitFor(async () => (await api<{ items: RebalanceView[] }>('/api/v1/rebalances')).items.length === 4, 'four ledger rows', 30_000, 500);
      kube.scenario.deleteNode(removed); // gone for another reason: EC2 still has it running
      const rows = await waitFor(
        async () => {
          const page = await api<{ items: RebalanceView[] }>('/api/v1/rebalances');
          return page.items.every((r) => r.resolved) ? page.items : undefined;
        },
        'every row resolved (horizon ≈ 29 s)',
        90_000,
        1_000,
      );
      const by = (node: string) => rows.find((r) => r.node === node)!;
      expect(by(interrupted)).toMatchObject({ outcome: 'interrupted', instanceId: instanceOf(interrupted) });
      // Whichever the ledger saw first — the taint on the Node or NTH's Event — with that signal's own time.
      expect([`${by(interrupted).seenSignal} ${by(interrupted).seenTimeSource}`]).toEqual([expect.stringMatching(/^(rebalance-taint taint-time-added|nth-event event-time)$/)]);
      expect(by(interrupted).uncordonedAt).not.toBeNull();
      expect(by(interrupted).leadTimeMs).toBeGreaterThanOrEqual(7_000);
      expect(by(interrupted).leadTimeMs).toBeLessThan(20_000);
      expect(by(interrupted).evidence.map((e) => e.kind)).toEqual(expect.arrayContaining(['rebalance-taint', 'uncordoned-by-nodes-manager', 'spot-itn-taint']));
      expect(by(removed)).toMatchObject({ outcome: 'removed' });
      for (const n of [survivorA, survivorB]) {
        expect(by(n)).toMatchObject({ outcome: 'survived' });
        expect(by(n).givenBackMs).toBeGreaterThan(10_000);
      }
      const onlyInterrupted = await api<{ items: RebalanceView[] }>('/api/v1/rebalances?outcome=interrupted');
      expect(onlyInterrupted.items.map((r) => r.node)).toEqual([interrupted]);
      const firstPage = await api<{ items: RebalanceView[]; nextCursor?: string }>('/api/v1/rebalances?limit=3');
      const secondPage = await api<{ items: RebalanceView[]; nextCursor?: string }>(`/api/v1/rebalances?limit=3&cursor=${firstPage.nextCursor}`);
      expect([...firstPage.items, ...secondPage.items].map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());

      const summary = await api<RebalancesSummary>('/api/v1/rebalances/summary');
      expect(summary.horizonHours).toBeCloseTo(HORIZON_HOURS);
      expect(summary.cluster).toMatchObject({ rebalances: 4, samples: 3, interrupted: 1, interruptedShare: 0.3333 });
      expect(summary.cluster.outcomes).toMatchObject({ interrupted: 1, removed: 1, survived: 2 });
      expect(summary.cluster.leadTimeMinutes?.samples).toBe(1);
      expect(summary.cluster.nodeHoursGivenBack).toBeGreaterThan(0);

      const pool = { type: by(interrupted).instanceType!, zone: by(interrupted).zone! };
      const market = await waitFor(async () => {
        const m = await api<{ items: { instanceType: string; availabilityZone: string; interruption: { used: string; measured: { samples: number; interrupted: number } | null } }[] }>(`/api/v1/spot/market?instanceTypes=${pool.type}`);
        const entry = m.items.find((i) => i.availabilityZone === pool.zone);
        return entry?.interruption.used === 'measured-in-this-cluster' ? entry : undefined;
      }, "the market's measured basis for the interrupted pool", 20_000, 1_000);
      expect(market.interruption.measured).toMatchObject({ interrupted: 1 });
      expect(market.interruption.measured!.samples).toBeGreaterThanOrEqual(1);

      const types = events.events.map((e) => `${e.type}:${e.subject}`);
      for (const n of [interrupted, removed, survivorA, survivorB]) expect(types).toContain(`rebalance.observed:${n}`);
      expect(events.events.find((e) => e.type === 'rebalance.resolved' && e.subject === interrupted)?.data).toMatchObject({ outcome: 'interrupted', interruptionSource: 'spot-itn-taint' });
      const metrics = await (await fetch(`http://127.0.0.1:${system.processes.get('uncordon')!.port}/metrics`)).text();
      expect(metrics).toMatch(/nodes_manager_rebalances_resolved_total\{service="uncordon",outcome="interrupted"\} 1/);
      expect(metrics).toMatch(/nodes_manager_rebalances_observed_total\{service="uncordon"\} 4/);
    } finally {
      clearInterval(timer);
    }
  }, 180_000);
});
