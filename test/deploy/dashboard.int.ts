import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FENCING_LABEL, PRESSURE_LABEL } from '@nodes-manager/contracts';
import { aKubeNode, aKubePod } from '@nodes-manager/kube/testing';
import { createRuntime } from '@nodes-manager/platform';
import { createTestDatabase, testToken, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from '../../all-in-one/src/all-in-one.js';
import { simulatedAllInOneEnv } from '../support/all-in-one.js';
import { renderKustomization } from './support/kustomize.js';
import { ROOT } from './support/source-graph.js';

/**
 * The Grafana dashboard (deploy/monitoring/grafana, docs/deploy.md "Dashboard") reads real metrics: every metric a
 * panel's query names — and every label it selects or groups on — is one a running system exports. The system is the
 * all-in-one process on the simulators, after it has done what the panels show: a rebalance cordon reversed and
 * recorded, a node gone, a drain, a fence, a pressure relief, API requests.
 */
const DASHBOARD = 'deploy/monitoring/grafana/nodes-manager.json';
/** Labels Prometheus adds from the scrape target, not the process. */
const TARGET_LABELS = new Set(['namespace', 'pod', 'instance', 'job', 'container', 'endpoint']);
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset']);

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

/** Selection — a metric a query names and the labels it matches on or aggregates by. */
interface Selection {
  metric: string;
  labels: string[];
}

/**
 * selections — the metrics of a PromQL expression (identifiers starting `nodes_manager_`) with the labels of their
 * matchers, plus the labels of every `by (…)` of the expression (attributed to each of its metrics).
 */
export function selections(expr: string): Selection[] {
  const grouped = [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((l) => l.trim()).filter(Boolean));
  const out: Selection[] = [];
  for (const m of expr.matchAll(/\b(nodes_manager_[a-zA-Z0-9_]+)\s*(\{([^}]*)\})?/g)) {
    const matchers = [...(m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)/g)].map((x) => x[1]!);
    out.push({ metric: m[1]!, labels: [...new Set([...matchers, ...grouped])].filter((l) => l !== 'le' && !PROMQL_WORDS.has(l)) });
  }
  return out;
}

/** exposition — metric name → label names, from a Prometheus text exposition. */
function exposition(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s/.exec(line);
    if (!m) continue;
    const labels = out.get(m[1]!) ?? new Set<string>();
    for (const l of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) labels.add(l[1]!);
    out.set(m[1]!, labels);
  }
  return out;
}

/** missing — each selection the exposition cannot answer: an absent metric, or a label no series of it has. */
function missing(sel: readonly Selection[], exported: Map<string, Set<string>>, where: string): string[] {
  return sel.flatMap((s) => {
    const labels = exported.get(s.metric);
    if (!labels) return [`${where}: ${s.metric} is not exported`];
    return s.labels.filter((l) => !TARGET_LABELS.has(l) && !labels.has(l) && l !== 'service').map((l) => `${where}: ${s.metric} has no label ${l}`);
  });
}

const dashboard = JSON.parse(readFileSync(join(ROOT, DASHBOARD), 'utf8')) as { uid: string; panels: Panel[]; templating: { list: { name: string; type: string; query?: { query: string } | string }[] } };
const panels = dashboard.panels.flatMap((p) => (p.type === 'row' ? (p.panels ?? []) : [p]));
const queries = (): { where: string; expr: string }[] => [
  ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
  ...dashboard.templating.list.filter((v) => v.type === 'query').map((v) => ({ where: `variable $${v.name}`, expr: typeof v.query === 'string' ? v.query : v.query!.query })),
];

