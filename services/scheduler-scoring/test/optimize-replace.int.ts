import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { Commands, type OptimizeReplaceRequest, type OptimizeReplaceResult } from '@nodes-manager/contracts';
import { FakeClock, InProcessCommandBus, JsonLogger, PAUSE_GATE, PauseGate } from '@nodes-manager/platform';
import { aKubeNode, aKubePod } from '@nodes-manager/kube/testing';
import { startHarness, type Harness } from './harness.js';

/**
 * `optimize.replace` on the simulator and real Postgres, fake clock: NodePool `general` fell back to on-demand and
 * admits Spot again; its three on-demand nodes (`od-1..3`) are asked to move off, a few at a time, through the
 * optimizer's gate. A Spot node of the pool and an on-demand node of another pool are asked too, and refused.
 * The nightly window is 02:00–05:00 UTC; OPTIMIZE_MODE=plan keeps the loop's own consolidation from draining.
 */
function fleet() {
  const busy = (node: string) => Array.from({ length: 6 }, (_, i) => aKubePod(`core-${node}-${i}`, node, { app: 'core', cpu: '500m', memory: '1Gi' }));
  return {
    nodes: [
      aKubeNode('od-1', { nodePool: 'general' }),
      aKubeNode('od-2', { nodePool: 'general', zone: 'us-east-1b' }),
      aKubeNode('od-3', { nodePool: 'general' }),
      aKubeNode('spot-1', { nodePool: 'general', capacityType: 'spot' }),
      aKubeNode('batch-1', { nodePool: 'batch' }),
    ],
    pods: [...busy('od-1'), ...busy('od-2'), ...busy('od-3'), aKubePod('web-1', 'spot-1', { app: 'web', cpu: '200m', memory: '256Mi' })],
  };
}

const ENV = { SCAN_INTERVAL_SECONDS: '45', OPTIMIZE_MODE: 'plan', OPTIMIZE_MAX_DISRUPTIONS: '1', DISRUPTION_WINDOWS: '0 2 * * * 3h UTC' };
const ASKER = { actor: 'system:karpenter-gateway', correlationId: 'steer-1' };
const REQUEST: OptimizeReplaceRequest = {
  nodePool: 'general',
  nodes: ['od-1', 'od-2', 'od-3', 'spot-1', 'batch-1'],
  reason: 'NodePool general admits Spot again',
  evidence: [{ pool: 'm5.xlarge/us-east-1a', state: 'healthy' }],
};

const outcomes = (r: OptimizeReplaceResult) => Object.fromEntries(r.results.map((x) => [x.node, `${x.outcome}:${x.reason}`]));

function pauseGate(clock: FakeClock, paused: { on: boolean }) {
  return new PauseGate({
    service: 'scheduler-scoring',
    source: async () => ({ pause: paused.on ? { reason: 'incident review', scope: 'disruptive', pausedBy: 'alice', pausedAt: '2026-03-11T00:00:00.000Z', until: null, source: 'api' } : null }),
    clock,
    logger: new JsonLogger('scheduler-scoring', 'error'),
    intervalMs: 24 * 3600 * 1000,
  });
}

