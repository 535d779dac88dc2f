import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { FakeClock } from '@nodes-manager/platform';
import { createTestDatabase, EventCollector, TEST_RABBITMQ_URL, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { api, becomesLeader, startUncordon, type UncordonApp, getNode } from './uncordon.harness.js';
import { aKubeNode } from '@nodes-manager/kube/testing';

/*
 * Auto-uncordon (docs/auto-uncordon.md) end to end: the simulator over HTTP with the real client, real Postgres, the gateway in process and a
 * plain amqplib consumer on `nodes.events` (the real broker). Cordon times are backdated with the simulator's `at`, on a
 * fake clock the service and the simulator share: the service acts by itself, on its controllers' timers, as the
 * test steps the clock.
 */
const MIN = 60_000;
const clock = new FakeClock('2026-03-01T10:00:00Z');
const ago = (ms: number): Date => new Date(clock.now().getTime() - ms);
const NODES = ['n-nth', 'n-kubectl', 'n-karpenter', 'n-notready', 'n-optout', 'n-waiting'];

describe('auto-uncordon against the simulator', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let app: UncordonApp;
  let events: EventCollector;

  beforeAll(async () => {
    sim = await startKubeSim({ clock: () => clock.now(), timers: clock });
    db = await createTestDatabase('nm_uncordon');
    sim.load({ nodes: NODES.map((n) => aKubeNode(n, { readySince: ago(120 * MIN) })) });
    sim.scenario.cordonAsNth('n-nth', { taint: true, at: ago(20 * MIN) });
    sim.scenario.cordonAsKubectl('n-kubectl', { at: ago(20 * MIN) });
    sim.scenario.cordonAsNth('n-karpenter', { at: ago(20 * MIN) });
    sim.scenario.addTaint('n-karpenter', { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    sim.scenario.cordonAsNth('n-notready', { at: ago(20 * MIN) });
    sim.scenario.setReady('n-notready', true, { since: ago(10 * MIN) });
    sim.scenario.cordonAsNth('n-optout', { at: ago(20 * MIN) });
    sim.scenario.setAnnotation('n-optout', 'nodes-manager/auto-uncordon', 'disabled');
    sim.scenario.cordonAsNth('n-waiting', { at: ago(5 * MIN) });
    events = await EventCollector.start(['node.uncordoned']);
    app = await startUncordon({
      databaseUrl: db.url,
      kubeconfig: sim.kubeconfigPath,
      gateway: true,
      rabbitmqUrl: TEST_RABBITMQ_URL,
      clock,
      env: { AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '15', SCAN_INTERVAL_SECONDS: '60' },
    });
    await becomesLeader(app);
  }, 40_000);

  afterAll(async () => {
    await app?.close();
    await events?.close();
    await sim?.stop();
    await db?.drop();
  });

  it('uncordons the NTH rebalance cordon after the grace period: patch, scaling event, CloudEvent, Kubernetes Event', async () => {
    // Becoming leader made the first pass: n-nth, cordoned 20 minutes ago, is past its 15-minute grace.
    const node = await waitFor(async () => {
      const n = await getNode(sim, 'n-nth');
      return n.spec?.unschedulable ? undefined : n;
    }, 'n-nth uncordoned', 20_000);
    expect(node.spec?.taints ?? []).toEqual([]);
    expect(node.metadata.annotations['nodes-manager/uncordoned-at']).toEqual(expect.any(String));
    expect(node.metadata.annotations['nodes-manager/uncordon-reason']).toMatch(/^uncordoned: cordoned by node-termination-handler/);
    const owner = (node.metadata.managedFields as Array<{ manager: string; fieldsV1: Record<string, Record<string, unknown>> }>).find(
      (e) => e.fieldsV1['f:spec'] && 'f:unschedulable' in e.fieldsV1['f:spec']!,
    );
    expect(owner?.manager).toBe('nodes-manager');

    // The record follows the patch (intent, patch, then record): wait for it rather than racing it.
    const rows = await waitFor(async () => {
      const r = await db.query<{ action: string; reason: string; dry_run: boolean; evidence: Record<string, unknown> }>(
        `SELECT action, reason, dry_run, evidence FROM nodes.scaling_events WHERE node_name = 'n-nth'`,
      );
      return r.length > 0 ? r : undefined;
    }, 'the scaling event of n-nth', 10_000);
    // The passes its own patch set off (its watch event, debounced, and the ledger's): still one row.
    await clock.step(1_000);
    await app.settled();
    expect(await db.query(`SELECT 1 FROM nodes.scaling_events WHERE node_name = 'n-nth'`)).toHaveLength(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'uncordon', reason: 'UNCORDON', dry_run: false });
    expect(rows[0]!.evidence).toMatchObject({
      cordonManager: 'node-termination-handler',
      cordonedSinceSource: 'managed-fields',
      effectiveGraceMinutes: 15,
      flapCount: 0,
      rebalanceTaintRemoved: true,
    });
    expect(rows[0]!.evidence.readySince).toEqual(expect.any(String));

    const ev = await events.waitFor((e) => e.type === 'node.uncordoned' && e.subject === 'n-nth', 'node.uncordoned on the broker');
    expect(ev).toMatchObject({ source: 'nodes-manager/uncordon', actor: 'system:uncordon', data: { node: 'n-nth', reason: 'UNCORDON', rebalanceTaintRemoved: true } });

    const kubeEvents = await waitFor(async () => {
      const res = await fetch(`${sim.url}/api/v1/namespaces/default/events`).then((r) => r.json() as Promise<{ items: any[] }>);
      return res.items.find((e) => e.reason === 'NodesManagerUncordoned' && e.involvedObject?.name === 'n-nth');
    }, 'Kubernetes Event on the node');
    expect(kubeEvents).toMatchObject({ type: 'Normal', involvedObject: { kind: 'Node', name: 'n-nth' } });
  }, 30_000);

  it('never touches the others, and /api/v1/cordons says why for each', async () => {
    const { status, body } = await api<{ items: Array<Record<string, any>> }>(app.url!, '/api/v1/cordons?limit=50');
    expect(status).toBe(200);
    const by = Object.fromEntries(body.items.map((c) => [c.node, c]));
    expect(Object.keys(by).sort()).toEqual(['n-karpenter', 'n-kubectl', 'n-notready', 'n-optout', 'n-waiting']);
    expect(by['n-kubectl']).toMatchObject({ decision: 'skip', reason: 'CORDONED_BY_OTHER_MANAGER', evidence: { cordonManagerKind: 'kubectl-cordon' } });
    expect(by['n-kubectl']!.description).toContain('not ours: kubectl-cordon');
    expect(by['n-karpenter']).toMatchObject({ decision: 'skip', reason: 'KARPENTER_DISRUPTION_TAINT', evidence: { blockingTaints: ['karpenter.sh/disrupted:NoSchedule'] } });
    expect(by['n-notready']).toMatchObject({ decision: 'skip', reason: 'NOT_READY_SINCE_CORDON' });
    expect(by['n-optout']).toMatchObject({ decision: 'skip', reason: 'OPTED_OUT' });
    expect(by['n-waiting']).toMatchObject({ decision: 'wait', reason: 'WAITING_GRACE_PERIOD' });
    const uncordonAt = Date.parse(by['n-waiting']!.uncordonAt);
    expect(Math.abs(uncordonAt - (clock.now().getTime() + 10 * MIN))).toBeLessThan(MIN);
    expect(by['n-waiting']!.description).toMatch(/^waiting (10|11) m more/);

    const waiting = await api<{ items: Array<Record<string, any>> }>(app.url!, '/api/v1/cordons?verdict=wait');
    expect(waiting.body.items.map((c) => c.node)).toEqual(['n-waiting']);

    for (const name of NODES.filter((n) => n !== 'n-nth')) {
      const n = await getNode(sim, name);
      expect(n.spec?.unschedulable).toBe(true);
      expect(n.metadata.annotations?.['nodes-manager/uncordoned-at']).toBeUndefined();
    }
    expect(sim.stats().byVerbResource['patch nodes']).toBe(1);
    const rows = await db.query(`SELECT 1 FROM nodes.scaling_events WHERE node_name <> 'n-nth'`);
    expect(rows).toHaveLength(0);
  });

  it('lists scaling events newest first, with filters and a cursor', async () => {
    const all = await api<{ items: Array<Record<string, any>>; nextCursor?: string }>(app.url!, '/api/v1/events?node=n-nth&action=uncordon');
    expect(all.status).toBe(200);
    expect(all.body.items).toHaveLength(1);
    expect(all.body.items[0]).toMatchObject({ node: 'n-nth', action: 'uncordon', reason: 'UNCORDON', actor: 'system:uncordon' });
    const none = await api<{ items: unknown[] }>(app.url!, '/api/v1/events?node=n-kubectl');
    expect(none.body.items).toEqual([]);
    const bad = await api(app.url!, '/api/v1/events?cursor=not-a-cursor');
    expect(bad.status).toBe(400);
  });
});
