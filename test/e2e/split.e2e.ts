import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { ALL_EVENT_TYPES, eventSources, messageName, ServiceNames, heartbeatType, type CloudEvent, type EventType, type ServiceName } from '@nodes-manager/contracts';
import { createTestDatabase, EventCollector, lintExposition, promtoolProblems, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { splitSystemEnv } from '../support/split-system.js';
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
  kube.scenario.installKarpenter(); // NodePools and NodeClaims are served, as on a cluster that runs Karpenter
  ec2 = await startEc2Sim();
  events = await EventCollector.start(['#']);
  system = await startSplitSystem({
    env: splitSystemEnv({ databaseUrl: db.url, kube, ec2 }, { COMMAND_TIMEOUT_MS: '3000', AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '0.05' }),
    perService: {
      'spot-advisor': { PROVISION_IMAGE_ID: 'ami-0123456789abcdef0', PROVISION_SUBNET_ID: 'subnet-0abc' },
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

/** logLines — the JSON log lines a service printed so far. */
const logLines = (service: ServiceName): Record<string, unknown>[] =>
  system.processes
    .get(service)!
    .output.join('')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return {};
      }
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

  it('a rebalance cordon is reversed across processes (patch, scaling event row, node.uncordoned on the broker); kubectl, Karpenter, NotReady and opted-out cordons stay, each explained', async () => {
    await waitFor(async () => ((await (await api('/api/v1/nodes?limit=500')).json()) as { items: unknown[] }).items.length === 12, 'node-sync to project the fleet', 60_000, 500);
    const nodes = ((await (await api('/api/v1/nodes?limit=500&state=Ready')).json()) as { items: { name: string }[] }).items;
    const [rebalanced, manual, karpenter, flapped, optedOut] = nodes.slice(0, 5).map((n) => n.name) as [string, string, string, string, string];
    kube.scenario.cordonAsNth(rebalanced, { taint: true });
    kube.scenario.cordonAsKubectl(manual);
    // Cordoned the NTH way, but each with a reason never to be touched.
    kube.scenario.cordonAsNth(karpenter, { taint: true });
    kube.scenario.addTaint(karpenter, { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' });
    kube.scenario.cordonAsNth(flapped, { taint: true, at: new Date(Date.now() - 60_000) });
    kube.scenario.setReady(flapped, false);
    kube.scenario.setReady(flapped, true);
    kube.scenario.setAnnotation(optedOut, 'nodes-manager/auto-uncordon', 'disabled');
    kube.scenario.cordonAsNth(optedOut, { taint: true });

    const ev = await events.waitFor((e) => e.type === 'node.uncordoned' && e.subject === rebalanced, 'node.uncordoned for the rebalanced node', 60_000);
    expect(ev).toMatchObject({ source: 'nodes-manager/uncordon', actor: 'system:uncordon' });
    const rows = await db.query<{ node_name: string; action: string; reason: string; evidence: { cordonManager?: string } }>(
      `SELECT node_name, action, reason, evidence FROM nodes.scaling_events WHERE node_name = $1 AND action = 'uncordon'`,
      [rebalanced],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.evidence.cordonManager).toBe('node-termination-handler');
    const live = await kube.kubeConfig().makeApiClient((await import('@kubernetes/client-node')).CoreV1Api).readNode({ name: rebalanced });
    expect(live.spec?.unschedulable).toBeFalsy();
    expect(live.metadata?.annotations?.['nodes-manager/uncordoned-at']).toBeDefined();

    const cordons = (await (await api('/api/v1/cordons')).json()) as { items: { node: string; decision: string; reason: string }[] };
    const why = (node: string) => cordons.items.find((c) => c.node === node);
    expect(why(manual)).toMatchObject({ decision: 'skip', reason: 'CORDONED_BY_OTHER_MANAGER' });
    expect(why(karpenter)).toMatchObject({ decision: 'skip', reason: 'KARPENTER_DISRUPTION_TAINT' });
    expect(why(flapped)).toMatchObject({ decision: 'skip', reason: 'NOT_READY_SINCE_CORDON' });
    expect(why(optedOut)).toMatchObject({ decision: 'skip', reason: 'OPTED_OUT' });
    const core = kube.kubeConfig().makeApiClient((await import('@kubernetes/client-node')).CoreV1Api);
    for (const n of [manual, karpenter, flapped, optedOut]) expect(`${n} ${(await core.readNode({ name: n })).spec?.unschedulable}`).toBe(`${n} true`);
    expect(events.events.filter((e) => e.type === 'node.uncordoned' && [manual, karpenter, flapped, optedOut].includes(e.subject!))).toEqual([]);
    await waitFor(async () => {
      const n = (await (await api(`/api/v1/nodes/${rebalanced}`)).json()) as { unschedulable: boolean };
      return n.unschedulable === false;
    }, 'node-sync to see the uncordon', 30_000, 500);
  });

  it('a drain through the API runs in the uncordon process and its progress shows on the node', async () => {
    const nodes = ((await (await api('/api/v1/nodes?limit=500&state=Ready')).json()) as { items: { name: string }[] }).items;
    const target = nodes[nodes.length - 1]!.name;
    const res = await api(`/api/v1/nodes/${target}/drain`, { method: 'POST', body: JSON.stringify({ force: true, deleteEmptyDirData: true, timeoutSeconds: 60 }) });
    expect(res.status).toBe(202);
    const op = (await res.json()) as { id: string; status: string };
    const started = await events.waitFor((e) => e.type === 'node.drain.started' && e.subject === target, 'node.drain.started', 30_000);
    expect(started.actor).toBe('test-operator');
    const view = await waitFor(async () => {
      const n = (await (await api(`/api/v1/nodes/${target}`)).json()) as { drain: { id: string; status: string } | null };
      return n.drain?.id === op.id ? n : undefined;
    }, 'the drain on the node view', 30_000, 500);
    expect(['pending', 'running', 'completed', 'failed']).toContain(view.drain!.status);
    const done = await events.waitFor((e) => (e.type === 'node.drain.completed' || e.type === 'node.drain.failed') && e.subject === target, 'the drain to end', 90_000);
    expect(done.type).toBe('node.drain.completed');
  });

  it('the rest of the catalogue happens for real: a NodePool created, changed, consolidated and deleted, an instance launched, a node gone', async () => {
    const pool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'e2e-batch' },
      spec: {
        template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }] } },
        disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '10%' }] },
        limits: { cpu: '100' },
      },
    };
    expect((await api('/api/v1/nodepools', { method: 'POST', body: JSON.stringify(pool) })).ok).toBe(true);
    expect((await api('/api/v1/nodepools/e2e-batch', { method: 'PATCH', body: JSON.stringify({ spec: { limits: { cpu: '200' } } }) })).ok).toBe(true);
    expect((await api('/api/v1/nodepools/e2e-batch/consolidate', { method: 'POST', body: JSON.stringify({ dryRun: false }) })).status).toBeLessThan(300);
    expect((await api('/api/v1/nodepools/e2e-batch', { method: 'DELETE' })).ok).toBe(true);
    const launched = await api('/api/v1/instances', { method: 'POST', body: JSON.stringify({ instanceType: 'm5.large', count: 1, clientToken: `e2e-${randomUUID()}` }) });
    expect(launched.status).toBeLessThan(300);
    const nodes = ((await (await api('/api/v1/nodes?limit=500&state=Ready')).json()) as { items: { name: string }[] }).items;
    kube.scenario.deleteNode(nodes[0]!.name);
    for (const type of ['nodepool.created', 'nodepool.updated', 'nodepool.consolidation.requested', 'nodepool.deleted', 'instance.provisioned', 'node.removed']) {
      await events.waitFor((e) => e.type === type, type, 20_000);
    }
  });

  it('a request id travels from the caller through the gateway to the service that handles it: answer, access log and service log share it', async () => {
    const requestId = `e2e-${randomUUID()}`;
    const res = await api('/api/v1/nodes?limit=1', { headers: { 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const access = await waitFor(() => logLines('api-gateway').find((l) => l['requestId'] === requestId && l['msg'] === 'request'), 'the access log line', 10_000, 100);
    expect(access).toMatchObject({ service: 'api-gateway', level: 'info', method: 'GET', path: '/api/v1/nodes', route: '/api/v1/nodes', status: 200, actor: 'test-operator' });
    const handled = await waitFor(() => logLines('node-sync').find((l) => l['requestId'] === requestId), "node-sync's log line", 10_000, 100);
    expect(handled).toMatchObject({ service: 'node-sync', msg: 'command handled', handler: expect.any(String), outcome: 'ok', actor: 'test-operator' });

    const generated = await api('/api/v1/nodes?limit=1', { headers: { 'x-request-id': 'not a "safe" id' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('every service serves Prometheus metrics that pass promtool check metrics, with its outbox gauges, and uncordon counted the uncordon', async () => {
    for (const [service, p] of system.processes) {
      const text = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text();
      expect({ service, lint: lintExposition(text), promtool: promtoolProblems(text) ?? [] }).toEqual({ service, lint: [], promtool: [] });
      expect(`${service}: ${text.includes('nodes_manager_process_')}`).toBe(`${service}: true`);
      if (service !== 'api-gateway') expect(`${service}: ${text.includes(`nodes_manager_outbox_pending{service="${service}"}`)}`).toBe(`${service}: true`);
    }
    const uncordon = await (await fetch(`http://127.0.0.1:${system.processes.get('uncordon')!.port}/metrics`)).text();
    expect(uncordon).toMatch(/nodes_manager_uncordons_total\{service="uncordon",result="uncordoned"\} [1-9]/);
    const sync = await (await fetch(`http://127.0.0.1:${system.processes.get('node-sync')!.port}/metrics`)).text();
    expect(sync).toMatch(/nodes_manager_node_sync_rows_written_total\{[^}]*\} [1-9]/);
    expect(sync).toMatch(/nodes_manager_command_duration_seconds_count\{service="node-sync",handler="[^"]+",outcome="ok"\} [1-9]/);
    const gateway = await (await fetch(`http://127.0.0.1:${system.processes.get('api-gateway')!.port}/metrics`)).text();
    expect(gateway).toMatch(/nodes_manager_http_request_duration_seconds_count\{service="api-gateway",method="GET",route="\/api\/v1\/nodes",status="200"\} [1-9]/);
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

  it('every event the services published validates against docs/asyncapi.yaml (and, with UPDATE_DOCS=1, becomes its example)', () => {
    const doc = parse(readFileSync('docs/asyncapi.yaml', 'utf8')) as { components: { messages: Record<string, { payload: object }> } };
    const ajv = (addFormatsModule as unknown as (a: Ajv) => Ajv)(new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true }));
    const seen = new Map<string, CloudEvent[]>();
    for (const ev of events.events) {
      const validate = ajv.getSchema(ev.type) ?? (ajv.addSchema(doc.components.messages[messageName(ev.type)]!.payload, ev.type), ajv.getSchema(ev.type)!);
      expect({ type: ev.type, ok: validate(ev), errors: validate.errors ?? [] }).toEqual({ type: ev.type, ok: true, errors: [] });
      seen.set(ev.type, [...(seen.get(ev.type) ?? []), ev]);
    }
    expect(seen.size).toBeGreaterThanOrEqual(10);
    if (process.env['UPDATE_DOCS'] === '1') writeEventExamples(seen);
  });
});

/**
 * writeEventExamples — the first event of each routing key the run saw, as libs/contracts' examples: one file per
 * publishing service (libs/contracts/src/event-examples/<service>.ts), its head kept.
 */
function writeEventExamples(seen: Map<string, CloudEvent[]>): void {
  for (const service of ServiceNames) {
    const path = `libs/contracts/src/event-examples/${service}.ts`;
    const current = readFileSync(path, 'utf8');
    const head = current.slice(0, current.indexOf('export const '));
    const name = `${service.replace(/-/g, '_').toUpperCase()}_EXAMPLES`;
    const examples = Object.fromEntries(ALL_EVENT_TYPES.filter((t) => seen.has(t) && eventSources(t)[0] === service).map((t) => [t, [seen.get(t)![0]!]]));
    writeFileSync(path, `${head}export const ${name}: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = ${JSON.stringify(examples, null, 2)} as const;\n`);
  }
}
