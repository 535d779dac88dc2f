import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeClock } from '@nodes-manager/platform';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { startEc2Sim, startKubeSim, startSimKarpenter, type Ec2Sim, type KubeSim, type SimKarpenter } from '@nodes-manager/sim';
import { createTestDatabase, TEST_RABBITMQ_URL, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { aKubeNode } from '@nodes-manager/kube/testing';
import { api, becomesLeader, startUncordon, type UncordonApp } from './uncordon.harness.js';

/*
 * Every source a real cluster has fills the ledger (docs/rebalance-ledger.md#sources): Karpenter's own interruption
 * handling (Events on the Node and on the NodeClaim — the NodeClaim's outliving both), NTH in IMDS mode (Events that
 * name the node only, taints valued with IMDS event ids) and in queue mode (Events with the Node's uid, taints
 * `…-event-…`), and a rebalance seen by two of them is one row with both pieces of evidence. Real Postgres and
 * RabbitMQ, the Kubernetes simulator over HTTP (the Events and NodeClaims written through its API, as Karpenter and
 * NTH write them), a fake clock shared with the simulator.
 */
const SEC = 1000;
const MIN = 60 * SEC;

interface Evidence {
  kind: string;
  at: string;
  source?: string;
  detail?: string;
}
interface Row {
  node: string;
  outcome: string;
  seenSignal: string;
  seenAt: string;
  interruptionSource: string | null;
  evidence: Evidence[];
}

describe('the rebalance ledger reads every source', () => {
  let sim: KubeSim;
  let db: TestDatabase;
  let clock: FakeClock;
  let app: UncordonApp;
  const ago = (ms: number): Date => new Date(clock.now().getTime() - ms);
  const k8sTime = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

  /** post — a write to the simulator's API, as Karpenter or NTH makes it. */
  const post = async (path: string, body: unknown): Promise<void> => {
    const r = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(r.status).toBe(201);
  };
  const del = async (path: string): Promise<void> => {
    const r = await fetch(`${sim.url}${path}`, { method: 'DELETE' });
    expect(r.status).toBeLessThan(300);
  };
  /** event — a core/v1 Event in `default` about a Node or a NodeClaim (Karpenter's recorder, NTH's Emit). */
  const event = (o: { kind: 'Node' | 'NodeClaim'; name: string; uid?: string; reason: string; type?: string; message: string; at: Date; component: string }) =>
    post('/api/v1/namespaces/default/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { generateName: `${o.name}.`, namespace: 'default' },
      involvedObject: { kind: o.kind, name: o.name, ...(o.kind === 'NodeClaim' ? { apiVersion: 'karpenter.sh/v1' } : { apiVersion: 'v1' }), ...(o.uid ? { uid: o.uid } : {}) },
      reason: o.reason,
      message: o.message,
      type: o.type ?? 'Normal',
      source: { component: o.component },
      firstTimestamp: k8sTime(o.at),
      lastTimestamp: k8sTime(o.at),
      count: 1,
    });
  /** karpenter — Karpenter's Event on the NodeClaim and on its Node (aws/karpenter-provider-aws, events.go). */
  const karpenter = async (node: string, claim: string, reason: string, at: Date, onNode = true) => {
    const type = reason === 'SpotRebalanceRecommendation' ? 'Normal' : 'Warning';
    const message = reason === 'SpotRebalanceRecommendation' ? 'Spot rebalance recommendation was triggered' : 'Spot interruption warning was triggered';
    await event({ kind: 'NodeClaim', name: claim, uid: `uid-claim-${claim}`, reason, type, message, at, component: 'karpenter' });
    if (onNode) await event({ kind: 'Node', name: node, uid: `uid-node-${node}`, reason, type, message, at, component: 'karpenter' });
  };
  const taint = async (node: string, key: string, value: string, at: Date) => {
    const r = await fetch(`${sim.url}/api/v1/nodes/${node}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { taints: [{ key, value, effect: 'NoSchedule', timeAdded: k8sTime(at) }] } }),
    });
    expect(r.status).toBe(200);
  };
  const rows = async (): Promise<Row[]> => {
    const r = await api<{ items: Row[] }>(app.url!, '/api/v1/rebalances?limit=50');
    expect(r.status).toBe(200);
    return r.body.items.sort((x, y) => x.node.localeCompare(y.node));
  };
  /** until — steps the shared clock a scan interval at a time (the ledger re-reads the informers) until `pred` holds. */
  const until = async (what: string, pred: (r: Row[]) => boolean): Promise<Row[]> =>
    waitFor(async () => {
      await clock.step(2 * SEC);
      const r = await rows();
      return pred(r) ? r : undefined;
    }, what);
  const sources = (r: Row | undefined) => (r?.evidence ?? []).filter((e) => e.source).map((e) => `${e.kind} ${e.source}`);

  const claim = (name: string, status: Record<string, string>) => ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, uid: `uid-claim-${name}`, labels: { 'karpenter.sh/nodepool': 'default', 'node.kubernetes.io/instance-type': 'm5.large', 'topology.kubernetes.io/zone': 'us-east-1a' } },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
    status,
  });

  beforeEach(async () => {
    clock = new FakeClock('2026-03-01T10:00:00Z');
    sim = await startKubeSim({ clock: () => clock.now(), timers: clock, karpenter: true });
    db = await createTestDatabase('nm_rebalance_sources');
    const spot = (name: string) => aKubeNode(name, { readySince: ago(120 * MIN), capacityType: 'spot', instanceType: 'm5.large', nodePool: 'default' });
    sim.load({
      nodes: ['k-1', 'k-2', 'imds-1', 'queue-1', 'both-1'].map(spot),
      nodeClaims: [
        claim('default-k1', { nodeName: 'k-1', providerID: 'aws:///us-east-1a/i-k1' }),
        // No nodeName yet: the node is found through the providerID.
        claim('default-k2', { providerID: String(spot('k-2').spec?.providerID) }),
        claim('default-b1', { nodeName: 'both-1' }),
      ],
    } as never);
    app = await startUncordon({ databaseUrl: db.url, kubeconfig: sim.kubeconfigPath, clock, gateway: true, rabbitmqUrl: TEST_RABBITMQ_URL, env: { SCAN_INTERVAL_SECONDS: '1' } });
    await becomesLeader(app);
  });

  afterEach(async () => {
    await app.close().catch(() => undefined);
    await sim.stop();
    await db.drop();
  });

  it("Karpenter alone: its Events on the Node and the NodeClaim make one row; the NodeClaim's SpotInterrupted, after both are gone, resolves it", async () => {
    const seen = ago(30 * SEC);
    await karpenter('k-1', 'default-k1', 'SpotRebalanceRecommendation', seen);
    // k-2's Event is on its NodeClaim only: the claim names its node through the providerID.
    await karpenter('k-2', 'default-k2', 'SpotRebalanceRecommendation', seen, false);
    const opened = await until('rows for k-1 and k-2', (r) => r.length === 2);
    expect(opened.map((r) => [r.node, r.outcome, r.seenSignal, r.seenAt])).toEqual([
      ['k-1', 'observed', 'karpenter-event', seen.toISOString()],
      ['k-2', 'observed', 'karpenter-event', seen.toISOString()],
    ]);
    expect(sources(opened[0])).toEqual(['karpenter-rebalance-event karpenter']);
    expect(opened[1]!.evidence[0]!.detail).toBe('on the NodeClaim default-k2: Spot rebalance recommendation was triggered');

    // Spot reclaims k-1: Karpenter's warning, then it deletes the NodeClaim, and the Node goes.
    await clock.step(2 * MIN);
    const warned = clock.now();
    await karpenter('k-1', 'default-k1', 'SpotInterrupted', warned, false);
    await del('/apis/karpenter.sh/v1/nodeclaims/default-k1');
    sim.scenario.deleteNode('k-1');
    const done = await until('k-1 interrupted', (r) => r.find((x) => x.node === 'k-1')?.outcome === 'interrupted');
    const k1 = done.find((x) => x.node === 'k-1')!;
    expect(k1.interruptionSource).toBe('karpenter-event');
    expect(sources(k1)).toEqual(['karpenter-rebalance-event karpenter', 'karpenter-interruption-event karpenter']);

    // /readyz says which sources are live, and the counter counts each by source.
    const ready = await api<{ services: { uncordon: { checks: Record<string, { ok: boolean; detail?: string }> } } }>(app.url!, '/readyz');
    const detail = ready.body.services.uncordon.checks['uncordon.ledger-sources']?.detail;
    expect(detail).toMatch(/Karpenter NodeClaims: NodeClaims watching, their Events watching/);
    expect(detail).toMatch(/karpenter 3 /);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/nodes_manager_rebalance_signals_total\{[^}]*source="karpenter"[^}]*kind="karpenter-rebalance-event"[^}]*\} 2/);
  }, 60_000);

  it('NTH in IMDS mode and in queue mode, each told apart; NTH and Karpenter seeing one rebalance make one row with both pieces of evidence', async () => {
    const seen = ago(20 * SEC);
    // IMDS mode: the Event names the node only (no uid); the taint's value is the IMDS event id.
    await event({ kind: 'Node', name: 'imds-1', reason: 'RebalanceRecommendation', message: 'Rebalance recommendation received.', at: seen, component: 'aws-node-termination-handler' });
    await taint('imds-1', 'aws-node-termination-handler/rebalance-recommendation', 'rebalance-recommendation-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f', seen);
    // Queue mode: the Event carries the Node's uid; the taint is valued `rebalance-recommendation-event-…`.
    await event({ kind: 'Node', name: 'queue-1', uid: 'uid-node-queue-1', reason: 'RebalanceRecommendation', message: 'Rebalance recommendation received.', at: seen, component: 'aws-node-termination-handler' });
    await taint('queue-1', 'aws-node-termination-handler/rebalance-recommendation', 'rebalance-recommendation-event-3131322d33343435', seen);
    // both-1: NTH (queue) taints it; Karpenter's Event came 15 s earlier.
    await taint('both-1', 'aws-node-termination-handler/rebalance-recommendation', 'rebalance-recommendation-event-3131322d33343436', seen);
    const all = await until('three rows, both-1 with both sources', (r) => r.length === 3 && sources(r[0]).length === 1);
    expect(all.map((r) => r.node)).toEqual(['both-1', 'imds-1', 'queue-1']);
    expect(sources(all[1]).sort()).toEqual(['nth-event nth-imds', 'rebalance-taint nth-imds']);
    expect(sources(all[2]).sort()).toEqual(['nth-event nth-queue', 'rebalance-taint nth-queue']);

    const earlier = new Date(seen.getTime() - 15 * SEC);
    await karpenter('both-1', 'default-b1', 'SpotRebalanceRecommendation', earlier);
    const merged = await until('both-1 with Karpenter evidence too', (r) => sources(r.find((x) => x.node === 'both-1')).length === 2);
    expect(merged).toHaveLength(3);
    const b = merged.find((x) => x.node === 'both-1')!;
    expect(sources(b)).toEqual(['rebalance-taint nth-queue', 'karpenter-rebalance-event karpenter']);
    // The row takes the earlier sighting's time.
    expect([b.seenAt, b.seenSignal]).toEqual([earlier.toISOString(), 'karpenter-event']);
    const [count] = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM nodes.rebalance_ledger WHERE node_name = 'both-1'`);
    expect(count?.n).toBe('1');
  }, 120_000);
});

