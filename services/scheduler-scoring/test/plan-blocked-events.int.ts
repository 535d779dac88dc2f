import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { FakeClock } from '@nodes-manager/platform';
import { waitFor } from '@nodes-manager/platform/testing';
import { aKubeNode, aKubePdb, aKubePod } from '@nodes-manager/kube/testing';
import { busyPair, startHarness, type Harness } from './harness.js';

/**
 * Two busy nodes and three idle ones: `idle-web` (no budget: planned away), `idle-ledger` (its pod under `ledger-pdb`,
 * minAvailable 1 over one replica: no disruption allowed) and `idle-cart` (its pod under two such budgets).
 */
function fleet() {
  const busy = busyPair();
  return {
    nodes: [
      ...busy.nodes,
      aKubeNode('idle-web'),
      aKubeNode('idle-ledger'),
      aKubeNode('idle-cart', { zone: 'us-east-1b' }),
    ],
    pods: [
      ...busy.pods,
      aKubePod('web-1', 'idle-web', { app: 'web', cpu: '200m', memory: '256Mi' }),
      aKubePod('ledger-1', 'idle-ledger', { app: 'ledger', cpu: '250m', memory: '512Mi' }),
      aKubePod('cart-1', 'idle-cart', { app: 'cart', cpu: '250m', memory: '512Mi' }),
    ],
    pdbs: [aKubePdb('ledger-pdb', { minAvailable: 1 }), aKubePdb('cart-pdb', { minAvailable: 1 }), aKubePdb('shop-pdb', { app: 'cart', minAvailable: 1 })],
  };
}

const SCAN_MS = 1_000;
/** PDB_BLOCKED_EVENT_REFRESH_MINUTES of this test: 6 s, six loop cycles. */
const REFRESH_MS = 6_000;
const MERGE = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

describe('the Node Events of a plan a PodDisruptionBudget blocks (all-in-one, Kubernetes simulator over HTTP, fake clock)', () => {
  let h: Harness;
  const clock = new FakeClock(new Date());
  const loopCycles = (n: number) => clock.step(n * SCAN_MS);
  /** nodeEvents — the Events on one Node, read as `kubectl describe node` finds them (a field selector in `default`). */
  const nodeEvents = async (node: string) =>
    (await h.sim.kubeConfig().makeApiClient(k8s.CoreV1Api).listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.kind=Node,involvedObject.name=${node}` })).items.filter(
      (e) => e.reason === 'DisruptionBlockedByPDB',
    );
  const uidOf = (node: string) => h.sim.objects('nodes').find((n) => n.metadata.name === node)?.metadata.uid;
  const setMinAvailable = (name: string, minAvailable: number) =>
    h.sim.kubeConfig().makeApiClient(k8s.PolicyV1Api).patchNamespacedPodDisruptionBudget({ name, namespace: 'default', body: { spec: { minAvailable } } }, MERGE);
  const plan = async () => (await h.call('GET', '/api/v1/optimize/plan')).body as { remove: { node: string }[]; blocked: { node: string }[] };

  beforeAll(async () => {
    h = await startHarness(fleet(), { SCAN_INTERVAL_SECONDS: String(SCAN_MS / 1000), OPTIMIZE_MODE: 'plan', PDB_BLOCKED_EVENT_REFRESH_MINUTES: String(REFRESH_MS / 60_000) }, { clock });
    await waitFor(async () => (await h.call('GET', '/api/v1/optimize/plan')).status === 200, 'the cluster cache to sync', 20_000);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("the leader's plan writes one Event on each node a budget keeps, naming every budget", async () => {
    await waitFor(async () => ((await nodeEvents('idle-ledger')).length > 0 && (await nodeEvents('idle-cart')).length > 0) || undefined, 'the Events of the first loop plan', 15_000);
    const [ledger] = await nodeEvents('idle-ledger');
    expect(ledger).toMatchObject({
      metadata: { namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'idle-ledger', uid: uidOf('idle-ledger') },
      type: 'Normal',
      count: 1,
      source: { component: 'nodes-manager' },
      message: 'the consolidation plan keeps idle-ledger: PodDisruptionBudget default/ledger-pdb allows 0 more, needs 1; planned again once the budget allows it',
    });
    const [cart] = await nodeEvents('idle-cart');
    expect(cart!.message).toContain('PodDisruptionBudget default/cart-pdb allows 0 more, needs 1; PodDisruptionBudget default/shop-pdb allows 0 more, needs 1');
    expect(await nodeEvents('idle-web')).toEqual([]);
    const gauge = await h.runtime.metrics.registry.getSingleMetric('nodes_manager_pdb_blocked_nodes')!.get();
    expect(gauge.values.filter((v) => v.labels['source'] === 'plan').map((v) => [v.labels['pdb'], v.value]).sort()).toEqual([
      ['default/cart-pdb', 1],
      ['default/ledger-pdb', 1],
      ['default/shop-pdb', 1],
    ]);
  });

  it("more plans within the refresh, and a user's trigger, write nothing more", async () => {
    await loopCycles(3);
    expect((await h.call('POST', '/api/v1/optimize/trigger', { dryRun: true })).status).toBe(202);
    expect((await nodeEvents('idle-ledger')).map((e) => e.count)).toEqual([1]);
    expect((await nodeEvents('idle-cart')).map((e) => e.count)).toEqual([1]);
  });

  it('a node still kept once its Event is as old as the refresh: the same Event, counted again', async () => {
    const [before] = await nodeEvents('idle-ledger');
    await loopCycles(REFRESH_MS / SCAN_MS);
    const after = await nodeEvents('idle-ledger');
    expect(after.map((e) => [e.metadata.name, e.count])).toEqual([[before!.metadata.name, 2]]);
    expect(new Date(after[0]!.lastTimestamp!).getTime()).toBeGreaterThan(new Date(after[0]!.firstTimestamp!).getTime());
  });

  it('a node freed by its budget, then kept again, is counted on the same Event, not a new one', async () => {
    const [before] = await nodeEvents('idle-ledger');
    await setMinAvailable('ledger-pdb', 0);
    await waitFor(async () => (await plan()).remove.some((r) => r.node === 'idle-ledger') || undefined, 'the plan to remove idle-ledger', 10_000);
    await loopCycles(1);
    await setMinAvailable('ledger-pdb', 1);
    await waitFor(async () => (await plan()).blocked.some((b) => b.node === 'idle-ledger') || undefined, 'the plan to keep idle-ledger again', 10_000);
    await loopCycles(1);
    expect((await nodeEvents('idle-ledger')).map((e) => [e.metadata.name, e.count])).toEqual([[before!.metadata.name, 3]]);
  });
});