describe('optimize.replace: on-demand nodes drained through the optimizer gate (automatic approvals)', () => {
  let h: Harness;
  const clock = new FakeClock('2026-03-11T00:30:00Z'); // outside the window
  const paused = { on: false };
  const replace = (req: OptimizeReplaceRequest = REQUEST) => new InProcessCommandBus(h.runtime.commands!, 10_000).send(Commands.optimizeReplace, req, ASKER);
  const cordoned = async () => (await h.sim.kubeConfig('test-reader').makeApiClient(k8s.CoreV1Api).listNode()).items.filter((n) => n.spec?.unschedulable).map((n) => n.metadata!.name!).sort();

  beforeAll(async () => {
    h = await startHarness(fleet(), ENV, { clock, providers: [{ provide: PAUSE_GATE, useValue: pauseGate(clock, paused) }] });
    await h.optimize.controller.settled();
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('outside the maintenance window: nothing drained, every node queued with the opening time', async () => {
    const r = await replace();
    expect(r.action).toBe('wait_for_window');
    expect(r.detail).toMatch(/opens at 2026-03-11T02:00:00.000Z/);
    expect(r.results.every((x) => x.outcome === 'queued' && x.reason === 'outside_window')).toBe(true);
    expect(h.uncordon.drains).toEqual([]);
    expect(await cordoned()).toEqual([]);
  });

  it('while the fleet-wide pause holds: nothing drained, every node queued', async () => {
    clock.set('2026-03-11T02:05:00Z');
    paused.on = true;
    const r = await replace();
    expect([r.action, r.results.every((x) => x.outcome === 'queued' && x.reason === 'paused')]).toEqual(['paused', true]);
    expect(h.uncordon.drains).toEqual([]);
    paused.on = false;
  });

  it('inside the window with OPTIMIZE_MAX_DISRUPTIONS=1: one node drained per pass, the others queued; a Spot node and another pool refused', async () => {
    const first = await replace();
    expect(first.action).toBe('drain');
    expect(outcomes(first)).toEqual({
      'od-1': 'accepted:drain_started',
      'od-2': 'queued:max_disruptions',
      'od-3': 'queued:max_disruptions',
      // Re-checked only when the budget leaves room for its drain: asked alone below.
      'spot-1': 'queued:max_disruptions',
      'batch-1': 'refused:not_in_nodepool',
    });
    expect(first.results.find((x) => x.node === 'od-1')!.operationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(h.uncordon.drains.map((d) => [d.data.node, d.meta.actor])).toEqual([['od-1', 'system:karpenter-gateway']]);
    // Recorded as a plan of kind replace with its reason, evidence, actor and the drain it started.
    const [row] = await h.db.query<{ node_pool: string; actor: string; plan: any }>(`SELECT node_pool, actor, plan FROM nodes.consolidation_plans WHERE id = $1`, [first.requestId]);
    expect(row).toMatchObject({ node_pool: 'general', actor: 'system:karpenter-gateway', plan: { kind: 'replace', reason: REQUEST.reason, evidence: REQUEST.evidence, execution: { drained: [{ node: 'od-1' }] } } });
    expect(outcomes(await replace({ ...REQUEST, nodes: ['spot-1'] }))).toEqual({ 'spot-1': 'refused:not_on_demand' });
    // The next pass (the first drain has finished): the next node, still one.
    const second = await replace({ ...REQUEST, nodes: ['od-2', 'od-3'] });
    expect(outcomes(second)).toEqual({ 'od-2': 'accepted:drain_started', 'od-3': 'queued:max_disruptions' });
    expect(h.uncordon.drains.map((d) => d.data.node)).toEqual(['od-1', 'od-2']);
    expect(await cordoned()).toEqual(['od-1', 'od-2']);
    await h.relayed();
    expect(h.events.filter((e) => e.type === 'optimize.executed').map((e) => (e.data as any).planId)).toEqual(expect.arrayContaining([first.requestId, second.requestId]));
  });

  it('refuses a malformed request naming the field, and drains nothing', async () => {
    await expect(replace({ nodePool: 'general', nodes: [], reason: 'x' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(h.uncordon.drains).toHaveLength(2);
  });
});

describe('optimize.replace with DISRUPTION_APPROVAL=manual: an approval request of kind optimize, then the drains', () => {
  let h: Harness;
  const clock = new FakeClock('2026-03-11T02:05:00Z'); // inside the window
  const replace = () => new InProcessCommandBus(h.runtime.commands!, 10_000).send(Commands.optimizeReplace, { ...REQUEST, nodes: ['od-1', 'od-2', 'od-3'] }, ASKER);

  beforeAll(async () => {
    h = await startHarness(fleet(), { ...ENV, DISRUPTION_APPROVAL: 'manual' }, { clock });
    await h.optimize.controller.settled();
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it('asks for approval instead of draining; asked again, says it is open; once approved, drains within the budget', async () => {
    const first = await replace();
    expect(first.action).toBe('approval_requested');
    expect(first.results.every((x) => x.outcome === 'queued' && x.reason === 'awaiting_approval')).toBe(true);
    const a = (await h.call('GET', `/api/v1/approvals/${first.approvalId}`)).body;
    expect(a).toMatchObject({ kind: 'optimize', service: 'scheduler-scoring', status: 'pending', subject: 'replace:general', requestedBy: 'system:karpenter-gateway' });
    expect(a.nodes.map((n: any) => n.node)).toEqual(['od-1', 'od-2', 'od-3']);
    expect(a.reason).toMatch(/Replace 3 on-demand nodes of NodePool general/);
    const again = await replace();
    expect([again.action, again.approvalId]).toEqual(['approval_open', first.approvalId]);
    expect(h.uncordon.drains).toEqual([]);

    expect((await h.call('POST', `/api/v1/approvals/${first.approvalId}/approve`, { comment: 'back to Spot' })).status).toBe(200);
    const done = await replace();
    expect(done.action).toBe('drain');
    expect(outcomes(done)).toEqual({ 'od-1': 'accepted:drain_started', 'od-2': 'queued:max_disruptions', 'od-3': 'queued:max_disruptions' });
    // Carried out as its approver.
    expect(h.uncordon.drains.map((d) => [d.data.node, d.meta.actor])).toEqual([['od-1', 'alice']]);
    const finished = (await h.call('GET', `/api/v1/approvals/${first.approvalId}`)).body;
    expect(finished.status).toBe('executed');
    expect(finished.results).toEqual(expect.arrayContaining([expect.objectContaining({ node: 'od-1', outcome: 'started' }), expect.objectContaining({ node: 'od-2', outcome: 'skipped', reason: 'max_disruptions' })]));
    // The queued nodes need an approval of their own: the next pass asks again.
    expect((await replace()).action).toBe('approval_requested');
    expect(h.uncordon.drains).toHaveLength(1);
  });
});
