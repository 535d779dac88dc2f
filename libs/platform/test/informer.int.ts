import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';

jest.setTimeout(30_000);
import * as k8s from '@kubernetes/client-node';
import { generateFleet, startKubeSim, type KubeSim } from '@nodes-manager/sim';
import { waitFor } from '@nodes-manager/platform/testing';
import { aKubeNode } from '@nodes-manager/kube/testing';
import { Informer, type SyncedInfo } from '../src/kube/informer.js';

/** LeanNode — what a caller of the informer keeps: a few fields, not the whole API object. */
interface LeanNode {
  name: string;
  zone: string | undefined;
  unschedulable: boolean;
  labels: Record<string, string>;
}
const projectNode = (o: any): LeanNode => ({
  name: o.metadata.name,
  zone: o.metadata.labels?.['topology.kubernetes.io/zone'],
  unschedulable: o.spec?.unschedulable === true,
  labels: { ...(o.metadata.labels ?? {}) },
});

/** The simulator's resource key for nodes (its helpers take a ResourceDef; only group and plural are read). */
const NODES = { group: '', plural: 'nodes' } as never;

const aNode = (name: string): k8s.V1Node => aKubeNode(name);

describe('Informer against the Kubernetes simulator', () => {
  let sim: KubeSim;
  let core: k8s.CoreV1Api;
  let informer: Informer<LeanNode> | undefined;
  const fleet = generateFleet({ seed: 7, nodes: 23, podsPerNode: 4 });

  beforeAll(async () => {
    sim = await startKubeSim({ bookmarkIntervalMs: 200 });
    core = sim.kubeConfig().makeApiClient(k8s.CoreV1Api);
  });
  afterAll(async () => {
    await sim.stop();
  });
  beforeEach(() => {
    sim.faults.clear();
    sim.setWatchList('serve');
  });
  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
  });

  const start = (
    o: {
      pageSize?: number; resyncMs?: number; path?: string; requestTimeoutMs?: number; watchTimeoutSeconds?: number; watchIdleGraceMs?: number; staleAfterMs?: number;
      watchList?: boolean; now?: () => number; kc?: k8s.KubeConfig;
    } = {},
  ): Informer<LeanNode> => {
    informer = new Informer<LeanNode>({
      kc: o.kc ?? sim.kubeConfig(),
      path: o.path ?? '/api/v1/nodes',
      project: projectNode,
      pageSize: o.pageSize ?? 5,
      resyncMs: o.resyncMs ?? 0,
      backoff: { initialMs: 20, maxMs: 200 },
      name: 'nodes',
      ...(o.requestTimeoutMs ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
      ...(o.watchTimeoutSeconds ? { watchTimeoutSeconds: o.watchTimeoutSeconds } : {}),
      ...(o.watchIdleGraceMs ? { watchIdleGraceMs: o.watchIdleGraceMs } : {}),
      ...(o.staleAfterMs ? { staleAfterMs: o.staleAfterMs } : {}),
      ...(o.watchList !== undefined ? { watchList: o.watchList } : {}),
      ...(o.now ? { now: o.now } : {}),
    });
    informer.start();
    return informer;
  };

  const lists = (): number => sim.stats().byVerbResource['list nodes'] ?? 0;
  const resetNodes = async (names: string[]) => {
    const existing = (await core.listNode()).items.map((n) => n.metadata!.name!);
    for (const n of existing) await core.deleteNode({ name: n });
    sim.load({ nodes: names.map(aNode) });
  };

  it('lists in pages, keeps only projected objects and reports synced only after the complete list', async () => {
    sim.load({ nodes: structuredClone(fleet.nodes) });
    const inf = start({ pageSize: 5, watchList: false });
    const synced: SyncedInfo[] = [];
    inf.on('synced', (i) => synced.push(i));
    expect(inf.synced).toBe(false);
    await inf.waitForSync(10_000);

    expect(inf.size).toBe(23);
    expect(inf.stats.pages).toBe(5); // 23 nodes in pages of 5
    expect(inf.stats.lists).toBe(1);
    expect(synced).toEqual([expect.objectContaining({ full: true, reason: 'initial', via: 'list', added: 23, updated: 0, deleted: 0 })]);
    const first = fleet.nodes[0]!.metadata!.name!;
    expect(Object.keys(inf.get(first)!).sort()).toEqual(['labels', 'name', 'unschedulable', 'zone']);
    expect(inf.resourceVersion).toMatch(/^\d+$/);
    expect(sim.stats().byVerbResource['list nodes']).toBeGreaterThanOrEqual(5);
  });

  it('applies adds, updates and deletes from the watch', async () => {
    await resetNodes(['n-1', 'n-2']);
    const inf = start();
    await inf.waitForSync(10_000);
    const seen: string[] = [];
    inf.on('add', (o) => seen.push(`add ${o.name}`));
    inf.on('update', (o, old) => seen.push(`update ${o.name} ${old?.unschedulable}->${o.unschedulable}`));
    inf.on('delete', (o) => seen.push(`delete ${o.name}`));
    await waitFor(() => inf.stats.watches > 0, 'a watch');

    await core.createNode({ body: aNode('n-3') });
    sim.scenario.cordonAsKubectl('n-1');
    sim.scenario.deleteNode('n-2');

    await waitFor(() => seen.includes('delete n-2'), 'the last watch event');
    // A cordon may be more than one write (the simulator also records its managedFields owner): ignore no-op updates.
    expect(seen.filter((e) => !e.endsWith('true->true'))).toEqual(['add n-3', 'update n-1 false->true', 'delete n-2']);
    expect(inf.list().map((n) => n.name).sort()).toEqual(['n-1', 'n-3']);
    expect(inf.get('n-1')!.unschedulable).toBe(true);
    expect(inf.stats.lists).toBe(1);
  });

  it('relists after a 410 Gone on the watch', async () => {
    await resetNodes(['g-1', 'g-2']);
    const inf = start();
    await inf.waitForSync(10_000);
    await waitFor(() => inf.stats.watches > 0, 'a watch');
    const synced: SyncedInfo[] = [];
    inf.on('synced', (i) => synced.push(i));

    sim.faults.set({ gone410Next: true });
    sim.api.endWatches(NODES); // a normal close: the informer re-watches from its version and gets 410

    await waitFor(() => synced.length === 1, 'a relist after 410');
    expect(inf.stats.relists410).toBe(1);
    expect(inf.stats.lists).toBe(2);
    expect(synced[0]).toEqual(expect.objectContaining({ reason: 'gone', added: 0, deleted: 0 }));
    expect(inf.list().map((n) => n.name).sort()).toEqual(['g-1', 'g-2']);
  });

  it('relists once after a failed watch and catches up with what changed meanwhile', async () => {
    await resetNodes(['c-1']);
    const inf = start();
    await inf.waitForSync(10_000);
    await waitFor(() => inf.stats.watches > 0, 'a watch');
    // The watch goes down (every request fails), the cluster changes and its history is compacted.
    sim.faults.set({ rate500: 1 });
    sim.api.endWatches(NODES);
    await waitFor(() => inf.stats.errors >= 1, 'a failed re-watch');
    sim.scenario.setLabel('c-1', 'changed', 'yes');
    sim.scenario.compact();
    sim.faults.clear();

    await waitFor(() => inf.get('c-1')?.labels['changed'] === 'yes', 'the change seen by the relist');
    expect(inf.stats.lists).toBe(2);
  });

  it.each([
    ['a WatchList', true],
    ['a paged LIST', false],
  ])('a server-side close re-watches from the last version without a list; a dropped watch relists exactly once (%s)', async (_, watchList) => {
    await resetNodes(['d-1']);
    const inf = start({ watchList });
    await inf.waitForSync(10_000);
    await waitFor(() => sim.stats().openWatches['nodes'] === 1, 'a watch');
    const before = lists();

    sim.api.endWatches(NODES); // a clean end, as after timeoutSeconds
    await waitFor(() => inf.stats.watches >= 2 && sim.stats().openWatches['nodes'] === 1, 'the re-watch');
    expect(lists()).toBe(before);
    expect(inf.stats.lists).toBe(1);

    sim.dropWatches(); // the connection breaks mid-stream
    await waitFor(() => inf.stats.lists === 2 && sim.stats().openWatches['nodes'] === 1, 'one relist and a new watch');
    expect(lists()).toBe(before + (watchList ? 0 : 1));
    expect(inf.stats.watchLists).toBe(watchList ? 2 : 0);
    await core.createNode({ body: aNode('d-2') });
    await waitFor(() => inf.get('d-2'), 'd-2 seen on the new watch');
    expect(inf.stats.relists410).toBe(0);
  });

  it('backs off and retries while the API server fails, then syncs', async () => {
    await resetNodes(['e-1']);
    sim.faults.set({ rate500: 1 });
    const inf = start();
    await waitFor(() => inf.stats.errors >= 3, 'failed lists');
    expect(inf.synced).toBe(false);
    expect(inf.health()).toEqual({ ok: false, detail: expect.stringMatching(/waiting for the first list \(last error: (LIST|WATCH) \/api\/v1\/nodes: HTTP 500/) });
    sim.faults.clear();
    await inf.waitForSync(10_000);
    expect(inf.list().map((n) => n.name)).toEqual(['e-1']);
    expect(inf.health().ok).toBe(true);
  });

  it('the periodic resync replays the cache to the handlers and makes no request', async () => {
    await resetNodes(['r-1', 'r-2', 'r-3']);
    const inf = start({ resyncMs: 100 });
    await inf.waitForSync(10_000);
    await waitFor(() => sim.stats().openWatches['nodes'] === 1, 'a watch');
    const requests = sim.stats().requests;
    const replayed: string[] = [];
    let resyncs = 0;
    inf.on('update', (o, old) => {
      if (o === old) replayed.push(o.name);
    });
    inf.on('resync', () => resyncs++);
    await waitFor(() => resyncs >= 3, 'three resyncs');
    expect(replayed.slice(0, 3).sort()).toEqual(['r-1', 'r-2', 'r-3']);
    expect(sim.stats().requests).toBe(requests);
  });

  it('a LIST that stalls is abandoned after its timeout and retried', async () => {
    await resetNodes(['h-1']);
    sim.faults.set({ hangRequests: 1, hangVerb: 'list' });
    const inf = start({ requestTimeoutMs: 300, watchList: false });
    await inf.waitForSync(10_000);
    expect(inf.stats.listTimeouts).toBe(1);
    expect(sim.stats().hung).toBe(1);
    expect(inf.list().map((n) => n.name)).toEqual(['h-1']);
  });

  it('a watch that stalls after its headers is dropped once idle past its timeout and resumed without a LIST', async () => {
    await resetNodes(['s-1']);
    const inf = start({ watchTimeoutSeconds: 1, watchIdleGraceMs: 300 });
    await inf.waitForSync(10_000);
    await waitFor(() => inf.stats.watches >= 1, 'a watch');
    sim.faults.set({ hangRequests: 1, hangVerb: 'watch' });
    sim.api.endWatches(NODES);
    await waitFor(() => inf.stats.idleDrops === 1, 'the stalled watch dropped', 10_000);
    await core.createNode({ body: aNode('s-2') });
    await waitFor(() => inf.get('s-2'), 's-2 seen on the resumed watch');
    expect(inf.stats.lists).toBe(1);
  });

  it('readiness turns false while the API server cannot be watched for longer than staleAfterMs, and back', async () => {
    await resetNodes(['x-1']);
    const inf = start({ staleAfterMs: 400 });
    await inf.waitForSync(10_000);
    expect(inf.health().ok).toBe(true);
    sim.faults.set({ rate500: 1 });
    sim.dropWatches();
    await waitFor(() => inf.stats.errors >= 1, 'a failed request');
    expect(inf.health().ok).toBe(true); // not yet stale
    await waitFor(() => !inf.health().ok, 'readiness to turn false', 5_000);
    expect(inf.health().detail).toMatch(/Kubernetes API not answering for \d+ s .*the cache is stale/);
    sim.faults.clear();
    await waitFor(() => inf.health().ok, 'readiness back', 5_000);
  });

  it('restarts the list when a continue token expires mid-list', async () => {
    sim.load({ nodes: Array.from({ length: 12 }, (_, i) => aNode(`p-${String(i).padStart(2, '0')}`)) });
    let calls = 0;
    // The first continue request is answered 410 by a proxy in front of the simulator.
    const { createServer } = await import('node:http');
    const proxy = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.searchParams.get('continue') && calls++ === 0) {
        res.writeHead(410, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'continue token expired' }));
        return;
      }
      void fetch(sim.url + req.url!, { headers: req.headers as Record<string, string> }).then(async (r) => {
        res.writeHead(r.status, { 'Content-Type': 'application/json' });
        res.end(await r.text());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    const port = (proxy.address() as { port: number }).port;
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'p', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'x' }],
      contexts: [{ name: 'c', cluster: 'p', user: 'u' }],
      currentContext: 'c',
    });
    informer = new Informer<LeanNode>({ kc, path: '/api/v1/nodes', project: projectNode, pageSize: 5, watchList: false });
    const stopList = informer;
    stopList.start();
    try {
      await stopList.waitForSync(10_000);
      expect(stopList.stats.relists410).toBe(1);
      expect(stopList.list().filter((n) => n.name.startsWith('p-'))).toHaveLength(12);
    } finally {
      await stopList.stop();
      informer = undefined;
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  describe('streaming initial lists (WatchList)', () => {
    const watchRequests = (): number => sim.stats().byVerbResource['watch nodes'] ?? 0;

    it('lists by one watch: the initial events, the initial-events-end bookmark, then the same connection watches', async () => {
      await resetNodes(['w-1', 'w-2', 'w-3']);
      const synced: SyncedInfo[] = [];
      const listsBefore = lists();
      const watchesBefore = watchRequests();
      const inf = start();
      inf.on('synced', (i) => synced.push(i));
      await inf.waitForSync(10_000);

      expect(inf.list().map((n) => n.name).sort()).toEqual(['w-1', 'w-2', 'w-3']);
      expect(synced).toEqual([expect.objectContaining({ reason: 'initial', via: 'watch-list', added: 3, updated: 0, deleted: 0 })]);
      // The list's version is the bookmark's: the store's version when the state was taken, not an object's.
      expect(Number(inf.resourceVersion)).toBeGreaterThanOrEqual(Math.max(...sim.objects('nodes').map((n) => Number(n.metadata.resourceVersion))));
      await core.createNode({ body: aNode('w-4') });
      await waitFor(() => inf.get('w-4'), 'w-4 seen on the same connection');
      expect(inf.stats).toEqual(expect.objectContaining({ lists: 1, pages: 0, watches: 1, watchLists: 1, watchListFallbacks: 0 }));
      expect(lists() - listsBefore).toBe(0);
      expect(watchRequests() - watchesBefore).toBe(1);
    });

    it('a relist after a failed watch is a WatchList from the last version seen, and deletes what is gone', async () => {
      await resetNodes(['z-1', 'z-2']);
      const listsBefore = lists();
      const inf = start();
      await inf.waitForSync(10_000);
      await waitFor(() => sim.stats().openWatches['nodes'] === 1, 'a watch');
      const synced: SyncedInfo[] = [];
      inf.on('synced', (i) => synced.push(i));
      sim.faults.set({ rate500: 1 });
      sim.dropWatches();
      await waitFor(() => inf.stats.errors >= 1, 'a failed re-watch');
      sim.scenario.deleteNode('z-2');
      sim.scenario.compact(); // the failed watch's version is gone: the relist's NotOlderThan still holds
      sim.faults.clear();

      await waitFor(() => synced.length === 1, 'the relist');
      expect(synced[0]).toEqual(expect.objectContaining({ via: 'watch-list', reason: 'error', deleted: 1 }));
      expect(inf.list().map((n) => n.name)).toEqual(['z-1']);
      expect(lists() - listsBefore).toBe(0);
    });

    it('falls back to the paged LIST, for good, when the server refuses the parameters (422)', async () => {
      await resetNodes(['f-1', 'f-2']);
      sim.setWatchList('refuse');
      const synced: SyncedInfo[] = [];
      const inf = start({ pageSize: 1 });
      inf.on('synced', (i) => synced.push(i));
      await inf.waitForSync(10_000);
      expect(synced).toEqual([expect.objectContaining({ via: 'list', added: 2 })]);
      expect(inf.stats).toEqual(expect.objectContaining({ watchLists: 1, watchListFallbacks: 1, pages: 2, errors: 0 }));

      await waitFor(() => sim.stats().openWatches['nodes'] === 1, 'a watch');
      sim.dropWatches(); // a failed watch relists by LIST, without asking for a WatchList again
      await waitFor(() => inf.stats.lists === 2, 'the relist');
      expect(inf.stats.watchLists).toBe(1);
      expect(inf.stats.pages).toBe(4);
      expect(inf.health().ok).toBe(true);
    });

    it('falls back when the server ignores the parameters and bookmarks without the initial-events-end annotation', async () => {
      await resetNodes(['i-1']);
      sim.setWatchList('ignore'); // legacy semantics: the state as ADDED, then ordinary bookmarks (every 200 ms here)
      const inf = start();
      await inf.waitForSync(10_000);
      expect(inf.stats).toEqual(expect.objectContaining({ watchLists: 1, watchListFallbacks: 1, lists: 1 }));
      expect(inf.stats.pages).toBeGreaterThanOrEqual(1);
      expect(inf.list().map((n) => n.name)).toEqual(['i-1']);
    });

    it('falls back when no initial-events-end bookmark comes within the bound, measured on the injected clock', async () => {
      // A server that sends no bookmark at all: the wait is bounded on the informer's clock, which only the test moves.
      const quiet = await startKubeSim({ bookmarkIntervalMs: 3_600_000, watchList: 'ignore', kubelet: false });
      try {
        quiet.load({ nodes: [aNode('q-1'), aNode('q-2')] });
        let t = 0;
        const inf = start({ kc: quiet.kubeConfig(), now: () => t });
        await waitFor(() => inf.size === 2, 'the initial events');
        expect(inf.synced).toBe(false);
        expect(inf.stats.watchListFallbacks).toBe(0);

        t += 30_001;
        await inf.waitForSync(10_000);
        expect(inf.stats).toEqual(expect.objectContaining({ watchLists: 1, watchListFallbacks: 1, lists: 1 }));
        expect(quiet.stats().byVerbResource['list nodes']).toBeGreaterThanOrEqual(1);
      } finally {
        await informer?.stop();
        informer = undefined;
        await quiet.stop();
      }
    });
  });
});
