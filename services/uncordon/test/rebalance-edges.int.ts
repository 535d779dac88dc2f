import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeClock } from '@nodes-manager/platform';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { aKubeNode } from '@nodes-manager/kube/testing';
import { api, becomesLeader, getNode, startUncordon, type UncordonApp } from './uncordon.harness.js';
import { RebalanceLedgerController } from '../src/rebalance-ledger/rebalance-ledger.controller.js';

/*
 * The ledger records every rebalance the product acts on, whatever pass first saw it (docs/rebalance-ledger.md): NTH
 * rebalance cordons (the cordon and the rebalance taint, by `node-termination-handler`) older than the grace when a
 * leader first looks — at start, or after a failover that outlasted the grace — are uncordoned in that leader's
 * first pass, and `GET /api/v1/rebalances` lists each of them, uncordoned. On a fake clock shared with the simulator.
 */
const MIN = 60_000;
const NODES = ['e-1', 'e-2', 'e-3', 'e-4'];

interface Row {
  node: string;
  outcome: string;
  seenSignal: string;
  seenAt: string;
}

describe('the rebalance ledger and cordons reversed in the first pass', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let clock: FakeClock;
  const apps: UncordonApp[] = [];
  const start = async (gateway = false): Promise<UncordonApp> => {
    const a = await startUncordon({ databaseUrl: db.url, kubeconfig: sim.kubeconfigPath, clock, gateway, env: { AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '15', SCAN_INTERVAL_SECONDS: '3600' } });
    apps.push(a);
    return a;
  };
  const ago = (ms: number): Date => new Date(clock.now().getTime() - ms);
  /** rebalances — the ledger through the API, by node name. */
  const rebalances = async (a: UncordonApp): Promise<Row[]> => {
    const r = await api<{ items: Row[] }>(a.url!, '/api/v1/rebalances?limit=50');
    expect(r.status).toBe(200);
    return r.body.items.sort((x, y) => x.node.localeCompare(y.node));
  };
  const uncordoned = async (name: string) => (await getNode(sim, name)).spec?.unschedulable !== true;

  beforeEach(async () => {
    clock = new FakeClock('2026-03-01T10:00:00Z');
    sim = await startKubeSim({ clock: () => clock.now(), timers: clock });
    db = await createTestDatabase('nm_rebalance_edges');
    sim.load({ nodes: NODES.map((n) => aKubeNode(n, { readySince: ago(120 * MIN) })) });
  });

  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close().catch(() => undefined);
    await sim.stop();
    await db.drop();
  });

  it('four NTH rebalance cordons older than the grace when the service starts: all uncordoned in its first pass, all four in the ledger', async () => {
    for (const n of NODES) sim.scenario.cordonAsNth(n, { taint: true, at: ago(20 * MIN) });
    const a = await start(true);
    await becomesLeader(a);
    for (const n of NODES) expect(await uncordoned(n)).toBe(true);
    const [first] = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM nodes.scaling_events WHERE action = 'uncordon'`);
    expect(first?.n).toBe('4');

    const rows = await waitFor(async () => {
      const r = await rebalances(a);
      return r.length === 4 && r.every((x) => x.outcome === 'uncordoned') ? r : undefined;
    }, 'four ledger rows, uncordoned');
    expect(rows.map((r) => r.node)).toEqual(NODES);
    for (const r of rows) expect(r).toMatchObject({ seenSignal: 'rebalance-taint', seenAt: ago(20 * MIN).toISOString() });
  }, 60_000);

  it('a failover mid-grace that outlasts it: the leader went before it looked at the new cordons, the next one uncordons them in its first pass, and the ledger has them', async () => {
    const a = await start();
    await becomesLeader(a);
    // NTH cordons; the leader goes before its next pass (the clock has not moved), in the middle of their grace.
    for (const n of NODES) sim.scenario.cordonAsNth(n, { taint: true });
    const cordonedAt = clock.now();
    await a.close();
    // The failover takes longer than the grace left: the next leader's first pass finds them past it.
    await clock.step(16 * MIN);
    const b = await start(true);
    await becomesLeader(b);
    for (const n of NODES) expect(await uncordoned(n)).toBe(true);

    const rows = await waitFor(async () => {
      const r = await rebalances(b);
      return r.length === 4 && r.every((x) => x.outcome === 'uncordoned') ? r : undefined;
    }, 'four ledger rows, uncordoned');
    expect(rows.map((r) => r.node)).toEqual(NODES);
    for (const r of rows) expect(r.seenAt).toBe(cordonedAt.toISOString());
  }, 60_000);

  it("whatever the ledger's own passes do: with them stopped, each cordon the first pass reverses is still recorded, on the read before its patch", async () => {
    const a = await start();
    await becomesLeader(a);
    const b = await start(true);
    // The ledger's passes never run on the next leader: what records the rebalances is the uncordon itself.
    await b.app.get(RebalanceLedgerController).controller.stop();
    for (const n of NODES) sim.scenario.cordonAsNth(n, { taint: true, at: ago(20 * MIN) });
    await a.close();
    await becomesLeader(b);
    for (const n of NODES) expect(await uncordoned(n)).toBe(true);
    const rows = await rebalances(b);
    expect(rows.map((r) => [r.node, r.outcome, r.seenSignal])).toEqual(NODES.map((n) => [n, 'observed', 'rebalance-taint']));
  }, 60_000);
});
