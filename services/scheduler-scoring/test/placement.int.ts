import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { FILTER_REASONS, NTH_REBALANCE_TAINT_KEY } from '@nodes-manager/contracts';
import { waitFor } from '@nodes-manager/platform/testing';
import { aKubeNode, aKubePod } from '@nodes-manager/kube/testing';
import { busyPair, startHarness, type Harness } from './harness.js';

/**
 * The placement list when a pod's node no longer takes it: `spot-a` runs `web-1` and then gets the termination
 * handler's rebalance-recommendation taint (NoSchedule, the handler's default effect), which `web-1` does not
 * tolerate; `ghost-1` is bound to a node the cluster does not have. The list still answers, every entry saying how
 * its node fits it — scored, refusing it (and by which filter), or unknown.
 */
describe('placement.list when a node now refuses its pod or is unknown', () => {
  let h: Harness;
  type Entry = { pod: string; fit: string; score: number | null; dimensions?: object; refusedBy?: { reason: string; detail: string }[]; rationale: string };
  const entry = (body: { items: Entry[] }, pod: string) => body.items.find((p) => p.pod === pod);

  beforeAll(async () => {
    const busy = busyPair();
    h = await startHarness({
      nodes: [...busy.nodes, aKubeNode('spot-a', { capacityType: 'spot' })],
      pods: [...busy.pods, aKubePod('web-1', 'spot-a', { app: 'web', cpu: '200m', memory: '256Mi' }), aKubePod('ghost-1', 'ghost-node', { app: 'ghost' })],
    });
    await waitFor(async () => (await h.call('GET', '/api/v1/optimize/plan')).status === 200, 'the cluster cache to sync', 20_000);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('answers 200 with the tainted node refusing web-1 (untolerated_taint, naming the taint), the unknown node said so, the rest scored', async () => {
    const before = await h.call('GET', '/api/v1/workloads/placement?limit=100');
    expect(before.status).toBe(200);
    expect(entry(before.body, 'default/web-1')).toMatchObject({ fit: 'scored', score: expect.any(Number) });

    const core = h.sim.kubeConfig('nth').makeApiClient(k8s.CoreV1Api);
    await core.patchNode(
      { name: 'spot-a', body: { spec: { taints: [{ key: NTH_REBALANCE_TAINT_KEY, value: 'rebalance-event-1', effect: 'NoSchedule' }] } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    let after = before;
    await waitFor(async () => {
      after = await h.call('GET', '/api/v1/workloads/placement?limit=100');
      return after.status !== 200 || entry(after.body, 'default/web-1')?.fit !== 'scored';
    }, 'the cache to see the taint');

    expect(after.status).toBe(200);
    const web = entry(after.body, 'default/web-1')!;
    expect(web).toMatchObject({ fit: 'node_refuses', score: null, refusedBy: [{ reason: 'untolerated_taint', detail: expect.stringContaining(NTH_REBALANCE_TAINT_KEY) }] });
    expect(web.dimensions).toBeUndefined();
    expect(FILTER_REASONS).toContain(web.refusedBy![0]!.reason);
    expect(web.rationale).toContain('spot-a');

    const ghost = entry(after.body, 'default/ghost-1')!;
    expect(ghost).toMatchObject({ fit: 'node_unknown', score: null, node: 'ghost-node' });
    expect(ghost.refusedBy).toBeUndefined();

    const scored = after.body.items.filter((p: Entry) => p.fit === 'scored');
    expect(scored).toHaveLength(18);
    expect(scored.every((p: Entry) => typeof p.score === 'number' && p.dimensions !== undefined)).toBe(true);
  });
});
