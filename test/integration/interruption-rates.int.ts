import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRuntime } from '@nodes-manager/platform';
import { createTestDatabase, TEST_RABBITMQ_URL, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { aKubeNode } from '@nodes-manager/kube/testing';
import { startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from '../../all-in-one/src/all-in-one.js';
import { simulatedAllInOneEnv } from '../support/all-in-one.js';

/*
 * Interruptions per 1,000 node-hours (docs/rebalance-ledger.md#interruptions-per-1000-node-hours) through the real
 * services: uncordon records every Spot interruption — Karpenter's SpotInterrupted on a NodeClaim after its node went,
 * NTH's spot-itn taint with no recommendation before it, and one that followed a rebalance — node-sync records when
 * each node came and went (a node re-created under the same name is a second lifetime), and the rate is their quotient
 * with the exact Poisson interval, over the API. Real Postgres and RabbitMQ, the Kubernetes simulator over HTTP.
 */
const HOUR = 3_600_000;
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: AllInOne;
let started: number;

const api = async <T = any>(path: string): Promise<{ status: number; body: T }> => {
  const res = await fetch(system.url + path, { headers: { authorization: `Bearer ${testToken('nodes:read', 'erin')}` } });
  return { status: res.status, body: (await res.json()) as T };
};
const k8sTime = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const send = async (method: string, path: string, body?: unknown, type = 'application/json') => {
  const r = await fetch(`${kube.url}${path}`, { method, headers: { 'content-type': type }, ...(body ? { body: JSON.stringify(body) } : {}) });
  expect(r.status).toBeLessThan(300);
};
const event = (kind: 'Node' | 'NodeClaim', name: string, reason: string, at: Date, uid?: string) =>
  send('POST', '/api/v1/namespaces/default/events', {
    metadata: { generateName: `${name}.`, namespace: 'default' },
    involvedObject: { kind, name, apiVersion: kind === 'Node' ? 'v1' : 'karpenter.sh/v1', ...(uid ? { uid } : {}) },
    reason,
    message: reason,
    type: reason === 'SpotRebalanceRecommendation' ? 'Normal' : 'Warning',
    source: { component: 'karpenter' },
    firstTimestamp: k8sTime(at),
    lastTimestamp: k8sTime(at),
    count: 1,
  });

interface Rate {
  instanceType: string | null;
  zone: string | null;
  interruptions: number;
  withoutRecommendation: number;
  nodeHours: number;
  nodes: number;
  per1000NodeHours: number | null;
  interval95: [number, number] | null;
}

beforeAll(async () => {
  db = await createTestDatabase('nm_interruption_rates');
  kube = await startKubeSim({ karpenter: true } as never);
  started = Date.now();
  const tenHoursAgo = new Date(started - 10 * HOUR);
  const spot = (name: string, instanceType: string, zone: string) => aKubeNode(name, { capacityType: 'spot', instanceType, zone, nodePool: 'default', creationTimestamp: tenHoursAgo, readySince: tenHoursAgo });
  kube.load({
    nodes: [spot('a-1', 'm5.large', 'us-east-1a'), spot('a-2', 'm5.large', 'us-east-1a'), spot('a-3', 'm5.large', 'us-east-1a'), spot('b-1', 'c5.large', 'us-east-1b')],
    nodeClaims: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: 'default-a1', uid: 'uid-claim-a1' }, spec: {}, status: { nodeName: 'a-1' } }],
  } as never);
  ec2 = await startEc2Sim({ region: 'us-east-1' });
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'error', rabbitmqUrl: TEST_RABBITMQ_URL });
  system = await startAllInOne({ runtime, env: simulatedAllInOneEnv({ databaseUrl: db.url, kube, ec2 }, { SCAN_INTERVAL_SECONDS: '2', RABBITMQ_URL: TEST_RABBITMQ_URL }) });
}, 120_000);

