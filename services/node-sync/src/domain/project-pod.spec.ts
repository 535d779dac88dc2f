import { describe, expect, it } from '@jest/globals';
import type { V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { aContainer, aKubePod } from '@nodes-manager/kube/testing';
import { projectPod, type PodRow } from './project-pod.js';

type PodOverrides = { metadata?: Partial<NonNullable<V1Pod['metadata']>>; spec?: Partial<V1PodSpec>; status?: V1Pod['status'] };
/** aV1Pod — a running pod of Deployment `web` (ReplicaSet web-5d8f9c7b6) requesting 250m / 256Mi; overrides merged per section. */
const aV1Pod = (o: PodOverrides = {}): V1Pod => {
  const pod = aKubePod('web-5d8f9c7b6-x2k4p', 'ip-10-0-1-23.ec2.internal', {
    namespace: 'shop',
    uid: 'pod-uid-1',
    cpu: '250m',
    memory: '256Mi',
    owner: { kind: 'ReplicaSet', name: 'web-5d8f9c7b6' },
    labels: { app: 'web', 'pod-template-hash': '5d8f9c7b6' },
    creationTimestamp: new Date('2026-03-01T09:00:00Z'),
  });
  return { ...pod, metadata: { ...pod.metadata, ...o.metadata }, spec: { ...pod.spec!, ...o.spec }, status: o.status ?? pod.status };
};

describe('projectPod', () => {
  it('keeps only what nodes-manager needs of a Deployment pod', () => {
    expect(projectPod(aV1Pod())).toEqual({
      uid: 'pod-uid-1',
      namespace: 'shop',
      name: 'web-5d8f9c7b6-x2k4p',
      nodeName: 'ip-10-0-1-23.ec2.internal',
      phase: 'Running',
      ownerKind: 'ReplicaSet',
      ownerName: 'web-5d8f9c7b6',
      workloadKind: 'Deployment',
      workloadName: 'web',
      requests: { cpuMilli: 250, memoryBytes: 256 * 2 ** 20, gpu: 0 },
      qos: 'Burstable',
      gpu: 0,
      hasPvc: false,
      hasLocalStorage: false,
      mirror: false,
      daemonset: false,
      doNotDisrupt: false,
      safeToEvict: null,
      terminating: false,
      priority: null,
      labels: { app: 'web', 'pod-template-hash': '5d8f9c7b6' },
      annotations: {},
      createdAt: '2026-03-01T09:00:00.000Z',
    });
  });

  const ownedBy = (kind: string, name: string): V1Pod =>
    aV1Pod({ metadata: { labels: {}, ownerReferences: [{ apiVersion: 'v1', kind, name, uid: 'o', controller: true }] } });
  const withContainers = (containers: V1Container[], extra: Partial<V1PodSpec> = {}) =>
    aV1Pod({ spec: { containers, ...extra } });

  it.each<[string, V1Pod, Partial<PodRow>]>([
    ['a StatefulSet pod keeps its owner', ownedBy('StatefulSet', 'db'), { ownerKind: 'StatefulSet', workloadKind: 'StatefulSet', workloadName: 'db' }],
    ['a ReplicaSet without a matching hash stays a ReplicaSet', ownedBy('ReplicaSet', 'legacy-rs'), { workloadKind: 'ReplicaSet', workloadName: 'legacy-rs' }],
    ['a DaemonSet pod is flagged', ownedBy('DaemonSet', 'aws-node'), { daemonset: true, ownerKind: 'DaemonSet' }],
    ['a non-controller owner is not the owner', aV1Pod({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'c' }] } }), { ownerKind: null, ownerName: null }],
    ['a naked pod has no owner', aV1Pod({ metadata: { ownerReferences: [] } }), { ownerKind: null, workloadKind: null }],
    ['a mirror pod is flagged and its annotation kept', aV1Pod({ metadata: { annotations: { 'kubernetes.io/config.mirror': 'abc', other: 'x' } } }), { mirror: true, annotations: { 'kubernetes.io/config.mirror': 'abc' } }],
    ['do-not-disrupt is read', aV1Pod({ metadata: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } }), { doNotDisrupt: true }],
    ['safe-to-evict false is read', aV1Pod({ metadata: { annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' } } }), { safeToEvict: false }],
    ['safe-to-evict true is read', aV1Pod({ metadata: { annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'true' } } }), { safeToEvict: true }],
    ['a PVC volume is seen', aV1Pod({ spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-0' } }] } }), { hasPvc: true, hasLocalStorage: false }],
    ['a generic ephemeral volume counts as a PVC', aV1Pod({ spec: { volumes: [{ name: 'scratch', ephemeral: {} }] } }), { hasPvc: true }],
    ['an emptyDir is local storage', aV1Pod({ spec: { volumes: [{ name: 'tmp', emptyDir: {} }] } }), { hasLocalStorage: true }],
    ['a terminating pod is flagged', aV1Pod({ metadata: { deletionTimestamp: new Date('2026-03-01T10:00:00Z') } }), { terminating: true }],
    ['an unscheduled pod has no node', aV1Pod({ spec: { nodeName: undefined }, status: { phase: 'Pending' } }), { nodeName: null, phase: 'Pending' }],
    ['requests add up across containers', withContainers([aContainer({ cpu: '100m', memory: '64Mi' }), aContainer({ cpu: '0.4', memory: '1Gi' }, undefined, { name: 'b' })]), { requests: { cpuMilli: 500, memoryBytes: 64 * 2 ** 20 + 2 ** 30, gpu: 0 } }],
    ['a bigger init container sets the request', withContainers([aContainer({ cpu: '100m' })], { initContainers: [aContainer({ cpu: '2' }, undefined, { name: 'init' })] }), { requests: { cpuMilli: 2000, memoryBytes: 0, gpu: 0 } }],
    ['a sidecar init container adds to the containers', withContainers([aContainer({ cpu: '100m' })], { initContainers: [aContainer({ cpu: '50m' }, undefined, { name: 'proxy', restartPolicy: 'Always' })] }), { requests: { cpuMilli: 150, memoryBytes: 0, gpu: 0 } }],
    ['pod overhead is added', withContainers([aContainer({ cpu: '100m' })], { overhead: { cpu: '10m' } }), { requests: { cpuMilli: 110, memoryBytes: 0, gpu: 0 } }],
    ['limits stand in for missing requests', withContainers([aContainer(undefined, { cpu: '1', memory: '1Gi' })]), { requests: { cpuMilli: 1000, memoryBytes: 2 ** 30, gpu: 0 } }],
    ['GPUs are counted from any accelerator', withContainers([aContainer({ cpu: '1', 'nvidia.com/gpu': '2' }), aContainer({ 'aws.amazon.com/neuron': '1' }, undefined, { name: 'n' })]), { gpu: 3 }],
  ])('%s', (_sentence, pod, expected) => {
    expect(projectPod(pod)).toMatchObject(expected);
  });

  it.each<[string, V1Pod, PodRow['qos']]>([
    ['the API server’s qosClass wins', aV1Pod({ status: { phase: 'Running', qosClass: 'BestEffort' } }), 'BestEffort'],
    ['no cpu or memory anywhere is BestEffort', withContainers([aContainer()]), 'BestEffort'],
    ['limits equal to requests is Guaranteed', withContainers([aContainer({ cpu: '1', memory: '1Gi' }, { cpu: '1000m', memory: '1024Mi' })]), 'Guaranteed'],
    ['limits alone are Guaranteed (requests default to them)', withContainers([aContainer(undefined, { cpu: '1', memory: '1Gi' })]), 'Guaranteed'],
    ['requests below limits are Burstable', withContainers([aContainer({ cpu: '500m', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })]), 'Burstable'],
    ['one container without limits makes it Burstable', withContainers([aContainer({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }), aContainer({ cpu: '1' }, undefined, { name: 'b' })]), 'Burstable'],
  ])('QoS: %s', (_sentence, pod, qos) => {
    expect(projectPod(pod).qos).toBe(qos);
  });
});
