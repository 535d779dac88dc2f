import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppsV1Api, CoreV1Api, PolicyV1Api, type V1Pod } from '@kubernetes/client-node';
import { type KubeSim, startKubeSim } from '@nodes-manager/sim';

/** KUBECTL — the kubectl binary (Debian's kubernetes-client is 1.20; newer ones work too). */
const KUBECTL = process.env.KUBECTL ?? 'kubectl';

interface Run {
  code: number;
  out: string;
}

describe('kubectl against the simulator', () => {
  let sim: KubeSim;
  let core: CoreV1Api;
  let minor = 0;

  const kubectl = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(KUBECTL, args, { env: { ...process.env, KUBECONFIG: sim.kubeconfigPath }, timeout: 60_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
      });
    });

  const aPod = (name: string, owner: { kind: string; name: string; apiVersion: string }, labels: Record<string, string>): V1Pod => ({
    metadata: { name, namespace: 'shop', labels, ownerReferences: [{ ...owner, uid: `${owner.name}-uid`, controller: true }] },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'x' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });

  beforeAll(async () => {
    sim = await startKubeSim({ podTerminationMs: 200 });
    core = sim.kubeConfig().makeApiClient(CoreV1Api);
    for (const name of ['node-1', 'node-2']) {
      await core.createNode({ body: { metadata: { name }, status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.31.4-eks' } as never } } });
    }
    await core.createNamespace({ body: { metadata: { name: 'shop' } } });
    await sim.kubeConfig().makeApiClient(AppsV1Api).createNamespacedDaemonSet({
      namespace: 'shop',
      body: { metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'a' }] } } } },
    });
    await core.createNamespacedPod({ namespace: 'shop', body: aPod('agent-x1', { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent' }, { app: 'agent' }) });
    await core.createNamespacedPod({ namespace: 'shop', body: aPod('web-abc-1', { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc' }, { app: 'web' }) });
    await core.createNamespacedPod({ namespace: 'shop', body: aPod('db-0', { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }, { app: 'db' }) });
    await sim.kubeConfig().makeApiClient(PolicyV1Api).createNamespacedPodDisruptionBudget({
      namespace: 'shop', body: { metadata: { name: 'db-pdb' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } } },
    });
    const v = await kubectl('version', '--client', '-o', 'json');
    minor = Number(JSON.parse(v.out.slice(v.out.indexOf('{'))).clientVersion.minor.replace(/\D/g, ''));
  });
  afterAll(async () => sim.stop());

  it('gets nodes', async () => {
    const r = await kubectl('get', 'nodes');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/node-1\s+Ready/);
    expect(r.out).toMatch(/node-2\s+Ready/);
  });

  it('cordons, and the node\'s YAML names the manager that cordoned it', async () => {
    expect((await kubectl('cordon', 'node-2')).out).toContain('cordoned');
    expect((await kubectl('get', 'nodes')).out).toMatch(/node-2\s+Ready,SchedulingDisabled/);
    const yaml = await kubectl('get', 'node', 'node-2', '-o', 'yaml', ...(minor >= 21 ? ['--show-managed-fields'] : []));
    expect(yaml.out).toContain('f:unschedulable');
    expect(yaml.out).toMatch(/manager: kubectl(-cordon)?\n/);
    expect(yaml.out).toContain('node.kubernetes.io/unschedulable');
  });

  it('uncordons', async () => {
    expect((await kubectl('uncordon', 'node-2')).out).toContain('uncordoned');
    expect((await core.readNode({ name: 'node-2' })).spec!.unschedulable).toBeFalsy();
  });

  it('drains: evicts what it may, skips the DaemonSet pod, and reports the disruption budget it cannot pass', async () => {
    const r = await kubectl('drain', 'node-1', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=4s');
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('disruption budget');
    expect(r.out).toContain('web-abc-1');
    const left = (await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=node-1' })).items.map((p) => p.metadata!.name).sort();
    expect(left).toEqual(['agent-x1', 'db-0']);
    expect((await core.readNode({ name: 'node-1' })).spec!.unschedulable).toBe(true);
    expect(sim.stats().byVerbResource['create pods/eviction']).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
