import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { FakeClock } from '@nodes-manager/platform';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { createTestDatabase, type TestDatabase } from '@nodes-manager/platform/testing';
import { aKubeNode, aKubePdb, aKubePod } from '@nodes-manager/kube/testing';
import { DrainService } from '../src/drain/drain.service.js';
import { FencingController } from '../src/fencing/fencing.controller.js';
import type { NodeSource } from '../src/adapters/outbound/node-source.adapter.js';
import { NODE_SOURCE } from '../src/tokens.js';
import { becomesLeader, getNode, startUncordon, type UncordonApp } from './uncordon.harness.js';

/*
 * Each uncordon controller's timing, in milliseconds, on a fake clock the service and the simulator share (the
 * simulator's terminating pods too): a row steps the clock to one millisecond before the moment and finds nothing
 * happened, then one more and finds it done — by the controllers' own timers (requeues, polls, retries), with no
 * pass asked for by the test. Real Postgres, the Kubernetes simulator over HTTP.
 */
const MIN = 60_000;

/** aSystem — the simulator, a database and the uncordon service on one fake clock, with `env` on top. */
function aSystem(name: string, env: Record<string, string>) {
  const clock = new FakeClock('2026-03-01T10:00:00Z');
  const s = { clock, sim: undefined as unknown as KubeSim, db: undefined as unknown as TestDatabase, app: undefined as unknown as UncordonApp };
  beforeAll(async () => {
    s.sim = await startKubeSim({ clock: () => clock.now(), timers: clock, podTerminationMs: 300 });
    s.db = await createTestDatabase(name);
    s.app = await startUncordon({ databaseUrl: s.db.url, kubeconfig: s.sim.kubeconfigPath, clock, env: { SCAN_INTERVAL_SECONDS: '3600', ...env } });
    await becomesLeader(s.app);
  }, 60_000);
  afterAll(async () => {
    await s.app?.close();
    await s.sim?.stop();
    await s.db?.drop();
  });
  return s;
}

/** play — steps the clock `ms` (every timer due on the way fires, in order) and lets what they set off finish. */
async function play(s: { clock: FakeClock; app: UncordonApp }, ms: number): Promise<void> {
  await s.clock.step(ms);
  await s.app.settled();
}

/** toWholeSecond — steps to the next whole second (managedFields times have second precision). */
async function toWholeSecond(s: { clock: FakeClock; app: UncordonApp }): Promise<void> {
  const ms = s.clock.now().getTime() % 1000;
  if (ms !== 0) await play(s, 1000 - ms);
}

describe('auto-uncordon: the grace period and the flap back-off', () => {
  const s = aSystem('nm_timing_uncordon', { AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '3' });
  /** seen — the controller's view has the node cordoned (its watch event arrived). */
  const seen = async (node: string) => {
    const source = s.app.app.get<NodeSource>(NODE_SOURCE);
    for (let i = 0; i < 200 && source.get(node)?.spec?.unschedulable !== true; i++) await new Promise((r) => setImmediate(r));
  };

  it.each([
    { row: 'a first NTH cordon waits the grace (3 min), counted from the end of its second', flaps: 0, dueMs: 3 * MIN + 1000 },
    { row: 'a node uncordoned once in the last 24 h waits twice the grace', flaps: 1, dueMs: 6 * MIN + 1000 },
    { row: 'a node uncordoned twice in the last 24 h waits four times the grace', flaps: 2, dueMs: 12 * MIN + 1000 },
  ])('$row: cordoned at $dueMs ms less 1, uncordoned at $dueMs ms', async ({ flaps, dueMs }) => {
    const node = `g-${flaps}`;
    s.sim.load({ nodes: [aKubeNode(node, { readySince: new Date(s.clock.now().getTime() - 60 * MIN) })] });
    for (let i = 1; i <= flaps; i++) {
      await s.db.query(
        `INSERT INTO nodes.scaling_events (id, node_name, action, decision, reason, actor, dry_run, evidence, created_at) VALUES ($1, $2, 'uncordon', 'uncordon', 'UNCORDON', 'system:uncordon', false, '{}', $3)`,
        [randomUUID(), node, new Date(s.clock.now().getTime() - i * 3_600_000)],
      );
    }
    await toWholeSecond(s);
    s.sim.scenario.cordonAsNth(node, { taint: true });
    await seen(node);
    await play(s, dueMs - 1);
    expect((await getNode(s.sim, node)).spec.unschedulable).toBe(true);
    await play(s, 1);
    expect((await getNode(s.sim, node)).spec.unschedulable).toBeFalsy();
    const rows = await s.db.query<{ k: string }>(`SELECT evidence->>'flapCount' AS k FROM nodes.scaling_events WHERE node_name = $1 AND evidence ? 'flapCount'`, [node]);
    expect(rows).toEqual([{ k: String(flaps) }]);
  }, 60_000);
});

