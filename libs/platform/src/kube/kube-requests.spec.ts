import { describe, expect, it } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { Informer } from './informer.js';
import { resourceOfPath, verbOf } from './kube-requests.js';

describe('the labels of nodes_manager_kube_requests_total', () => {
  it.each([
    ['a cluster-scoped collection', 'GET', '/api/v1/nodes?limit=500', 'list', 'nodes'],
    ['a watch', 'GET', '/api/v1/pods?watch=true&resourceVersion=12', 'watch', 'pods'],
    ['one object', 'GET', '/api/v1/nodes/n1', 'get', 'nodes'],
    ['a namespaced patch', 'PATCH', '/api/v1/namespaces/a/pods/p', 'patch', 'pods'],
    ['an eviction', 'POST', '/api/v1/namespaces/a/pods/p/eviction', 'create', 'pods/eviction'],
    ['a group resource', 'GET', '/apis/policy/v1/poddisruptionbudgets', 'list', 'poddisruptionbudgets'],
    ['a custom resource', 'DELETE', '/apis/karpenter.sh/v1/nodepools/general', 'delete', 'nodepools'],
  ])('%s: %s %s is %s %s', (_, method, path, verb, resource) => {
    expect(verbOf(method, path)).toBe(verb);
    expect(resourceOfPath(path)).toBe(resource);
  });
});

describe('the informer back-off', () => {
  const informer = (random: number) =>
    new Informer({ kc: new k8s.KubeConfig(), path: '/api/v1/nodes', project: (o) => o, backoff: { initialMs: 100, maxMs: 1000 }, random: () => random });
  const delays = (random: number) => [0, 1, 2, 3, 4, 10].map((n) => (informer(random) as unknown as { backoffMs(n: number): number }).backoffMs(n));

  it('doubles from the initial delay, jittered between half and one and a half times, and is capped', () => {
    expect(delays(0)).toEqual([50, 100, 200, 400, 500, 500]);
    expect(delays(0.5)).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(delays(0.999)).toEqual([150, 300, 600, 1000, 1000, 1000]);
  });
});
