import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { FakeClock } from '@nodes-manager/platform';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { api, becomesLeader, getNode, startUncordon, type UncordonApp } from './uncordon.harness.js';
import { aKubeNode } from '@nodes-manager/kube/testing';

/*
 * AUTO_UNCORDON_GRACE_MODE=learned (docs/rebalance-ledger.md): a pool whose ledger holds enough interruption lead
 * times gets its p90 as grace period — but never less than AUTO_UNCORDON_GRACE_PERIOD_MINUTES. The ledger rows are
 * written as the ledger would have; the nodes are cordoned by NTH 20 minutes ago in the simulator.
 */
const MIN = 60_000;
/** The service and the simulator share a fake clock: the figures' cache and the passes go by its steps. */
const clock = new FakeClock('2026-03-01T10:00:00Z');
const ago = (ms: number): Date => new Date(clock.now().getTime() - ms);
const POOLS = {
  slow: { type: 'm5.large', zone: 'us-east-1a', leads: [30, 40, 50, 60, 70, 80, 90, 100, 110, 120] }, // p90 111 min
  fast: { type: 'c5.large', zone: 'us-east-1b', leads: [2, 2, 3, 3, 4, 4, 5, 5, 6, 6] }, // p90 6 min: shorter than 15
  thin: { type: 'r5.large', zone: 'us-east-1c', leads: [200, 210, 220] }, // too few samples
};
const nodeOf = (name: string, pool: (typeof POOLS)[keyof typeof POOLS]) => {
  const n = aKubeNode(name, { readySince: ago(300 * MIN) });
  n.metadata!.labels = { ...n.metadata!.labels, 'node.kubernetes.io/instance-type': pool.type, 'topology.kubernetes.io/zone': pool.zone };
  return n;
};

describe('learned grace mode', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let app: UncordonApp;

  beforeAll(async () => {
    sim = await startKubeSim({ clock: () => clock.now(), timers: clock });
    db = await createTestDatabase('nm_learned');
    sim.load({ nodes: [nodeOf('n-slow', POOLS.slow), nodeOf('n-fast', POOLS.fast), nodeOf('n-thin', POOLS.thin)] });
    app = await startUncordon({
      databaseUrl: db.url,
      kubeconfig: sim.kubeconfigPath,
      gateway: true,
      clock,
      env: { AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '15', AUTO_UNCORDON_GRACE_MODE: 'learned', AUTO_UNCORDON_LEARNED_MIN_SAMPLES: '10' },
    });
    await becomesLeader(app);
    let i = 0;
    for (const pool of Object.values(POOLS)) {
      for (const lead of pool.leads) {
        const seen = ago(2 * 24 * 60 * MIN + i++ * MIN);
        await db.query(
          `INSERT INTO nodes.rebalance_ledger (id, node_name, node_uid, instance_type, zone, capacity_type, seen_at, seen_signal, seen_time_source, outcome, resolved_at, interrupted_at, interruption_source, lead_time_ms, updated_at)
           VALUES ($1, $2, $3, $4, $5, 'spot', $6, 'rebalance-taint', 'taint-time-added', 'interrupted', $7, $7, 'spot-itn-taint', $8, now())`,
          [randomUUID(), `old-${i}`, `old-uid-${i}`, pool.type, pool.zone, seen, new Date(seen.getTime() + lead * MIN), lead * MIN],
        );
      }
    }
    await clock.step(1_000); // the figures are cached for one scan interval (1 s here)
    for (const n of ['n-slow', 'n-fast', 'n-thin']) sim.scenario.cordonAsNth(n, { taint: true, at: ago(20 * MIN) });
  }, 40_000);

  afterAll(async () => {
    await app?.close();
    await sim?.stop();
    await db?.drop();
  });

  it('a pool with a p90 lead time longer than the configured grace waits that long; one with a shorter p90 keeps the configured grace', async () => {
    // Each look steps the clock past the debounce of the cordons' watch events, so the passes they set off run.
    for (const n of ['n-fast', 'n-thin']) {
      await waitFor(async () => (await clock.step(250), !(await getNode(sim, n)).spec?.unschedulable), `${n} uncordoned after the configured 15 min`, 20_000);
    }
    const cordons = (await api<{ items: Array<{ node: string; decision: string; reason: string; evidence: { effectiveGraceMinutes?: number }; rebalance?: { samples: number; p90LeadMinutes: number | null; grace: { minutes: number; basis: string } } }> }>(app.url!, '/api/v1/cordons')).body.items;
    const slow = cordons.find((c) => c.node === 'n-slow')!;
    expect(slow).toMatchObject({ decision: 'wait', reason: 'WAITING_GRACE_PERIOD', evidence: { effectiveGraceMinutes: 111 } });
    expect(slow.rebalance).toMatchObject({ samples: 10, p90LeadMinutes: 111, grace: { minutes: 111, basis: 'learned' } });
    expect((await getNode(sim, 'n-slow')).spec?.unschedulable).toBe(true);
    const uncordons = await db.query<{ node_name: string; grace: string }>(`SELECT node_name, evidence->>'effectiveGraceMinutes' AS grace FROM nodes.scaling_events WHERE action = 'uncordon'`);
    // n-fast's p90 (6 min) would have shortened the grace: it was uncordoned on the configured 15; so was thin's pool (3 samples < 10).
    expect(uncordons.sort((a, b) => a.node_name.localeCompare(b.node_name))).toEqual([
      { node_name: 'n-fast', grace: '15' },
      { node_name: 'n-thin', grace: '15' },
    ]);
  });
});
