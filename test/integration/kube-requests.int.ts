import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRuntime, type Runtime } from '@nodes-manager/platform';
import { createTestDatabase, waitFor, type TestDatabase } from '@nodes-manager/platform/testing';
import { generateFleet, startEc2Sim, startKubeSim, type Ec2Sim, type KubeSim } from '@nodes-manager/sim';
import { startAllInOne, type AllInOne } from '../../all-in-one/src/all-in-one.js';
import { simulatedAllInOneEnv } from '../support/all-in-one.js';

/**
 * What the services cost the API server (docs/kubernetes.md), counted by the simulator: every service in one
 * process, 30 nodes and 300 pods, a 1 s scan interval. After the first sync a quiet cluster costs watches only —
 * node-sync watches nodes and pods, uncordon nodes, scheduler-scoring nodes, pods, PDBs, PVCs and PVs — and no LIST.
 * The simulator serves WatchList as kube-apiserver 1.34 does, so the informers list by WatchList: a relist is one
 * WATCH request, never a LIST.
 */
const SCAN_SECONDS = 1;
const WATCHERS: Record<string, number> = { nodes: 3, pods: 2, poddisruptionbudgets: 1, persistentvolumeclaims: 1, persistentvolumes: 1, events: 1 };

let db: TestDatabase;
let kube: KubeSim;
let ec2: Ec2Sim;
let system: AllInOne;
let runtime: Runtime;

const requests = (verb: string): Record<string, number> =>
  Object.fromEntries(Object.entries(kube.stats().byVerbResource).filter(([k]) => k.startsWith(`${verb} `)).map(([k, v]) => [k.slice(verb.length + 1), v]));
const lists = (): Record<string, number> => requests('list');
const watches = (): Record<string, number> => requests('watch');
const diff = (after: Record<string, number>, before: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]).filter(([, v]) => v !== 0));
const watching = (): boolean => Object.entries(WATCHERS).every(([r, n]) => (kube.stats().openWatches[r] ?? 0) === n);

beforeAll(async () => {
  db = await createTestDatabase();
  kube = await startKubeSim({ bookmarkIntervalMs: 1000 });
  kube.load(generateFleet({ seed: 5, nodes: 30, podsPerNode: 10, karpenter: false }));
  ec2 = await startEc2Sim({ region: 'us-east-1' });
  runtime = createRuntime({ mode: 'all-in-one', logLevel: 'error' });
  system = await startAllInOne({
    runtime,
    env: simulatedAllInOneEnv({ databaseUrl: db.url, kube, ec2 }, { SCAN_INTERVAL_SECONDS: String(SCAN_SECONDS), KUBE_API_STALE_SECONDS: '1' }),
  });
  await waitFor(watching, 'every informer listed and watching', 60_000, 100);
}, 120_000);

afterAll(async () => {
  await system?.close();
  await ec2?.stop();
  await kube?.stop();
  await db?.drop();
});

describe('requests to the Kubernetes API server', () => {
  it('a quiet cluster costs no LIST over five scan intervals, only the expected watches', async () => {
    const before = lists();
    const total = kube.stats().requests;
    await new Promise((r) => setTimeout(r, 5 * SCAN_SECONDS * 1000 + 200));
    const after = kube.stats();
    console.log(`kube requests over 5 quiet intervals: ${after.requests - total}; by verb and resource since start: ${JSON.stringify(after.byVerbResource)}`);
    expect(diff(lists(), before)).toEqual({});
    expect(after.openWatches).toMatchObject(WATCHERS);
  }, 15_000);

  it('a forced 410 on a watch relists that resource exactly once, by a WatchList', async () => {
    await waitFor(watching, 'every informer watching', 10_000, 50);
    const [listsBefore, watchesBefore] = [lists(), watches()];
    kube.faults.set({ gone410Next: true });
    kube.api.endWatches({ group: 'policy', plural: 'poddisruptionbudgets' } as never);
    // The re-watch from its version (answered 410), then the WatchList that relists and goes on watching.
    await waitFor(() => watches()['poddisruptionbudgets'] === (watchesBefore['poddisruptionbudgets'] ?? 0) + 2 && watching(), 'the relist and a new watch', 10_000, 50);
    await new Promise((r) => setTimeout(r, 2 * SCAN_SECONDS * 1000));
    expect(diff(watches(), watchesBefore)).toEqual({ poddisruptionbudgets: 2 });
    expect(diff(lists(), listsBefore)).toEqual({});
  }, 20_000);

  it('dropped watches relist each watcher’s resource exactly once, by a WatchList', async () => {
    await waitFor(watching, 'every informer watching', 10_000, 50);
    const [listsBefore, watchesBefore] = [lists(), watches()];
    kube.dropWatches();
    await waitFor(() => watching() && Object.entries(WATCHERS).every(([r, n]) => (watches()[r] ?? 0) - (watchesBefore[r] ?? 0) === n), 'one relist per watcher and new watches', 20_000, 50);
    await new Promise((r) => setTimeout(r, 2 * SCAN_SECONDS * 1000));
    expect(diff(watches(), watchesBefore)).toEqual(WATCHERS);
    expect(diff(lists(), listsBefore)).toEqual({});
  }, 30_000);

  it('every watching service counts its requests, and turns not ready while the API server is down', async () => {
    const text = await runtime.metrics.registry.metrics();
    for (const service of ['node-sync', 'uncordon', 'scheduler-scoring']) {
      // Listed by WatchList: watches only.
      expect(text).toMatch(new RegExp(`nodes_manager_kube_requests_total\\{[^}]*service="${service}"[^}]*verb="watch"[^}]*code="200"[^}]*\\} [1-9]`));
      expect(text).not.toMatch(new RegExp(`nodes_manager_kube_requests_total\\{[^}]*service="${service}"[^}]*verb="list"[^}]*resource="(nodes|pods)"`));
    }
    const checks = ['node-sync.kube-cache', 'uncordon.kube-cache', 'scheduler-scoring.kube-cache'];
    kube.faults.set({ rate500: 1 });
    kube.dropWatches();
    const down = await waitFor(async () => {
      const r = await runtime.health.run();
      return checks.every((c) => r.checks[c] && !r.checks[c]!.ok) ? r : undefined;
    }, 'the three caches to report a stale API', 20_000, 100);
    expect(down.ready).toBe(false);
    for (const c of checks) expect(down.checks[c]!.detail).toMatch(/Kubernetes API not answering for \d+ s .*the cache is stale/);
    kube.faults.clear();
    await waitFor(async () => {
      const r = await runtime.health.run();
      return checks.every((c) => r.checks[c]?.ok) || undefined;
    }, 'ready again', 30_000, 100);
  });
});