/*
 * The same, through the simulator's own Karpenter (libs/sim SimKarpenter, docs/karpenter-simulator.md): it provisions
 * a Spot node for a pending pod, and handles the EC2 simulator's Spot notices as Karpenter's interruption controller
 * does — Events on the NodeClaim and the Node, the disrupted taint, the NodeClaim deleted. No NTH, no Event written
 * by the test: a cluster with Karpenter's interruption handling alone fills the ledger.
 */
describe("the rebalance ledger on the simulator's Karpenter", () => {
  let sim: KubeSim;
  let ec2: Ec2Sim;
  let karpenter: SimKarpenter;
  let db: TestDatabase;
  let clock: FakeClock;
  let app: UncordonApp;

  beforeEach(async () => {
    clock = new FakeClock('2026-06-10T12:00:00Z');
    const now = () => clock.now();
    sim = await startKubeSim({ clock: now, timers: clock, karpenter: true, podTerminationMs: 5_000, kubelet: false } as never);
    ec2 = await startEc2Sim({ clock: now, seed: 1 });
    karpenter = startSimKarpenter({ api: sim.api, ec2, clock: now, timers: clock });
    db = await createTestDatabase('nm_rebalance_simkarp');
  });

  afterEach(async () => {
    await app?.close().catch(() => undefined);
    karpenter.stop();
    await Promise.all([sim.stop(), ec2.stop()]);
    await db.drop();
  });

  it('a rebalance recommendation then a Spot interruption warning: one row, interrupted, timed by Karpenter’s Events, and the interruption recorded', async () => {
    const kc = sim.kubeConfig();
    const custom = kc.makeApiClient(CustomObjectsApi);
    const core = kc.makeApiClient(CoreV1Api);
    await custom.createClusterCustomObject({
      group: 'karpenter.sh',
      version: 'v1',
      plural: 'nodepools',
      body: {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'general' },
        spec: {
          template: {
            spec: {
              nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
              requirements: [
                { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
                { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] },
                { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] },
              ],
            },
          },
          disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized' },
        },
      },
    });
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d9f8', uid: 'rs-uid', controller: true }] },
        spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1500m', memory: '512Mi' } } }] },
      },
    });
    await clock.step(60_000);
    const claims = ((await custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodeclaims' })) as { items: { status: { providerID: string; nodeName?: string } }[] }).items;
    expect(claims).toHaveLength(1);
    const instanceId = claims[0]!.status.providerID.split('/').pop()!;
    const node = claims[0]!.status.nodeName!;

    app = await startUncordon({ databaseUrl: db.url, kubeconfig: sim.kubeconfigPath, clock, gateway: true, rabbitmqUrl: TEST_RABBITMQ_URL, env: { SCAN_INTERVAL_SECONDS: '1' } });
    await becomesLeader(app);
    const control = async (path: string) =>
      expect((await fetch(`${ec2.url}/_sim/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ instanceId }) })).status).toBe(200);
    const ledger = async () => (await api<{ items: Row[] }>(app.url!, '/api/v1/rebalances?limit=10')).body.items;
    const steps = async (what: string, pred: (r: Row[]) => boolean) =>
      waitFor(async () => {
        await clock.step(2_000);
        const r = await ledger();
        return pred(r) ? r : undefined;
      }, what);

    const recommendedAt = clock.now();
    await control('spot/rebalance-recommendation');
    await clock.step(12_000);
    const [row] = await steps('a row from Karpenter’s SpotRebalanceRecommendation', (r) => r.length === 1);
    expect([row!.node, row!.outcome, row!.seenSignal]).toEqual([node, 'observed', 'karpenter-event']);
    expect(new Date(row!.seenAt).getTime() - recommendedAt.getTime()).toBeLessThanOrEqual(12_000);

    await clock.step(MIN);
    await control('spot/interruption-warning');
    const [done] = await steps('the row interrupted by Karpenter’s SpotInterrupted', (r) => r[0]?.outcome === 'interrupted');
    expect(done!.interruptionSource).toBe('karpenter-event');
    expect(done!.evidence.filter((e) => e.source).map((e) => `${e.kind} ${e.source}`)).toEqual(['karpenter-rebalance-event karpenter', 'karpenter-interruption-event karpenter']);
    const list = await waitFor(async () => {
      await clock.step(2_000);
      const r = await api<{ items: { node: string; source: string; rebalanceId: string | null }[] }>(app.url!, '/api/v1/rebalances/interruptions');
      return r.body.items?.length === 1 ? r.body.items : undefined;
    }, 'the interruption recorded');
    expect(list.map((i) => [i.node, i.source, i.rebalanceId])).toEqual([[node, 'karpenter-event', (done as Row & { id: string }).id]]);
  }, 120_000);
});
