import { describe, expect, it } from '@jest/globals';
import { deriveAccess, type ApiAccess } from './support/kube-calls.js';
import { loadManifests, named, ofKind } from './support/manifests.js';
import { runtimeGraph, SERVICES, serviceEntry } from './support/source-graph.js';

const NS = 'nodes-manager';
const manifests = loadManifests();

/** Grant — one (group, resource, verb) a service account holds; `namespace` for a Role's. */
interface Grant {
  group: string;
  resource: string;
  verb: string;
  namespace?: string;
  from: string;
}

/** grantsOf — every rule bound to ServiceAccount `svc` by a (Cluster)RoleBinding in deploy/. */
function grantsOf(svc: string): Grant[] {
  const out: Grant[] = [];
  for (const kind of ['ClusterRoleBinding', 'RoleBinding'] as const) {
    for (const b of ofKind(manifests, kind)) {
      const bound = (b.doc.subjects ?? []).some((s: any) => s.kind === 'ServiceAccount' && s.name === svc && s.namespace === NS);
      if (!bound) continue;
      const ns = kind === 'RoleBinding' ? b.doc.metadata.namespace : undefined;
      const role = ofKind(manifests, b.doc.roleRef.kind).find((r) => r.doc.metadata.name === b.doc.roleRef.name && (b.doc.roleRef.kind === 'ClusterRole' || r.doc.metadata.namespace === ns));
      if (!role) throw new Error(`${b.file}: ${kind} ${b.doc.metadata.name} refers to a missing ${b.doc.roleRef.kind} ${b.doc.roleRef.name}`);
      for (const rule of role.doc.rules ?? []) {
        for (const group of rule.apiGroups ?? [])
          for (const resource of rule.resources ?? [])
            for (const verb of rule.verbs ?? []) out.push({ group, resource, verb, ...(ns ? { namespace: ns } : {}), from: `${role.doc.kind}/${role.doc.metadata.name}` });
      }
    }
  }
  return out;
}

const same = (a: { group: string; resource: string; verb: string }, b: { group: string; resource: string; verb: string }) =>
  a.group === b.group && a.resource === b.resource && a.verb === b.verb;

const covers = (g: Grant, n: ApiAccess): boolean => same(g, n) && (g.namespace === undefined || g.namespace === n.namespace);

const fmt = (x: { group: string; resource: string; verb: string; namespace?: string }) => `${x.group || 'core'}/${x.resource}:${x.verb}${x.namespace ? ` in ${x.namespace}` : ''}`;

describe('RBAC matches the Kubernetes API calls each service makes', () => {
  describe.each(SERVICES.map((s) => [s]))('%s', (svc) => {
    const graph = runtimeGraph([serviceEntry(svc)]);
    const derived = deriveAccess(graph.files);
    const grants = grantsOf(svc);

    it('every client call is in the method table and every custom resource resolves', () => {
      expect(derived.unknown).toEqual([]);
      expect(derived.unresolved).toEqual([]);
    });

    it('is granted every (group, resource, verb) its code uses', () => {
      const missing = derived.needs.filter((n) => !grants.some((g) => covers(g, n)));
      expect(missing.map((n) => `${fmt(n)} (${n.source})`)).toEqual([]);
    });

    it('is granted nothing beyond them (not even a `get` beside a `list`), and no wildcard', () => {
      const extra = grants.filter((g) => !derived.needs.some((n) => covers(g, n) && (g.namespace === undefined || n.namespace === g.namespace)));
      expect(extra.map((g) => `${fmt(g)} (${g.from})`)).toEqual([]);
      expect(grants.filter((g) => [g.group, g.resource, g.verb].includes('*'))).toEqual([]);
    });

    it('mounts a service-account token only when it talks to the API server', () => {
      const sa = named(manifests, 'ServiceAccount', svc)!.doc;
      const pod = named(manifests, 'Deployment', svc)!.doc.spec.template.spec;
      const talks = derived.needs.length > 0;
      expect(sa.metadata.namespace).toBe(NS);
      expect(sa.automountServiceAccountToken).toBe(talks);
      expect(pod.automountServiceAccountToken).toBe(talks);
      if (!talks) expect(grants).toEqual([]);
    });
  });

  it('finds the calls it should (the derivation is not vacuous)', () => {
    const uncordon = deriveAccess(runtimeGraph([serviceEntry('uncordon')]).files).needs.map(fmt);
    expect(uncordon).toEqual(expect.arrayContaining(['core/nodes:patch', 'core/pods/eviction:create', 'core/events:create in default', 'core/nodes:watch']));
    const karpenter = deriveAccess(runtimeGraph([serviceEntry('karpenter-gateway')]).files).needs.map(fmt);
    expect(karpenter).toEqual(expect.arrayContaining(['karpenter.sh/nodepools:create', 'karpenter.sh/nodeclaims:delete']));
  });

  it('derives access from source text: client methods, custom objects through constants, paths; comments ignored', () => {
    const src = [
      "const G = 'example.com';",
      "const WIDGETS = { group: G, version: 'v1', plural: 'widgets' } as const;",
      'class A {',
      '  private readonly core: k8s.CoreV1Api;',
      '  constructor(kc: k8s.KubeConfig) { this.custom = kc.makeApiClient(k8s.CustomObjectsApi); }',
      "  a() { return this.core.patchNodeStatus({ name: 'n', body: {} }); }",
      "  b() { return this.custom.deleteClusterCustomObject({ ...WIDGETS, name: 'w' }); }",
      "  c() { return new Informer({ path: '/apis/apps/v1/deployments' }); }",
      "  // d() { this.core.deleteNode({ name: 'x' }); new Informer({ path: '/api/v1/secrets' }) }",
      "  e() { return this.core.connectPostNamespacedPodExec({ name: 'p', namespace: 'ns' }); }",
      '}',
    ].join('\n');
    const d = deriveAccess(new Map([['x.ts', src]]));
    expect(d.needs.map(fmt).sort()).toEqual(['apps/deployments:list', 'apps/deployments:watch', 'core/nodes/status:patch', 'example.com/widgets:delete'].sort());
    expect(d.unknown).toEqual(['x.ts: CoreV1Api.connectPostNamespacedPodExec']);
  });
});