describe('drain: the evicted pod awaited, PDB retries and the timeout', () => {
  const s = aSystem('nm_timing_drain', {});
  const operation = async (id: string) =>
    (await s.db.query<{ status: string; reason: string | null; progress: { pdbWaits?: number } }>(`SELECT status, reason, progress FROM nodes.drain_operations WHERE id = $1`, [id]))[0]!;
  /** aDrainOf — a node with one pod (behind a PDB that allows nothing, or not), drained with `timeoutSeconds`. */
  const aDrainOf = async (node: string, o: { pdb: boolean; timeoutSeconds: number }) => {
    const app = `${node}-app`;
    s.sim.load({
      nodes: [aKubeNode(node, { readySince: new Date(s.clock.now().getTime() - 60 * MIN) })],
      pods: [aKubePod(`${node}-pod`, node, { labels: { app } })],
      ...(o.pdb ? { pdbs: [aKubePdb(`${node}-pdb`, { app, minAvailable: 1 })] } : {}),
    });
    const op = await s.app.app.get(DrainService).start({ node, timeoutSeconds: o.timeoutSeconds, force: false, deleteEmptyDirData: false }, { actor: 'test', correlationId: node });
    s.app.drains.enqueue(op.id);
    await s.app.settled();
    return op.id;
  };

  it.each([
    {
      row: 'an evicted pod is awaited, the node looked at every 2 s (the pod goes after 300 ms)',
      node: 'd-poll', pdb: false, timeoutSeconds: 600, atMs: 2_000,
      before: { status: 'running' }, after: { status: 'completed', reason: null },
    },
    {
      row: 'a pod a PDB refuses is asked again 5 s later',
      node: 'd-retry', pdb: true, timeoutSeconds: 600, atMs: 5_000,
      before: { status: 'running', progress: { pdbWaits: 1 } }, after: { status: 'running', progress: { pdbWaits: 2 } },
    },
    {
      row: 'a drain a PDB still blocks fails at its timeout (60 s)',
      node: 'd-timeout', pdb: true, timeoutSeconds: 60, atMs: 60_000,
      before: { status: 'running' }, after: { status: 'failed', reason: 'TIMEOUT_BLOCKED_BY_PDB' },
    },
  ])('$row: at $atMs ms less 1 and at $atMs ms', async ({ node, pdb, timeoutSeconds, atMs, before, after }) => {
    const id = await aDrainOf(node, { pdb, timeoutSeconds });
    await play(s, atMs - 1);
    expect(await operation(id)).toMatchObject(before);
    await play(s, 1);
    expect(await operation(id)).toMatchObject(after);
  }, 60_000);

  it('a drain whose API calls all fail after its last PDB refusal still fails at its timeout (60 s), to the millisecond', async () => {
    const id = await aDrainOf('d-stumble', { pdb: true, timeoutSeconds: 60 });
    const started = s.clock.now().getTime();
    const deadline = started + 60_000;
    /** The pod's next eviction, from the drain's saved state. */
    const retryAt = async () =>
      new Date((await s.db.query<{ at: string }>(`SELECT state->'loop'->'state'->'pods'->0->>'retryAt' AS at FROM nodes.drain_operations WHERE id = $1`, [id]))[0]!.at).getTime();
    // Up to the last refusal before the deadline (the next eviction would come after it): from then on only looks
    // at the node remain, every 2 s, and every one of them fails.
    await play(s, 45_000);
    while ((await retryAt()) < deadline) await play(s, 500);
    expect(await operation(id)).toMatchObject({ status: 'running' });
    s.sim.faults.set({ rate500: 1 });
    try {
      await play(s, deadline - s.clock.now().getTime() - 1);
      expect(await operation(id)).toMatchObject({ status: 'running' });
      await play(s, 1);
      expect(await operation(id)).toMatchObject({ status: 'failed', reason: 'TIMEOUT_BLOCKED_BY_PDB' });
    } finally {
      s.sim.faults.set({ rate500: 0 });
    }
  }, 60_000);
});

