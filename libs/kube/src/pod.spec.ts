import { describe, expect, it } from '@jest/globals';
import { aContainer, aKubePod } from './testing/builders.js';
import { controllerOf, podFacts, podQos, workloadOf } from './pod.js';
import { tolerates, type Taint, type Toleration } from './taints.js';

describe('owners', () => {
  it.each([
    ["a ReplicaSet named <deployment>-<hash> is its Deployment's", aKubePod('web-1', 'n1'), { kind: 'Deployment', name: 'web' }],
    ['a ReplicaSet whose name does not end in the hash stays a ReplicaSet', aKubePod('web-1', 'n1', { owner: { kind: 'ReplicaSet', name: 'other' } }), { kind: 'ReplicaSet', name: 'other' }],
    ['a StatefulSet is itself', aKubePod('db-0', 'n1', { owner: { kind: 'StatefulSet', name: 'db' } }), { kind: 'StatefulSet', name: 'db' }],
    ['a bare pod has no workload', aKubePod('solo', 'n1', { owner: 'none' }), undefined],
  ])('%s', (_, pod, expected) => {
    expect(workloadOf(controllerOf(pod), pod.metadata!.labels ?? {})).toEqual(expected);
  });
  it('a mirror pod is owned by its Node', () => {
    const f = podFacts(aKubePod('kube-proxy-n1', 'n1', { owner: 'mirror' }));
    expect(f.mirror).toBe(true);
    expect(f.owner).toEqual({ kind: 'Node', name: 'n1' });
  });
  it('a DaemonSet pod is marked', () => {
    expect(podFacts(aKubePod('agent-1', 'n1', { owner: { kind: 'DaemonSet', name: 'agent' } })).daemonset).toBe(true);
  });
});

describe('podQos', () => {
  it.each([
    ['no requests or limits is BestEffort', [aContainer()], 'BestEffort'],
    ['requests only is Burstable', [aContainer({ cpu: '100m' })], 'Burstable'],
    ['limits equal to requests for cpu and memory is Guaranteed', [aContainer({ cpu: '1', memory: '1Gi' }, { cpu: '1000m', memory: '1024Mi' })], 'Guaranteed'],
    ['limits only (requests default to them) is Guaranteed', [aContainer(undefined, { cpu: '1', memory: '1Gi' })], 'Guaranteed'],
    ['a memory limit above the request is Burstable', [aContainer({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '2Gi' })], 'Burstable'],
  ])('%s', (_, containers, qos) => {
    expect(podQos(aKubePod('p', 'n1', { containers }))).toBe(qos);
  });
  it("the API server's status.qosClass wins", () => {
    expect(podQos(aKubePod('p', 'n1', { qosClass: 'Guaranteed' }))).toBe('Guaranteed');
  });
});

describe('podFacts', () => {
  it('reads requests, volumes and state of a builder pod', () => {
    const f = podFacts(aKubePod('web-1', 'n1', { emptyDir: true, volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-1' } }], priority: 100 }));
    expect(f).toMatchObject({
      namespace: 'default', name: 'web-1', nodeName: 'n1', phase: 'Running', requests: { cpuMilli: 100, memoryBytes: 128 * 2 ** 20, gpu: 0 },
      hasPvc: true, hasEmptyDir: true, hasHostPath: false, priority: 100, terminating: false,
    });
  });
  it('a pod being deleted is terminating', () => {
    expect(podFacts(aKubePod('p', 'n1', { deletionTimestamp: new Date('2026-01-02T00:00:00Z') })).terminating).toBe(true);
  });
});

describe('tolerates (Toleration.ToleratesTaint)', () => {
  const taint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
  it.each<[string, Toleration, boolean]>([
    ['Equal with the same key and value tolerates', { key: 'dedicated', operator: 'Equal', value: 'gpu' }, true],
    ['the default operator is Equal', { key: 'dedicated', value: 'gpu' }, true],
    ['Equal with another value does not', { key: 'dedicated', operator: 'Equal', value: 'cpu' }, false],
    ['Exists with the same key tolerates any value', { key: 'dedicated', operator: 'Exists' }, true],
    ['an empty key with Exists tolerates everything', { operator: 'Exists' }, true],
    ['an empty key with Equal tolerates nothing', { value: 'gpu' }, false],
    ['another effect does not tolerate', { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, false],
  ])('%s', (_, toleration, expected) => {
    expect(tolerates(toleration, taint)).toBe(expected);
  });
});
