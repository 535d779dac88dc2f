import { describe, expect, it } from '@jest/globals';
import { ANONYMOUS, forbiddenMessage, RbacPolicy, requestAttributes, serviceAccountUser, type RequestAttributes } from './rbac.js';

const attrs = (method: string, path: string): Partial<RequestAttributes> => {
  const a = requestAttributes(method, new URL(path, 'http://api'));
  const out: Partial<RequestAttributes> = { verb: a.verb };
  for (const k of ['apiGroup', 'resource', 'subresource', 'namespace', 'name'] as const) if (a[k]) out[k] = a[k];
  if (!a.resourceRequest) out.resourceRequest = false;
  return out;
};

describe('requestAttributes derives the verb and resource as kube-apiserver does', () => {
  it.each([
    ['GET a collection is list', 'GET', '/api/v1/nodes', { verb: 'list', resource: 'nodes' }],
    ['GET with watch=true is watch', 'GET', '/api/v1/pods?watch=true&resourceVersion=5', { verb: 'watch', resource: 'pods' }],
    ['GET under /watch/ is watch', 'GET', '/api/v1/watch/namespaces/default/events', { verb: 'watch', resource: 'events', namespace: 'default' }],
    ['GET one object is get', 'GET', '/api/v1/nodes/ip-10-0-0-1', { verb: 'get', resource: 'nodes', name: 'ip-10-0-0-1' }],
    ['a list with metadata.name fixed is about that name', 'GET', '/api/v1/namespaces/default/events?fieldSelector=metadata.name%3Dx.1', { verb: 'list', resource: 'events', namespace: 'default', name: 'x.1' }],
    ['a list selecting on another field is not', 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1', { verb: 'list', resource: 'pods' }],
    ['POST is create', 'POST', '/apis/karpenter.sh/v1/nodepools', { verb: 'create', apiGroup: 'karpenter.sh', resource: 'nodepools' }],
    ['PUT is update', 'PUT', '/apis/karpenter.sh/v1/nodepools/general', { verb: 'update', apiGroup: 'karpenter.sh', resource: 'nodepools', name: 'general' }],
    ['PATCH is patch', 'PATCH', '/api/v1/nodes/n1', { verb: 'patch', resource: 'nodes', name: 'n1' }],
    ['PATCH of status is patch on nodes/status', 'PATCH', '/api/v1/nodes/n1/status', { verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n1' }],
    ['DELETE one is delete', 'DELETE', '/api/v1/namespaces/web/pods/p1', { verb: 'delete', resource: 'pods', namespace: 'web', name: 'p1' }],
    ['DELETE of a collection is deletecollection', 'DELETE', '/api/v1/namespaces/web/pods', { verb: 'deletecollection', resource: 'pods', namespace: 'web' }],
    ['an eviction is create on pods/eviction', 'POST', '/api/v1/namespaces/web/pods/p1/eviction', { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'web', name: 'p1' }],
    ["the kubelet's Summary API through the node proxy is get on nodes/proxy", 'GET', '/api/v1/nodes/n1/proxy/stats/summary', { verb: 'get', resource: 'nodes', subresource: 'proxy', name: 'n1' }],
    ['a namespaced lease', 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1', { verb: 'get', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'n1' }],
    ["a namespace's status is the namespaces resource, in that namespace", 'GET', '/api/v1/namespaces/web/status', { verb: 'get', resource: 'namespaces', subresource: 'status', namespace: 'web', name: 'web' }],
    ['a namespace itself is in its own namespace', 'DELETE', '/api/v1/namespaces/web', { verb: 'delete', resource: 'namespaces', namespace: 'web', name: 'web' }],
    ['discovery is a non-resource request', 'GET', '/apis/karpenter.sh/v1', { verb: 'get', resourceRequest: false }],
    ['the version is a non-resource request', 'GET', '/version', { verb: 'get', resourceRequest: false }],
  ] as const)('%s', (_, method, path, expected) => {
    expect(attrs(method, path)).toEqual(expected);
  });
});

const SA = serviceAccountUser('nodes-manager', 'uncordon');
const clusterRole = (name: string, rules: object[]) => ({ kind: 'ClusterRole', metadata: { name }, rules });
const role = (ns: string, name: string, rules: object[]) => ({ kind: 'Role', metadata: { name, namespace: ns }, rules });
const subject = { kind: 'ServiceAccount', name: 'uncordon', namespace: 'nodes-manager' };
const crb = (name: string, roleName: string, subjects: object[] = [subject]) => ({ kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { kind: 'ClusterRole', name: roleName }, subjects });
const rb = (ns: string, name: string, roleRef: { kind: string; name: string }) => ({ kind: 'RoleBinding', metadata: { name, namespace: ns }, roleRef, subjects: [subject] });

const POLICY = new RbacPolicy([
  clusterRole('nodes', [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'patch'] }, { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] }]),
  crb('nodes', 'nodes'),
  role('default', 'events', [{ apiGroups: [''], resources: ['events'], verbs: ['create'] }]),
  rb('default', 'events', { kind: 'Role', name: 'events' }),
  clusterRole('one-pool', [{ apiGroups: ['karpenter.sh'], resources: ['nodepools'], verbs: ['get', 'patch'], resourceNames: ['general'] }]),
  crb('one-pool', 'one-pool'),
  clusterRole('any-scale', [{ apiGroups: ['*'], resources: ['*/scale'], verbs: ['*'] }]),
  rb('web', 'any-scale', { kind: 'ClusterRole', name: 'any-scale' }),
  clusterRole('someone-else', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]),
  crb('someone-else', 'someone-else', [{ kind: 'ServiceAccount', name: 'other', namespace: 'nodes-manager' }]),
  clusterRole('metrics', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]),
  crb('metrics', 'metrics', [{ kind: 'Group', name: 'system:serviceaccounts:nodes-manager' }]),
]);

