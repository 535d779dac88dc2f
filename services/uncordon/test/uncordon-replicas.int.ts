import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { DATA_SOURCE, FakeClock } from '@nodes-manager/platform';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { becomesLeader, startUncordon, type UncordonApp, getNode } from './uncordon.harness.js';
import { aKubeNode } from '@nodes-manager/kube/testing';

/*
 * Replicas, restarts and conflicts, on a fake clock shared by the service and the simulator (managedFields
 * times, Ready transitions): the grace period passes by `clock.step`, never by sleeping; every timer of the
 * controllers (requeues, the debounce of node changes, the scan interval) is the clock's.
 */
const MIN = 60_000;

describe('auto-uncordon: replicas, restarts, conflicts', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let clock: FakeClock;
  const apps: UncordonApp[] = [];
  const start = async (env: Record<string, string> = {}): Promise<UncordonApp> => {
    // An hour's scan interval: what happens within a test is the verdicts' own requeues and node changes.
    const a = await startUncordon({ databaseUrl: db.url, kubeconfig: sim.kubeconfigPath, clock, env: { AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '3', SCAN_INTERVAL_SECONDS: '3600', ...env } });
    apps.push(a);
    return a;
  };
  const uncordonRows = async (node?: string) =>
    db.query<{ node_name: string; evidence: Record<string, unknown> }>(
      `SELECT node_name, evidence FROM nodes.scaling_events WHERE action = 'uncordon' ${node ? 'AND node_name = $1' : ''}`,
      node ? [node] : [],
    );

  /** results_ — `nodes_manager_uncordons_total` of one replica, by result. */
  const results_ = async (a: UncordonApp): Promise<Record<string, number>> => {
    const metric = await a.runtime.metrics.registry.getSingleMetric('nodes_manager_uncordons_total')!.get();
    return Object.fromEntries(metric.values.map((v) => [String(v.labels.result), v.value]));
  };
  /** cycleUntil — background cycles (watch events, timers) run too: assert on outcomes, after any cycle. */
  const cycleUntil = async (a: UncordonApp, what: string, done: () => Promise<boolean>) =>
    waitFor(async () => {
      await a.cycle();
      return (await done()) || undefined;
    }, what, 10_000);
  const uncordoned = (node: string, n = 1) => async () => (await uncordonRows(node)).length === n;

  beforeEach(async () => {
    clock = new FakeClock('2026-03-01T10:00:00Z');
    sim = await startKubeSim({ clock: () => clock.now() });
    db = await createTestDatabase('nm_uncordon');
  });

  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close().catch(() => undefined);
    await sim.stop();
    await db.drop();
  });

  it('two replicas on one database patch each eligible node exactly once', async () => {
    const names = ['r-1', 'r-2', 'r-3', 'r-4'];
    sim.load({ nodes: names.map((n) => aKubeNode(n, { readySince: new Date(clock.now().getTime() - 60 * MIN) })) });
    for (const n of names) sim.scenario.cordonAsNth(n, { taint: true });
    const [a, b] = [await start(), await start()];
    await waitFor(() => a.leader.isLeader || b.leader.isLeader, 'a leader');
    expect(a.leader.isLeader && b.leader.isLeader).toBe(false);

    await clock.step(4 * MIN);
    // Both replicas are asked to act, at the same time, several times over.
    await Promise.all([a.cycle(), b.cycle(), a.cycle(), b.cycle()]);
    await waitFor(async () => (await uncordonRows()).length === 4 || undefined, 'four uncordons');
    await Promise.all([a.cycle(), b.cycle()]);

    expect((await uncordonRows()).map((r) => r.node_name).sort()).toEqual(names);
    // Successful patches: four in all. Any extra write request must have been refused by the resourceVersion guard.
    const results = await Promise.all([a, b].map((x) => results_(x)));
    const sum = (k: string) => results.reduce((t, r) => t + (r[k] ?? 0), 0);
    expect(sum('uncordoned')).toBe(4);
    expect(sim.stats().byVerbResource['patch nodes']).toBe(4 + sum('conflict'));
    for (const n of names) expect((await getNode(sim, n)).spec.unschedulable).toBeFalsy();
  }, 40_000);

  it('a restart during the grace period does not restart the clock (T from first sight, kept in Postgres)', async () => {
    // No managedFields owner (bulk-loaded), so NTH's rebalance taint is the provenance and T is our first sight.
    sim.load({
      nodes: [
        aKubeNode('g-1', {
          readySince: new Date(clock.now().getTime() - 60 * MIN),
          unschedulable: true,
          taints: [
            { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
            { key: 'aws-node-termination-handler/rebalance-recommendation', effect: 'NoSchedule' },
          ],
        }),
      ],
    });
    const firstSight = clock.now();
    const first = await start();
    await becomesLeader(first);
    await first.cycle();
    const [obs] = await db.query<{ first_seen_cordoned_at: Date }>(`SELECT first_seen_cordoned_at FROM nodes.cordon_observations WHERE node_name = 'g-1'`);
    expect(obs?.first_seen_cordoned_at.toISOString()).toBe(firstSight.toISOString());

    await clock.step(2 * MIN);
    const before = await first.cycle();
    expect(before.verdicts).toEqual([expect.objectContaining({ node: 'g-1', decision: 'wait', requeueAfterMs: MIN })]);
    await first.close();

    const second = await start();
    await becomesLeader(second);
    await clock.step(1.5 * MIN);
    await cycleUntil(second, 'g-1 uncordoned', uncordoned('g-1'));
    const [row] = await uncordonRows('g-1');
    expect(row?.evidence).toMatchObject({ cordonedSince: firstSight.toISOString(), cordonedSinceSource: 'first-seen', provenance: 'rebalance-taint' });
    expect((await getNode(sim, 'g-1')).spec.taints ?? []).toEqual([]);
  }, 40_000);

  it('a conflict on the patch is retried on a fresh read', async () => {
    sim.load({ nodes: [aKubeNode('c-1', { readySince: new Date(clock.now().getTime() - 60 * MIN) })] });
    sim.scenario.cordonAsNth('c-1');
    const a = await start();
    await becomesLeader(a);
    await a.cycle();
    sim.faults.set({ conflictNextWrite: true });
    await clock.step(4 * MIN);
    // Whichever cycle met the conflict (watch events and timers run cycles too), a later one re-read and patched.
    await cycleUntil(a, 'c-1 uncordoned', uncordoned('c-1'));
    expect(sim.faults.current().conflictNextWrite).toBe(false);
    expect(await results_(a)).toMatchObject({ conflict: 1, uncordoned: 1 });
    expect(await uncordonRows('c-1')).toHaveLength(1);
    expect((await getNode(sim, 'c-1')).spec.unschedulable).toBeFalsy();
  }, 40_000);

  it('an uncordon that landed while its record failed is recorded by the next cycle, exactly once, with its event', async () => {
    sim.load({ nodes: [aKubeNode('r-1', { readySince: new Date(clock.now().getTime() - 60 * MIN) })] });
    sim.scenario.cordonAsNth('r-1');
    const a = await start();
    const events: string[] = [];
    a.runtime.eventBus!.tap((e) => {
      if (e.type === 'node.uncordoned' && e.subject === 'r-1') events.push(e.id);
    });
    await becomesLeader(a);
    await a.cycle();
    // The database refuses the record (as during an outage) after the patch has landed.
    await db.query(`CREATE FUNCTION nodes.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'database unavailable'; END $$`);
    await db.query(`CREATE TRIGGER refuse BEFORE INSERT ON nodes.scaling_events FOR EACH ROW EXECUTE FUNCTION nodes.refuse()`);
    await clock.step(4 * MIN);
    await waitFor(async () => (await getNode(sim, 'r-1')).spec.unschedulable !== true || (await a.cycle(), false), 'the patch to land', 10_000);
    expect(await uncordonRows('r-1')).toHaveLength(0);
    const [pending] = await db.query<{ pending_uncordon: { at: string } | null }>(`SELECT pending_uncordon FROM nodes.cordon_observations WHERE node_name = 'r-1'`);
    expect(pending?.pending_uncordon?.at).toBe((await getNode(sim, 'r-1')).metadata.annotations['nodes-manager/uncordoned-at']);

    await db.query(`DROP TRIGGER refuse ON nodes.scaling_events`);
    await cycleUntil(a, 'the landed uncordon to be recorded', uncordoned('r-1'));
    await a.cycle();
    expect(await uncordonRows('r-1')).toHaveLength(1);
    await waitFor(() => events.length >= 1, 'its node.uncordoned event');
    expect(events).toHaveLength(1);
    expect(await db.query(`SELECT 1 FROM nodes.cordon_observations WHERE node_name = 'r-1'`)).toEqual([]);
  }, 40_000);

  it('the budget holds per scan interval however many cycles run: 7 eligible, max 3 → 3, then 3, then 1', async () => {
    const names = ['b-1', 'b-2', 'b-3', 'b-4', 'b-5', 'b-6', 'b-7'];
    sim.load({ nodes: names.map((n) => aKubeNode(n, { readySince: new Date(clock.now().getTime() - 60 * MIN) })) });
    for (const n of names) sim.scenario.cordonAsNth(n);
    const a = await start({ AUTO_UNCORDON_MAX_PER_CYCLE: '3', SCAN_INTERVAL_SECONDS: '60' });
    await becomesLeader(a);
    await a.cycle();
    // To the end of the grace (it runs from the end of the second of the cordon): the controller's requeue acts then.
    await clock.step(3 * MIN + 1000);
    /** burst — many passes in the same instant (as the watch events of our own patches set off). */
    const burst = async () => {
      for (let i = 0; i < 4; i++) await a.cycle();
      return a.cycle();
    };

    let last = await burst();
    expect(await uncordonRows()).toHaveLength(3);
    const held = last.verdicts.filter((v) => v.reason === 'BUDGET_EXHAUSTED');
    expect(held).toHaveLength(4);
    // All three slots were taken at this instant: the first frees one scan interval later.
    for (const v of held) expect(v).toMatchObject({ decision: 'wait', requeueAfterMs: 60_000 });
    expect(last.requeueAfterMs).toBe(60_000);

    await clock.step(60_000);
    last = await burst();
    expect(await uncordonRows()).toHaveLength(6);
    expect(last.verdicts.filter((v) => v.reason === 'BUDGET_EXHAUSTED')).toHaveLength(1);

    await clock.step(60_000);
    await burst();
    expect((await uncordonRows()).map((r) => r.node_name).sort()).toEqual(names);
  }, 40_000);

  it('a record whose commit landed but whose acknowledgement was lost is not written twice on retry', async () => {
    sim.load({ nodes: [aKubeNode('a-1', { readySince: new Date(clock.now().getTime() - 60 * MIN) })] });
    sim.scenario.cordonAsNth('a-1');
    const a = await start();
    const events: string[] = [];
    a.runtime.eventBus!.tap((e) => {
      if (e.type === 'node.uncordoned' && e.subject === 'a-1') events.push(e.id);
    });
    await becomesLeader(a);
    await a.cycle();
    // The ledger's pass after it has written its row of this rebalance: the next transaction is the uncordon's record.
    await a.settled();
    // The first transaction after this commits, then its acknowledgement is lost (the connection drops).
    const ds = a.app.get<DataSource>(DATA_SOURCE);
    const transaction = ds.transaction.bind(ds) as (...args: unknown[]) => Promise<unknown>;
    let lost = 0;
    ds.transaction = (async (...args: unknown[]) => {
      const result = await transaction(...args);
      if (lost++ === 0) throw new Error('Connection terminated unexpectedly');
      return result;
    }) as typeof ds.transaction;
    await clock.step(4 * MIN);
    await cycleUntil(a, 'a-1 uncordoned', async () => lost > 1 || (await uncordonRows('a-1')).length > 1);
    await a.cycle();
    expect(await uncordonRows('a-1')).toHaveLength(1);
    await waitFor(() => events.length >= 1, 'its node.uncordoned event');
    // Once the relay has published everything in the outbox, a second event would have been published too.
    await waitFor(async () => (await db.query(`SELECT 1 FROM nodes.outbox_uncordon WHERE sent_at IS NULL`)).length === 0 || undefined, 'the outbox published');
    expect(events).toHaveLength(1);
    // The rebalance ledger adds its own events to the same outbox; the uncordon's is counted.
    const outbox = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM nodes.outbox_uncordon WHERE type = 'node.uncordoned'`);
    expect(outbox).toEqual([{ n: '1' }]);
  }, 40_000);

  it('backs off a flapping node: the second uncordon within 24 h waits twice the grace', async () => {
    sim.load({ nodes: [aKubeNode('f-1', { readySince: new Date(clock.now().getTime() - 60 * MIN) })] });
    sim.scenario.cordonAsNth('f-1');
    const a = await start();
    await becomesLeader(a);
    // The grace runs from the end of the second the cordon was written in (managedFields times are whole seconds).
    await clock.step(3 * MIN + 1000);
    await cycleUntil(a, 'f-1 uncordoned', uncordoned('f-1'));
    await clock.step(MIN - 1000);
    sim.scenario.cordonAsNth('f-1');
    await clock.step(4 * MIN);
    // The new cordon reaches the service through its watch.
    const waiting = await waitFor(async () => {
      const r = await a.cycle();
      return r.verdicts.length > 0 ? r : undefined;
    }, 'the new cordon seen');
    expect(waiting.verdicts).toEqual([expect.objectContaining({ decision: 'wait', requeueAfterMs: 2 * MIN + 1000, evidence: expect.objectContaining({ flapCount: 1, effectiveGraceMinutes: 6 }) })]);
    await clock.step(2 * MIN + 1000 - 1);
    expect((await a.cycle()).acted).toEqual({});
    await clock.step(1);
    await cycleUntil(a, 'f-1 uncordoned again', uncordoned('f-1', 2));
  }, 40_000);

  it('dry run records the decision once and never patches', async () => {
    sim.load({ nodes: [aKubeNode('d-1', { readySince: new Date(clock.now().getTime() - 60 * MIN) })] });
    sim.scenario.cordonAsNth('d-1');
    const a = await start({ AUTO_UNCORDON_DRY_RUN: 'true' });
    await becomesLeader(a);
    await clock.step(4 * MIN);
    await a.cycle();
    await a.cycle();
    const rows = await db.query<{ dry_run: boolean; reason: string }>(`SELECT dry_run, reason FROM nodes.scaling_events WHERE node_name = 'd-1'`);
    expect(rows).toEqual([{ dry_run: true, reason: 'DRY_RUN' }]);
    expect(sim.stats().byVerbResource['patch nodes'] ?? 0).toBe(0);
    expect((await getNode(sim, 'd-1')).spec.unschedulable).toBe(true);
  }, 40_000);
});