describe('the Grafana dashboard', () => {
  it('ships as a ConfigMap labelled for the Grafana sidecar, holding the dashboard as it is in the repository', () => {
    const cms = renderKustomization('deploy/monitoring').filter((o) => o.kind === 'ConfigMap');
    expect(cms).toHaveLength(1);
    expect(cms[0].metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    expect(JSON.parse(cms[0].data['nodes-manager.json'])).toEqual(dashboard);
  });

  it('covers the fleet, cordons, drains, fencing, pressure, the ledger, approvals and the API; every panel has a query', () => {
    const exprs = queries().map((q) => q.expr).join('\n');
    for (const metric of ['nodes_manager_nodes', 'nodes_manager_cordoned_nodes', 'nodes_manager_uncordons_total', 'nodes_manager_drains_total', 'nodes_manager_fencing_operations_total', 'nodes_manager_pressure_reliefs_total', 'nodes_manager_rebalances_observed_total', 'nodes_manager_approvals_open', 'nodes_manager_http_request_duration_seconds_count']) {
      expect(`${metric} ${exprs.includes(metric)}`).toBe(`${metric} true`);
    }
    for (const p of panels) expect(`${p.title}: ${(p.targets ?? []).length > 0 && (p.targets ?? []).every((t) => selections(t.expr).length > 0)}`).toBe(`${p.title}: true`);
  });

  it('the check finds a metric or a label that is not exported', () => {
    const exported = exposition('nodes_manager_drains_total{service="uncordon",status="completed"} 1\n');
    expect(missing(selections('sum by (status) (increase(nodes_manager_drains_total[5m]))'), exported, 'p')).toEqual([]);
    expect(missing(selections('sum by (outcome) (increase(nodes_manager_drains_total{namespace="x"}[5m]))'), exported, 'p')).toEqual(['p: nodes_manager_drains_total has no label outcome']);
    expect(missing(selections('rate(nodes_manager_drain_total[5m])'), exported, 'p')).toEqual(['p: nodes_manager_drain_total is not exported']);
  });
});

describe('every query of the dashboard names what a running system exports', () => {
  let db: TestDatabase;
  let kube: KubeSim;
  let ec2: Ec2Sim;
  let system: AllInOne;
  const fenced = { [FENCING_LABEL]: 'enabled' };

  beforeAll(async () => {
    db = await createTestDatabase();
    kube = await startKubeSim({ podTerminationMs: 20, kubelet: { renewMs: 1_000 } });
    const nodes = [
      ...['a', 'b', 'c', 'd'].map((z) => aKubeNode(`busy-${z}`, { labels: fenced })),
      aKubeNode('spot-1', { capacityType: 'spot' }),
      aKubeNode('spot-2', { capacityType: 'spot' }),
      aKubeNode('drain-1'),
      aKubeNode('hung-1', { labels: fenced }),
      aKubeNode('press-1', { labels: { [PRESSURE_LABEL]: 'relieve' } }),
    ];
    kube.load({ nodes, pods: nodes.flatMap((n) => [0, 1].map((i) => aKubePod(`app-${n.metadata!.name}-${i}`, n.metadata!.name!, { app: `app-${n.metadata!.name}`, cpu: '1' }))) } as never);
    ec2 = await startEc2Sim();
    ec2.adoptNodes(nodes);
    system = await startAllInOne({
      runtime: createRuntime({ mode: 'all-in-one', logLevel: 'error' }),
      env: simulatedAllInOneEnv({ databaseUrl: db.url, kube, ec2 }, {
        SCAN_INTERVAL_SECONDS: '1',
        // Long enough that a ledger pass sees the cordon before the uncordon reverses it.
        AUTO_UNCORDON_GRACE_PERIOD_MINUTES: '0.1',
        FENCING_LEASE_TIMEOUT_SECONDS: '5',
        FENCING_POD_DELETE_WAIT_SECONDS: '1',
        FENCING_CONFIRM_TIMEOUT_SECONDS: '30',
        FENCING_MAX_UNHEALTHY_PERCENT: '50',
        PRESSURE_INTERVAL_SECONDS: '1',
        PRESSURE_SUSTAIN_SAMPLES: '2',
        REBALANCE_HORIZON_HOURS: '0.01',
        REBALANCE_EC2_WAIT_SECONDS: '1',
        RATE_LIMIT_WRITES: '100000',
      }),
    });
  }, 180_000);

  afterAll(async () => {
    await system?.close();
    await ec2?.stop();
    await kube?.stop();
    await db?.drop();
  });

  it('after some activity, /metrics has every metric and label the panels and variables ask for', async () => {
    const api = (path: string, init: RequestInit = {}) => fetch(system.url + path, { ...init, headers: { authorization: `Bearer ${testToken()}`, 'content-type': 'application/json', ...init.headers } });
    await waitFor(async () => ((await (await api('/api/v1/nodes?limit=100')).json()) as { items?: unknown[] }).items?.length === 9, 'the fleet synced', 120_000, 500);
    kube.scenario.cordonAsNth('spot-1', { taint: true });
    kube.scenario.cordonAsNth('spot-2', { taint: true });
    expect((await api('/api/v1/nodes/drain-1/drain', { method: 'POST', body: JSON.stringify({ force: true, timeoutSeconds: 30 }) })).status).toBe(202);
    kube.scenario.hangNode('hung-1', { since: new Date(Date.now() - 3 * 60_000) });
    kube.scenario.setPressure('press-1', { memory: { some: { avg10: 80, avg60: 70 }, full: { avg10: 55, avg60: 45 } }, podMemoryBytes: { 'default/app-press-1-0': 3 * 2 ** 30 } });
    // Once given back, spot-2 goes away: the ledger resolves its row.
    await waitFor(() => kube.objects('nodes').find((n) => n.metadata.name === 'spot-2' && !n.spec?.unschedulable), 'spot-2 uncordoned', 120_000, 250);
    kube.scenario.deleteNode('spot-2');
    for (const path of ['/api/v1/cordons', '/api/v1/rebalances', '/api/v1/fencing', '/api/v1/approvals']) await api(path);

    let problems: string[] = [];
    await waitFor(async () => {
      const exported = exposition(await (await fetch(`${system.url}/metrics`)).text());
      problems = queries().flatMap((q) => missing(selections(q.expr), exported, q.where));
      return problems.length === 0;
    }, 'every metric of the dashboard', 120_000, 1_000).catch(() => undefined);
    expect(problems).toEqual([]);
  }, 420_000);
});