const allowed = (method: string, path: string, user = SA) => POLICY.authorize(user, requestAttributes(method, new URL(path, 'http://api'))).allowed;

describe('RbacPolicy authorizes as the RBAC authorizer does', () => {
  it.each([
    ['a granted verb on a granted resource', 'PATCH', '/api/v1/nodes/n1', true],
    ['a verb the rule does not list', 'DELETE', '/api/v1/nodes/n1', false],
    ['a subresource the rule does not name (nodes/status is not nodes)', 'PATCH', '/api/v1/nodes/n1/status', false],
    ['the subresource the rule names', 'POST', '/api/v1/namespaces/web/pods/p1/eviction', true],
    ['the resource of a subresource rule (pods is not pods/eviction)', 'DELETE', '/api/v1/namespaces/web/pods/p1', false],
    ["a Role's grant in its namespace", 'POST', '/api/v1/namespaces/default/events', true],
    ["a Role's grant in another namespace", 'POST', '/api/v1/namespaces/web/events', false],
    ["a Role's grant across all namespaces", 'POST', '/api/v1/events', false],
    ['a resourceNames rule on its name', 'PATCH', '/apis/karpenter.sh/v1/nodepools/general', true],
    ['a resourceNames rule on another name', 'PATCH', '/apis/karpenter.sh/v1/nodepools/batch', false],
    ['a resourceNames rule on a list (no name)', 'GET', '/apis/karpenter.sh/v1/nodepools', false],
    ['a */scale rule bound in its namespace', 'PUT', '/apis/apps/v1/namespaces/web/deployments/api/scale', true],
    ['a */scale rule on the resource itself', 'PUT', '/apis/apps/v1/namespaces/web/deployments/api', false],
    ['a ClusterRole bound by a RoleBinding, outside that namespace', 'PUT', '/apis/apps/v1/namespaces/db/deployments/pg/scale', false],
    ["another ServiceAccount's grant", 'GET', '/api/v1/namespaces/default/secrets/s', false],
    ['a non-resource URL granted to a group it is in', 'GET', '/metrics', true],
    ['discovery, to any authenticated user', 'GET', '/apis/karpenter.sh/v1', true],
    ['a path nothing grants', 'GET', '/logs/', false],
  ] as const)('%s → %s', (_, method, path, expected) => {
    expect(allowed(method, path)).toBe(expected);
  });

  it('an anonymous request may read health, not discovery; system:masters may do anything', () => {
    expect(allowed('GET', '/healthz', ANONYMOUS)).toBe(true);
    expect(allowed('GET', '/api/v1', ANONYMOUS)).toBe(false);
    expect(allowed('DELETE', '/api/v1/nodes/n1', { name: 'admin', groups: ['system:masters'] })).toBe(true);
  });

  it('names every grant that allows a request, each with its role, rule and binding', () => {
    const d = POLICY.authorize(SA, requestAttributes('POST', new URL('http://api/api/v1/namespaces/default/events')));
    expect(d.grants).toEqual([{ role: 'Role/default/events', binding: 'RoleBinding/default/events', rule: 0, namespace: 'default', apiGroup: '', resource: 'events', verb: 'create' }]);
    expect(POLICY.grants(SA).filter((g) => g.role === 'ClusterRole/nodes').map((g) => `${g.rule} ${g.resource}:${g.verb}`)).toEqual(['0 nodes:get', '0 nodes:list', '0 nodes:watch', '0 nodes:patch', '1 pods/eviction:create']);
  });

  it('a binding to a missing role grants nothing; an aggregated role is refused', () => {
    expect(new RbacPolicy([crb('x', 'absent')]).grants(SA)).toEqual([]);
    expect(() => new RbacPolicy([{ kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [] } }])).toThrow(/aggregated/);
  });
});

describe('forbiddenMessage reads like the API server', () => {
  it.each([
    ['PATCH', '/api/v1/nodes/n1', 'nodes "n1" is forbidden: User "system:serviceaccount:nodes-manager:uncordon" cannot patch resource "nodes" in API group "" at the cluster scope'],
    ['POST', '/api/v1/namespaces/web/pods/p1/eviction', 'pods "p1" is forbidden: User "system:serviceaccount:nodes-manager:uncordon" cannot create resource "pods/eviction" in API group "" in the namespace "web"'],
    ['GET', '/apis/karpenter.sh/v1/nodeclaims', 'nodeclaims.karpenter.sh is forbidden: User "system:serviceaccount:nodes-manager:uncordon" cannot list resource "nodeclaims" in API group "karpenter.sh" at the cluster scope'],
    ['GET', '/logs/', 'forbidden: User "system:serviceaccount:nodes-manager:uncordon" cannot get path "/logs/"'],
  ])('%s %s', (method, path, message) => {
    expect(forbiddenMessage(SA, requestAttributes(method, new URL(path, 'http://api')))).toBe(message);
  });
});
