import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ApiException, CoordinationV1Api, CoreV1Api, CustomObjectsApi, PatchStrategy, PolicyV1Api, setHeaderOptions, Watch,
  type V1Node, type V1Pod,
} from '@kubernetes/client-node';
import { type KubeSim, startKubeSim } from '@nodes-manager/sim';

const T0 = new Date('2026-03-01T10:00:00Z');
let now = T0;
const clock = () => now;

const aNode = (name: string, o: Partial<{ labels: Record<string, string> }> = {}): V1Node => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } },
  spec: { providerID: `aws:///us-east-1a/i-0${name.length}` },
  status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }] },
});

const aPod = (name: string, o: Partial<{ ns: string; node: string; labels: Record<string, string>; ready: boolean }> = {}): V1Pod => ({
  metadata: { name, namespace: o.ns ?? 'default', labels: o.labels ?? { app: 'web' } },
  spec: { nodeName: o.node ?? 'n1', containers: [{ name: 'c', image: 'x' }] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
});

const reasonOf = (e: unknown): string => JSON.parse((e as ApiException<string>).body).reason;
const codeOf = async (p: Promise<unknown>): Promise<number> => p.then(() => 0, (e: ApiException<string>) => e.code);

describe('Kubernetes API simulator with the real client', () => {
  let sim: KubeSim;
  let core: CoreV1Api;

  beforeAll(async () => {
    // Termination long enough that the read right after an eviction still sees the pod terminating on a loaded machine.
    sim = await startKubeSim({ clock, podTerminationMs: 1_000, bookmarkIntervalMs: 100 });
    core = sim.kubeConfig().makeApiClient(CoreV1Api);
    for (const n of ['n1', 'n2', 'n3']) await core.createNode({ body: aNode(n, { labels: { pool: n === 'n3' ? 'gpu' : 'general' } }) });
  });
  afterAll(async () => sim.stop());

  it('lists nodes with a label selector, a field selector and paging', async () => {
    expect((await core.listNode({ labelSelector: 'pool=general' })).items.map((n) => n.metadata!.name)).toEqual(['n1', 'n2']);
    expect((await core.listNode({ fieldSelector: 'metadata.name=n3' })).items).toHaveLength(1);
    const page1 = await core.listNode({ limit: 2 });
    expect(page1.items).toHaveLength(2);
    expect(page1.metadata!.remainingItemCount).toBe(1);
    const page2 = await core.listNode({ limit: 2, _continue: page1.metadata!._continue });
    expect(page2.items.map((n) => n.metadata!.name)).toEqual(['n3']);
    expect(page2.metadata!._continue).toBeUndefined();
  });

  it.each([
    ['a merge patch', PatchStrategy.MergePatch, { metadata: { labels: { a: '1' } } }, (n: V1Node) => n.metadata!.labels!.a === '1'],
    ['a strategic merge patch merging conditions by type', PatchStrategy.StrategicMergePatch,
      { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'x' }] } }, (n: V1Node) => n.status!.conditions!.length === 1],
    ['a JSON patch with a passing test', PatchStrategy.JsonPatch,
      [{ op: 'test', path: '/metadata/name', value: 'n2' }, { op: 'add', path: '/metadata/labels/b', value: '2' }], (n: V1Node) => n.metadata!.labels!.b === '2'],
  ])('applies %s to a node', async (_name, strategy, body, check) => {
    const out = await core.patchNode({ name: 'n2', body }, setHeaderOptions('Content-Type', strategy));
    expect(check(out)).toBe(true);
  });

  it('refuses a JSON patch whose test fails, with 422 Invalid, and changes nothing', async () => {
    const before = await core.readNode({ name: 'n2' });
    const err = await core.patchNode({ name: 'n2', body: [{ op: 'test', path: '/metadata/labels/pool', value: 'gpu' }, { op: 'add', path: '/metadata/labels/c', value: '3' }] })
      .catch((e: unknown) => e);
    expect((err as ApiException<string>).code).toBe(422);
    expect(reasonOf(err)).toBe('Invalid');
    expect((await core.readNode({ name: 'n2' })).metadata!.resourceVersion).toBe(before.metadata!.resourceVersion);
  });

  it('answers 409 Conflict to an update or patch with a stale resourceVersion', async () => {
    const node = await core.readNode({ name: 'n1' });
    await core.patchNode({ name: 'n1', body: { metadata: { labels: { touched: 'yes' } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    const err = await core.replaceNode({ name: 'n1', body: node }).catch((e: unknown) => e);
    expect((err as ApiException<string>).code).toBe(409);
    expect(reasonOf(err)).toBe('Conflict');
    expect(await codeOf(core.patchNode({ name: 'n1', body: { metadata: { resourceVersion: node.metadata!.resourceVersion }, spec: { unschedulable: true } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch)))).toBe(409);
  });

  it('keeps the unschedulable taint in step with spec.unschedulable, as the node lifecycle controller does', async () => {
    await core.patchNode({ name: 'n2', body: { spec: { unschedulable: true } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
    expect((await core.readNode({ name: 'n2' })).spec!.taints!.map((t) => t.key)).toContain('node.kubernetes.io/unschedulable');
    await core.patchNode({ name: 'n2', body: { spec: { unschedulable: null } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
    expect((await core.readNode({ name: 'n2' })).spec!.taints ?? []).toEqual([]);
  });

  it('gives ownership of spec.unschedulable to the manager that set it, with that write\'s time', async () => {
    now = new Date('2026-03-01T10:05:00Z');
    sim.scenario.cordonAsKubectl('n3');
    let owner = (await core.readNode({ name: 'n3' })).metadata!.managedFields!.find((m) => (m.fieldsV1 as { 'f:spec'?: Record<string, unknown> })['f:spec']?.['f:unschedulable']);
    expect(owner?.manager).toBe('kubectl-cordon');
    sim.scenario.uncordonAs('n3', 'someone');
    now = new Date('2026-03-01T10:07:00Z');
    sim.scenario.cordonAsNth('n3', { taint: true });
    const node = await core.readNode({ name: 'n3' });
    owner = node.metadata!.managedFields!.find((m) => (m.fieldsV1 as { 'f:spec'?: Record<string, unknown> })['f:spec']?.['f:unschedulable']);
    expect(owner?.manager).toBe('node-termination-handler');
    expect(owner?.operation).toBe('Update');
    expect(new Date(owner!.time as unknown as string).toISOString()).toBe('2026-03-01T10:07:00.000Z');
    expect(node.spec!.taints!.map((t) => t.key).sort()).toEqual(['aws-node-termination-handler/rebalance-recommendation', 'node.kubernetes.io/unschedulable']);
  });

  it('takes the manager from the User-Agent prefix when no fieldManager is given', async () => {
    const nth = sim.kubeConfig('node-termination-handler/v1.22.0 (linux/amd64) kubernetes/abc').makeApiClient(CoreV1Api);
    await nth.patchNode({ name: 'n1', body: { metadata: { annotations: { seen: 'nth' } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    const mf = (await core.readNode({ name: 'n1' })).metadata!.managedFields!;
    expect(mf.map((m) => m.manager)).toContain('node-termination-handler');
  });

  it('merges the oldest of more than 10 Update managers into ancient-changes', async () => {
    for (let i = 0; i < 11; i++) {
      now = new Date(T0.getTime() + 3600_000 + i * 1000);
      await core.patchNode({ name: 'n1', body: { metadata: { labels: { [`m${i}`]: 'x' } } }, fieldManager: `manager-${i}` }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    }
    const managers = (await core.readNode({ name: 'n1' })).metadata!.managedFields!.map((m) => m.manager);
    expect(managers).toHaveLength(10);
    expect(managers).toContain('ancient-changes');
    expect(managers).toContain('manager-10');
  });

  it('streams ADDED, MODIFIED and DELETED node events and bookmarks from a list\'s resourceVersion', async () => {
    const list = await core.listNode();
    const events: string[] = [];
    const watch = new Watch(sim.kubeConfig());
    const ctl = await watch.watch('/api/v1/nodes', { resourceVersion: list.metadata!.resourceVersion, allowWatchBookmarks: true },
      (type, obj) => events.push(`${type} ${obj.metadata?.name ?? ''}`), () => undefined);
    await core.createNode({ body: aNode('w1') });
    sim.scenario.setLabel('w1', 'x', 'y');
    await core.deleteNode({ name: 'w1' });
    await new Promise((r) => setTimeout(r, 300));
    ctl.abort();
    expect(events.filter((e) => !e.startsWith('BOOKMARK'))).toEqual(['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
    expect(events).toContain('BOOKMARK ');
  });

  it('answers a watch from a version older than the history window with a 410 ERROR event', async () => {
    const old = (await core.listNode()).metadata!.resourceVersion!;
    sim.scenario.setLabel('n1', 'bump', '1');
    sim.scenario.compact();
    const events: { type: string; code?: number }[] = [];
    await new Promise<void>((resolve) => {
      void new Watch(sim.kubeConfig()).watch('/api/v1/nodes', { resourceVersion: old }, (type, obj) => events.push({ type, code: obj.code }), () => resolve());
    });
    expect(events).toEqual([{ type: 'ERROR', code: 410 }]);
  });

  describe('WatchList (sendInitialEvents), as kube-apiserver 1.34 serves it', () => {
    const WATCH_LIST = { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true };
    /** watchUntil — the client's stock Watch with `params`, its events as `TYPE name rv [annotation]`, until `done` holds. */
    const watchUntil = async (params: Record<string, string | number | boolean | undefined>, done: (events: string[]) => boolean): Promise<string[]> => {
      const events: string[] = [];
      let ctl: AbortController | undefined;
      await new Promise<void>((resolve, reject) => {
        void new Watch(sim.kubeConfig())
          .watch('/api/v1/nodes', params, (type, obj) => {
            const end = obj.metadata?.annotations?.['k8s.io/initial-events-end'];
            events.push([type, obj.metadata?.name, obj.metadata?.resourceVersion, end ? `initial-events-end=${end}` : undefined].filter((x) => x).join(' '));
            if (done(events)) resolve();
          }, (err) => (err ? reject(err as Error) : resolve()))
          .then((c) => (ctl = c), reject);
      });
      ctl?.abort();
      return events;
    };

    it('sends the state as ADDED events, then the bookmark annotated initial-events-end at the state\'s version, then the changes', async () => {
      const names = (await core.listNode()).items.map((n) => n.metadata!.name!);
      const state = (await core.listNode()).metadata!.resourceVersion!;
      let created = false;
      const events = await watchUntil(WATCH_LIST, (evs) => {
        if (!created && evs.some((e) => e.includes('initial-events-end'))) {
          created = true;
          void core.createNode({ body: aNode('wl-1') });
        }
        return evs.some((e) => e.startsWith('ADDED wl-1'));
      });
      const initial = events.slice(0, names.length);
      expect(initial.map((e) => e.split(' ').slice(0, 2).join(' '))).toEqual(names.map((n) => `ADDED ${n}`));
      expect(events[names.length]).toBe(`BOOKMARK ${state} initial-events-end=true`);
      expect(events.at(-1)).toMatch(/^ADDED wl-1 \d+$/);
      await core.deleteNode({ name: 'wl-1' });
    });

    it('ordinary bookmarks carry no initial-events-end annotation', async () => {
      const events = await watchUntil({ allowWatchBookmarks: true, resourceVersion: (await core.listNode()).metadata!.resourceVersion }, (evs) => evs.some((e) => e.startsWith('BOOKMARK')));
      expect(events.find((e) => e.startsWith('BOOKMARK'))).not.toContain('initial-events-end');
    });

    it.each([
      ['sendInitialEvents without resourceVersionMatch', { watch: 'true', sendInitialEvents: 'true' }, 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
      ['resourceVersionMatch on a watch without sendInitialEvents', { watch: 'true', resourceVersionMatch: 'NotOlderThan' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
      ['sendInitialEvents on a list', { sendInitialEvents: 'true' }, 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ])('refuses %s with 422 Invalid', async (_, params, message) => {
      const res = await fetch(`${sim.url}/api/v1/nodes?${new URLSearchParams(params as Record<string, string>)}`);
      expect(res.status).toBe(422);
      expect(await res.json()).toEqual(expect.objectContaining({ reason: 'Invalid', message: `ListOptions.meta.k8s.io "" is invalid: ${message}` }));
    });

    it('refuses a version it has not reached with 504 Too large resource version', async () => {
      const ahead = Number((await core.listNode()).metadata!.resourceVersion) + 1000;
      const res = await fetch(`${sim.url}/api/v1/nodes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${ahead}`);
      expect(res.status).toBe(504);
      expect(((await res.json()) as { message: string }).message).toMatch(/^Too large resource version: \d+, current: \d+$/);
    });

    it('told to refuse WatchList, answers as a server without the feature: 422, and plain watches still work', async () => {
      sim.setWatchList('refuse');
      try {
        const res = await fetch(`${sim.url}/api/v1/nodes?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
        expect(res.status).toBe(422);
        expect(((await res.json()) as { message: string }).message).toBe('ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
        const names = (await core.listNode()).items.map((n) => n.metadata!.name!);
        const events = await watchUntil({}, (evs) => evs.length === names.length);
        expect(events.map((e) => e.split(' ')[0])).toEqual(names.map(() => 'ADDED'));
      } finally {
        sim.setWatchList('serve');
      }
    });

    it('told to ignore the parameters, answers a legacy watch: the state as ADDED and no initial-events-end bookmark', async () => {
      sim.setWatchList('ignore');
      try {
        const names = (await core.listNode()).items.map((n) => n.metadata!.name!);
        const events = await watchUntil(WATCH_LIST, (evs) => evs.some((e) => e.startsWith('BOOKMARK')));
        expect(events.slice(0, names.length).map((e) => e.split(' ')[1])).toEqual(names);
        expect(events.join('\n')).not.toContain('initial-events-end');
      } finally {
        sim.setWatchList('serve');
      }
    });
  });

  it('ends a watch at timeoutSeconds', async () => {
    const started = Date.now();
    await new Promise<void>((resolve) => {
      void new Watch(sim.kubeConfig()).watch('/api/v1/nodes', { timeoutSeconds: 1 }, () => undefined, () => resolve());
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  describe('evictions', () => {
    beforeAll(async () => {
      await core.createNamespace({ body: { metadata: { name: 'shop' } } });
      for (const [name, app] of [['solo-1', 'solo'], ['guarded-1', 'guarded'], ['double-1', 'double']]) {
        await core.createNamespacedPod({ namespace: 'shop', body: aPod(name, { ns: 'shop', labels: { app, tier: 'x' } }) });
      }
      const policy = sim.kubeConfig().makeApiClient(PolicyV1Api);
      await policy.createNamespacedPodDisruptionBudget({ namespace: 'shop', body: { metadata: { name: 'guarded' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } } } });
      await policy.createNamespacedPodDisruptionBudget({ namespace: 'shop', body: { metadata: { name: 'd1' }, spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'double' } } } } });
      await policy.createNamespacedPodDisruptionBudget({ namespace: 'shop', body: { metadata: { name: 'd2' }, spec: { maxUnavailable: 1, selector: { matchLabels: { tier: 'x', app: 'double' } } } } });
    });

    const evict = (name: string) => core.createNamespacedPodEviction({ name, namespace: 'shop', body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'shop' } } });

    it('evicts a pod no budget covers: it terminates, then goes', async () => {
      await evict('solo-1');
      expect((await core.readNamespacedPod({ name: 'solo-1', namespace: 'shop' })).metadata!.deletionTimestamp).toBeDefined();
      await new Promise((r) => setTimeout(r, 1_300));
      expect(await codeOf(core.readNamespacedPod({ name: 'solo-1', namespace: 'shop' }))).toBe(404);
    });

    it('answers 429 with a Status naming the budget when it allows no disruption', async () => {
      const pdb = await sim.kubeConfig().makeApiClient(PolicyV1Api).readNamespacedPodDisruptionBudget({ name: 'guarded', namespace: 'shop' });
      expect(pdb.status).toMatchObject({ currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 1 });
      const err = (await evict('guarded-1').catch((e: unknown) => e)) as ApiException<string>;
      expect(err.code).toBe(429);
      const status = JSON.parse(err.body);
      expect(status.reason).toBe('TooManyRequests');
      expect(status.details.causes[0].message).toContain('guarded');
    });

    it('answers 500 when two budgets select the pod', async () => {
      expect(await codeOf(evict('double-1'))).toBe(500);
    });
  });

  it('creates, updates and conflicts on Leases', async () => {
    const leases = sim.kubeConfig().makeApiClient(CoordinationV1Api);
    const lease = await leases.createNamespacedLease({ namespace: 'kube-node-lease', body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } } });
    const updated = await leases.replaceNamespacedLease({ name: 'leader', namespace: 'kube-node-lease', body: { ...lease, spec: { holderIdentity: 'b' } } });
    expect(updated.spec!.holderIdentity).toBe('b');
    expect(await codeOf(leases.replaceNamespacedLease({ name: 'leader', namespace: 'kube-node-lease', body: { ...lease, spec: { holderIdentity: 'c' } } }))).toBe(409);
    expect(await codeOf(leases.createNamespacedLease({ namespace: 'kube-node-lease', body: { metadata: { name: 'leader' } } }))).toBe(409);
  });

  it('serves Karpenter NodePools only while the CRDs are installed', async () => {
    const custom = sim.kubeConfig().makeApiClient(CustomObjectsApi);
    const ref = { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' };
    expect(await codeOf(custom.listClusterCustomObject(ref))).toBe(404);
    const groups = (await (await fetch(`${sim.url}/apis`)).json()) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).not.toContain('karpenter.sh');
    sim.scenario.installKarpenter();
    await custom.createClusterCustomObject({ ...ref, body: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'general' }, spec: { limits: { cpu: '100' } } } });
    const applied = await custom.patchClusterCustomObject({ ...ref, name: 'general', body: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'general' }, spec: { limits: { cpu: '200' } } }, fieldManager: 'nodes-manager', force: true },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply)) as { spec: { limits: { cpu: string } }; metadata: { managedFields: { manager: string; operation: string }[] } };
    expect(applied.spec.limits.cpu).toBe('200');
    expect(applied.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'nodes-manager', operation: 'Apply' }));
    const pools = (await custom.listClusterCustomObject(ref)) as { items: unknown[] };
    expect(pools.items).toHaveLength(1);
    sim.scenario.removeKarpenter();
    expect(await codeOf(custom.listClusterCustomObject(ref))).toBe(404);
  });

  it.each([
    ['a 500 rate of 1 fails every call with 500', { rate500: 1 }, 500],
    ['a 429 rate of 1 fails every call with 429', { rate429: 1 }, 429],
    ['a conflict on the next write fails the next patch with 409', { conflictNextWrite: true }, 409],
  ])('injects faults: %s', async (_name, fault, code) => {
    sim.faults.set(fault);
    try {
      expect(await codeOf(core.patchNode({ name: 'n1', body: { metadata: { labels: { f: String(code) } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)))).toBe(code);
    } finally {
      sim.faults.clear();
    }
    expect(await codeOf(core.readNode({ name: 'n1' }))).toBe(0);
  });

  it('injects a 410 on the next watch and counts requests by verb', async () => {
    await fetch(`${sim.url}/_sim/faults`, { method: 'POST', body: JSON.stringify({ gone410Next: true }) });
    const types: string[] = [];
    await new Promise<void>((resolve) => {
      void new Watch(sim.kubeConfig()).watch('/api/v1/nodes', {}, (type) => types.push(type), () => resolve());
    });
    expect(types).toEqual(['ERROR']);
    expect(sim.stats().byVerb.watch).toBeGreaterThan(0);
    expect(sim.stats().byVerbResource['create pods/eviction']).toBe(3);
  });
});
