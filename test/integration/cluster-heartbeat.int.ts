import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { EVENT_DATA_SCHEMAS, EventTypes, NODES_MANAGER_VERSION } from '@nodes-manager/contracts';
import { createRuntime, FakeClock } from '@nodes-manager/platform';
import { createTestDatabase, EventCollector, TEST_RABBITMQ_URL, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { aKubeNode } from '@nodes-manager/kube/testing';
import { startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from '../../all-in-one/src/all-in-one.js';
import { simulatedAllInOneEnv } from '../support/all-in-one.js';

/*
 * `cluster.heartbeat` through the real services (docs/fleet.md#the-cluster-heartbeat): karpenter-gateway's leader asks
 * node-sync for its nodes and uncordon for the cordons it waits on, reads steering's pools, and publishes one beat per
 * interval on the Clock, on RabbitMQ, with the cluster's identity in the envelope. Real Postgres and RabbitMQ, the
 * Kubernetes simulator over HTTP, a fake clock stepped past the interval.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const validData = addFormats(new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true })).compile(EVENT_DATA_SCHEMAS[EventTypes.clusterHeartbeat]);
const MIN = 60_000;
const INTERVAL_S = 300;
const clock = new FakeClock(new Date());
const ago = (ms: number) => new Date(clock.now().getTime() - ms);
let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: AllInOne;
let events: EventCollector;

beforeAll(async () => {
  db = await createTestDatabase('nm_cluster_heartbeat');
  kube = await startKubeSim({ karpenter: true } as never);
  const node = (name: string, capacityType: string) => aKubeNode(name, { capacityType, instanceType: 'm5.large', zone: 'us-east-1a', nodePool: 'default', creationTimestamp: ago(60 * MIN), readySince: ago(60 * MIN) });
  kube.load({ nodes: [node('s-1', 'spot'), node('s-2', 'spot'), node('s-3', 'spot'), node('od-1', 'on-demand')] } as never);
  // NTH cordoned s-3 five minutes ago and it is Ready: uncordon waits out its grace period.
  kube.scenario.cordonAsNth('s-3', { at: ago(5 * MIN) });
  events = await EventCollector.start([EventTypes.clusterHeartbeat]);
  ec2 = await startEc2Sim({ region: 'us-east-1' });
  const runtime = createRuntime({ mode: 'all-in-one', logLevel: 'error', rabbitmqUrl: TEST_RABBITMQ_URL, clock });
  system = await startAllInOne({
    runtime,
    env: simulatedAllInOneEnv({ databaseUrl: db.url, kube, ec2 }, { RABBITMQ_URL: TEST_RABBITMQ_URL, CLUSTER_NAME: 'prod-eu-1', CLUSTER_ID: 'arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu-1', CLUSTER_HEARTBEAT_INTERVAL_SECONDS: String(INTERVAL_S), STEERING_MODE: 'off' }),
  });
}, 120_000);

afterAll(async () => {
  await system?.close();
  await events?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

const ours = () => events.ofType(EventTypes.clusterHeartbeat).filter((e) => e.clusterid === 'arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu-1');

describe('cluster.heartbeat', () => {
  it('beats on becoming leader and once per interval on the Clock, with the counts and the cluster identity', async () => {
    // The leader beats at once; node-sync may not have synced yet, so only its shape is checked here.
    const first = await waitFor(async () => ours()[0], 'the first beat', 60_000, 200);
    expect(validData(first.data)).toBe(true);
    await waitFor(async () => ((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM nodes.nodes WHERE deleted_at IS NULL`))[0]?.n === 4 ? true : undefined), 'node-sync has the four nodes');

    // Nothing more until the interval passes on the Clock.
    const before = ours().length;
    clock.advance(INTERVAL_S * 1000 - 1_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(ours().length).toBe(before);
    clock.advance(1_000);
    const beat = await waitFor(async () => ours()[before], 'the beat one interval later', 60_000, 200);

    expect(beat).toMatchObject({ source: 'nodes-manager/karpenter-gateway', clustername: 'prod-eu-1', clusterid: 'arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu-1', subject: 'cluster' });
    expect(beat.data).toEqual({
      version: NODES_MANAGER_VERSION,
      intervalSeconds: INTERVAL_S,
      nodes: 4,
      spotNodes: 3,
      cordonsWaiting: 1,
      steering: { mode: 'off', pools: { healthy: 0, watch: 0, avoid: 0 }, decidedAt: null },
    });
    expect(validData(beat.data)).toBe(true);
    expect(Date.parse(beat.time!) - Date.parse(first.time!)).toBeGreaterThanOrEqual(INTERVAL_S * 1000);
  }, 120_000);
});