describe('fencing: the EC2 confirm timeout and the pod-delete wait, for fences a leader goes on with from their rows', () => {
  const s = aSystem('nm_timing_fencing', { FENCING_CONFIRM_TIMEOUT_SECONDS: '60', FENCING_POD_DELETE_WAIT_SECONDS: '30' });
  const operation = async (id: string) =>
    (await s.db.query<{ status: string; reason: string | null; pods_deleted: number }>(`SELECT status, reason, pods_deleted FROM nodes.fencing_operations WHERE id = $1`, [id]))[0]!;
  const podsOn = async (node: string): Promise<number> =>
    ((await fetch(`${s.sim.url}/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`).then((r) => r.json())) as { items: unknown[] }).items.length;
  /** aFenceAt — a fence recorded up to `status` (its last step now), as a leader that stopped left it. */
  const aFenceAt = async (node: string, status: 'ec2_requested' | 'tainted') => {
    s.sim.load({ nodes: [aKubeNode(node, { readySince: new Date(s.clock.now().getTime() - 60 * MIN) })], pods: [aKubePod(`${node}-pod`, node)] });
    const id = randomUUID();
    const now = s.clock.now();
    const path = status === 'ec2_requested' ? ['pending', 'ec2_requested'] : ['pending', 'ec2_requested', 'confirmed', 'tainted'];
    await s.db.query(
      `INSERT INTO nodes.fencing_operations (id, node_name, node_uid, instance_id, zone, action, dry_run, status, instance_state, actor, steps, evidence, started_at, updated_at)
       VALUES ($1, $2, $3, 'i-0123456789abcdef0', 'us-east-1a', 'stop', false, $4, $5, 'system:uncordon', $6, '{}', $7, $7)`,
      [id, node, `uid-node-${node}`, status, status === 'tainted' ? 'stopped' : null, JSON.stringify(path.map((p) => ({ status: p, at: now.toISOString() }))), now],
    );
    s.app.app.get(FencingController).fences.enqueue(id);
    await s.app.settled();
    return id;
  };

  it.each([
    {
      row: 'EC2 never confirms (spot-advisor away, asked every 2 s): failed EC2_NOT_CONFIRMED at FENCING_CONFIRM_TIMEOUT_SECONDS (60 s)',
      node: 'f-confirm', status: 'ec2_requested' as const, atMs: 60_000,
      before: { status: 'ec2_requested', reason: null }, after: { status: 'failed', reason: 'EC2_NOT_CONFIRMED' }, podsBefore: 1, podsAfter: 1,
    },
    {
      row: "a tainted node's pods are deleted FENCING_POD_DELETE_WAIT_SECONDS (30 s) after the taint",
      node: 'f-pods', status: 'tainted' as const, atMs: 30_000,
      before: { status: 'tainted' }, after: { status: 'completed', pods_deleted: 1 }, podsBefore: 1, podsAfter: 0,
    },
  ])('$row', async ({ node, status, atMs, before, after, podsBefore, podsAfter }) => {
    const id = await aFenceAt(node, status);
    await play(s, atMs - 1);
    expect(await operation(id)).toMatchObject(before);
    expect(await podsOn(node)).toBe(podsBefore);
    await play(s, 1);
    expect(await operation(id)).toMatchObject(after);
    expect(await podsOn(node)).toBe(podsAfter);
  }, 60_000);
});

describe('the rebalance ledger: the horizon', () => {
  const s = aSystem('nm_timing_ledger', { REBALANCE_HORIZON_HOURS: '0.5', AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '15' });
  const row = async (node: string) => (await s.db.query<{ outcome: string; resolved_at: Date | null }>(`SELECT outcome, resolved_at FROM nodes.rebalance_ledger WHERE node_name = $1`, [node]))[0];

  it.each([
    { row: 'a rebalance not followed by an interruption (uncordoned after 15 min) survives at its 30-minute horizon', node: 'l-1', horizonMs: 30 * MIN },
  ])('$row: open at $horizonMs ms less 1, survived at $horizonMs ms', async ({ node, horizonMs }) => {
    s.sim.load({ nodes: [aKubeNode(node, { readySince: new Date(s.clock.now().getTime() - 60 * MIN) })] });
    await toWholeSecond(s);
    const seenAt = s.clock.now();
    s.sim.scenario.cordonAsNth(node, { taint: true });
    // The watch event reaches the ledger; its pass, 200 ms later (debounced), opens the row.
    for (let i = 0; i < 50 && !(await row(node)); i++) await play(s, i === 0 ? 200 : 0);
    expect(await row(node)).toMatchObject({ outcome: 'observed' });
    await play(s, horizonMs - (s.clock.now().getTime() - seenAt.getTime()) - 1);
    expect(await row(node)).toMatchObject({ outcome: 'uncordoned', resolved_at: null });
    await play(s, 1);
    expect(await row(node)).toMatchObject({ outcome: 'survived', resolved_at: new Date(seenAt.getTime() + horizonMs) });
  }, 60_000);
});
