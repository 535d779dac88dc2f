import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiException, CoordinationV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
import { aKubeLease, aKubeNode, aKubePod } from '@nodes-manager/kube/testing';
import { startKubeSim, type KubeSim } from '@nodes-manager/sim';

/** RBAC in the simulator over HTTP, with the real client: what a ServiceAccount's token may do, and what it is told when it may not. */
const NS = 'nodes-manager';
const POLICY = [
  { kind: 'ServiceAccount', metadata: { name: 'reader', namespace: NS } },
  { kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }, { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] }] },
  { kind: 'ClusterRoleBinding', metadata: { name: 'reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: NS }] },
  { kind: 'Role', metadata: { name: 'leases', namespace: 'kube-node-lease' }, rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] }] },
  { kind: 'RoleBinding', metadata: { name: 'leases', namespace: 'kube-node-lease' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leases' }, subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: NS }] },
];

const fromFile = (path: string): KubeConfig => {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
};
const failure = async (p: Promise<unknown>): Promise<{ code: number; body: Record<string, unknown> }> =>
  p.then(
    () => ({ code: 0, body: {} }),
    (e: ApiException<string>) => ({ code: e.code, body: JSON.parse(e.body) as Record<string, unknown> }),
  );

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
let sim: KubeSim;
let reader: KubeConfig;

beforeAll(async () => {
  sim = await startKubeSim({ kubelet: false });
  sim.load({ nodes: [aKubeNode('n1'), aKubeNode('n2')], pods: [aKubePod('web-1', 'n1', { namespace: 'web' })] });
  await sim.kubeConfig().makeApiClient(CoordinationV1Api).createNamespacedLease({ namespace: 'kube-node-lease', body: aKubeLease('n1') });
  reader = fromFile(sim.rbac.serviceAccountKubeconfig(NS, 'reader'));
});
afterAll(async () => sim?.stop());

describe('RBAC in the Kubernetes simulator', () => {
  it('is off by default: any token may do anything, and nothing is recorded', async () => {
    await reader.makeApiClient(CoreV1Api).patchNode({ name: 'n2', body: { metadata: { labels: { a: 'b' } } } }, MERGE);
    expect(sim.rbac.records()).toEqual([]);
  });

  it('enforced: what the rules grant is served, and recorded with the grant that allowed it', async () => {
    sim.rbac.enforce(POLICY);
    const core = reader.makeApiClient(CoreV1Api);
    expect((await core.listNode()).items.map((n) => n.metadata!.name)).toEqual(['n1', 'n2']);
    expect((await core.readNode({ name: 'n1' })).metadata?.name).toBe('n1');
    const lease = await reader.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'n1', namespace: 'kube-node-lease' });
    expect(lease.metadata?.name).toBe('n1');
    const list = sim.rbac.records().find((r) => r.verb === 'list' && r.resource === 'nodes')!;
    expect(list).toMatchObject({ user: `system:serviceaccount:${NS}:reader`, allowed: true, grants: [{ role: 'ClusterRole/reader', binding: 'ClusterRoleBinding/reader', rule: 0, apiGroup: '', resource: 'nodes', verb: 'list' }] });
    expect(sim.rbac.records().find((r) => r.resource === 'leases')).toMatchObject({ allowed: true, namespace: 'kube-node-lease', grants: [{ role: 'Role/kube-node-lease/leases', verb: 'get' }] });
  });

  it('answers 403 with the API server Status for what no rule allows: a verb, a subresource, a namespace', async () => {
    const core = reader.makeApiClient(CoreV1Api);
    const patch = await failure(core.patchNode({ name: 'n1', body: { spec: { unschedulable: true } } }, MERGE));
    expect(patch).toEqual({
      code: 403,
      body: {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: { name: 'n1', kind: 'nodes' },
        message: `nodes "n1" is forbidden: User "system:serviceaccount:${NS}:reader" cannot patch resource "nodes" in API group "" at the cluster scope`,
      },
    });
    expect(sim.objects('nodes').find((n) => n.metadata.name === 'n1')?.spec?.unschedulable).toBeUndefined();
    const status = await failure(core.patchNodeStatus({ name: 'n1', body: { status: {} } }, MERGE));
    expect([status.code, status.body['message']]).toEqual([403, expect.stringContaining('cannot patch resource "nodes/status"')]);
    const pods = await failure(core.listNamespacedPod({ namespace: 'web' }));
    expect([pods.code, pods.body['message']]).toEqual([403, expect.stringContaining('cannot list resource "pods" in API group "" in the namespace "web"')]);
    const otherLease = await failure(reader.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'x', namespace: 'default' }));
    expect(otherLease.code).toBe(403);
    // Authorization comes before existence, as on the API server: a pod that does not exist is still 403, not 404.
    expect((await failure(core.deleteNamespacedPod({ name: 'absent', namespace: 'web' }))).code).toBe(403);
    const denied = sim.rbac.records().filter((r) => !r.allowed);
    expect(denied.map((r) => `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''} ${r.namespace}`)).toEqual(['patch nodes ', 'patch nodes/status ', 'list pods web', 'get leases default', 'delete pods web']);
  });

  it('a watch needs the watch verb; discovery needs no rule', async () => {
    const started = await new Promise<string>((resolve) => {
      void new Watch(reader).watch('/api/v1/nodes', {}, () => undefined, (err) => resolve(String(err ?? 'closed'))).then((req) => {
        setTimeout(() => req.abort(), 200);
      }, (err: Error) => resolve(`refused: ${err.message}`));
    });
    expect(started).not.toMatch(/refused|403/);
    const res = await fetch(`${sim.url}/apis/karpenter.sh/v1`, { headers: { authorization: `Bearer ${reader.getCurrentUser()!.token}` } });
    expect(res.status).not.toBe(403);
    const podsWatch = await fetch(`${sim.url}/api/v1/pods?watch=true`, { headers: { authorization: `Bearer ${reader.getCurrentUser()!.token}` } });
    expect(podsWatch.status).toBe(403);
  });

  it('an unknown token is 401; the admin kubeconfig is never refused; disabling lets everything through again', async () => {
    const res = await fetch(`${sim.url}/api/v1/nodes`, { headers: { authorization: 'Bearer not-a-token' } });
    expect([res.status, ((await res.json()) as { reason: string }).reason]).toEqual([401, 'Unauthorized']);
    await sim.kubeConfig().makeApiClient(CoreV1Api).patchNode({ name: 'n2', body: { metadata: { labels: { c: 'd' } } } }, MERGE);
    expect(sim.rbac.records().some((r) => r.user === 'sim-admin')).toBe(false);
    sim.rbac.disable();
    await reader.makeApiClient(CoreV1Api).patchNode({ name: 'n1', body: { metadata: { labels: { e: 'f' } } } }, MERGE);
  });
});