afterAll(async () => {
  await system?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

describe('interruptions per 1,000 node-hours, through node-sync and uncordon', () => {
  it('every interruption counts, recommendation or not, over the node-hours node-sync recorded', async () => {
    // Wait for node-sync's first cycle: the four lifetimes, each from its creationTimestamp.
    await waitFor(async () => ((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM nodes.node_lifetimes`))[0]?.n === 4 ? true : undefined), 'four node lifetimes');

    // a-1: Karpenter's warning on its NodeClaim only, then the NodeClaim and the Node go. No recommendation came.
    const now = new Date();
    await event('NodeClaim', 'default-a1', 'SpotInterrupted', now, 'uid-claim-a1');
    await send('DELETE', '/apis/karpenter.sh/v1/nodeclaims/default-a1');
    kube.scenario.deleteNode('a-1');
    // a-2: NTH's spot-itn taint (IMDS mode), no recommendation before it.
    await send('PATCH', '/api/v1/nodes/a-2', { spec: { taints: [{ key: 'aws-node-termination-handler/spot-itn', value: 'spot-itn-0f1e2d3c', effect: 'NoSchedule', timeAdded: k8sTime(now) }] } }, 'application/merge-patch+json');
    // b-1: a rebalance recommendation (Karpenter, on the Node), then the interruption.
    await event('Node', 'b-1', 'SpotRebalanceRecommendation', new Date(now.getTime() - 20 * 60_000), 'uid-node-b-1');
    await event('Node', 'b-1', 'SpotInterrupted', now, 'uid-node-b-1');
    // a-3 is re-created under its name: a second lifetime, the first one ended.
    kube.scenario.deleteNode('a-3');
    await waitFor(async () => ((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM nodes.node_lifetimes WHERE deleted_at IS NOT NULL`))[0]?.n === 2 ? true : undefined), 'a-1 and a-3 gone');
    const again = aKubeNode('a-3', { capacityType: 'spot', instanceType: 'm5.large', zone: 'us-east-1a', nodePool: 'default' });
    await send('POST', '/api/v1/nodes', { ...again, metadata: { name: 'a-3', labels: again.metadata!.labels } });
    await waitFor(async () => ((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM nodes.node_lifetimes WHERE name = 'a-3'`))[0]?.n === 2 ? true : undefined), "a-3's second lifetime");

    const list = await waitFor(async () => {
      const r = await api<{ items: { node: string; source: string; rebalanceId: string | null; evidence: { source?: string }[] }[] }>('/api/v1/rebalances/interruptions');
      return r.status === 200 && r.body.items.length === 3 ? r.body.items : undefined;
    }, 'three interruptions', 60_000, 500);
    const byNode = Object.fromEntries(list.map((i) => [i.node, i]));
    expect([byNode['a-1']?.source, byNode['a-1']?.rebalanceId]).toEqual(['karpenter-event', null]);
    expect([byNode['a-2']?.source, byNode['a-2']?.rebalanceId, byNode['a-2']?.evidence[0]?.source]).toEqual(['spot-itn-taint', null, 'nth-imds']);
    expect(byNode['b-1']?.source).toBe('karpenter-event');
    expect(byNode['b-1']?.rebalanceId).toEqual(expect.any(String));

    const from = new Date(started - 12 * HOUR).toISOString();
    const rates = await api<{ nodeHours: { available: boolean }; cluster: Rate; byPool: Rate[] }>(`/api/v1/rebalances/interruption-rates?from=${from}`);
    expect(rates.status).toBe(200);
    expect(rates.body.nodeHours.available).toBe(true);
    const elapsedH = (Date.now() - started) / HOUR;
    const m5 = rates.body.byPool.find((p) => p.instanceType === 'm5.large')!;
    const c5 = rates.body.byPool.find((p) => p.instanceType === 'c5.large')!;
    // m5.large: three nodes for 10 h (a-1 and the first a-3 until they went), and the new a-3 for seconds.
    expect([m5.zone, m5.interruptions, m5.withoutRecommendation, m5.nodes]).toEqual(['us-east-1a', 2, 2, 4]);
    expect(m5.nodeHours).toBeGreaterThanOrEqual(29.9);
    expect(m5.nodeHours).toBeLessThanOrEqual(30 + 3 * elapsedH + 0.1);
    expect(m5.per1000NodeHours).toBeCloseTo((2 / m5.nodeHours) * 1000, 1);
    // Garwood for k = 2: [0.2422, 7.2247] events, over the node-hours.
    expect(m5.interval95![0]).toBeCloseTo((0.2422 / m5.nodeHours) * 1000, 1);
    expect(m5.interval95![1]).toBeCloseTo((7.2247 / m5.nodeHours) * 1000, 0);
    expect([c5.zone, c5.interruptions, c5.withoutRecommendation, c5.nodes]).toEqual(['us-east-1b', 1, 0, 1]);
    expect(c5.nodeHours).toBeGreaterThanOrEqual(9.9);
    expect([rates.body.cluster.interruptions, rates.body.cluster.withoutRecommendation]).toEqual([3, 2]);

    // Bad input is a 400 naming the field.
    const bad = await api<{ details: { errors: { field: string }[] } }>('/api/v1/rebalances/interruption-rates?from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors.map((e) => e.field)).toEqual(['from']);
  }, 120_000);
});
