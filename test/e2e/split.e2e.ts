import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ServiceNames, heartbeatType } from '@nodes-manager/contracts';
import { createTestDatabase, EventCollector, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startSplitSystem, type SplitSystem } from './harness.js';

let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: SplitSystem;
let events: EventCollector;

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim();
  kube.load(generateFleet({ seed: 7, nodes: 12 }));
  ec2 = await startEc2Sim();
  events = await EventCollector.start(['#']);
  system = await startSplitSystem({
    databaseUrl: db.url,
    env: {
      KUBECONFIG: kube.kubeconfigPath,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'e2e-access-key',
      AWS_SECRET_ACCESS_KEY: 'e2e-secret-key',
      AWS_ENDPOINT_URL_EC2: ec2.url,
      COMMAND_TIMEOUT_MS: '3000',
    },
  });
}, 180_000);

afterAll(async () => {
  await system?.stop();
  await events?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(system.gatewayUrl + path, { ...init, headers: { authorization: `Bearer ${testToken()}`, 'content-type': 'application/json', ...init.headers } });

describe('the six services as separate processes on the real broker and database', () => {
  it('every service publishes its heartbeat on nodes.events', async () => {
    for (const s of ServiceNames) {
      const hb = await events.waitFor((e) => e.type === heartbeatType(s), `a heartbeat from ${s}`, 30_000);
      expect(hb).toMatchObject({ specversion: '1.0', source: `nodes-manager/${s}`, data: { service: s, mode: 'split' } });
    }
  });

  it('a gateway request travels to every service and back (readiness)', async () => {
    const res = await fetch(system.gatewayUrl + '/readyz');
    const body = (await res.json()) as { status: string; services: Record<string, { ready: boolean }> };
    expect(res.status).toBe(200);
    for (const s of ServiceNames.filter((n) => n !== 'api-gateway')) expect([s, body.services[s]?.ready]).toEqual([s, true]);
  });

  it('a service that is slow gives 504 with a JSON error, and answers again when it resumes', async () => {
    const uncordon = system.processes.get('uncordon')!;
    uncordon.child.kill('SIGSTOP');
    try {
      const res = await api('/api/v1/cordons');
      expect(res.status).toBe(504);
      expect(await res.json()).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('uncordon') });
    } finally {
      uncordon.child.kill('SIGCONT');
    }
    await waitFor(async () => (await api('/api/v1/cordons')).status !== 504, 'uncordon to answer again', 30_000, 500);
  });

  it('a service that is down gives 503 with a JSON error', async () => {
    const nodeSync = system.processes.get('node-sync')!;
    await new Promise<void>((resolve) => {
      nodeSync.child.once('exit', () => resolve());
      nodeSync.child.kill('SIGTERM');
    });
    const res = await waitFor(async () => {
      const r = await api('/api/v1/nodes');
      return r.status === 503 ? r : undefined;
    }, 'the gateway to notice node-sync is gone', 15_000, 500);
    expect(await res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('node-sync') });
  });
});
