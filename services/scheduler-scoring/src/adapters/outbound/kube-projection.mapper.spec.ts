import { describe, expect, it } from '@jest/globals';
import { aKubeNode, aKubePdb, aKubePod, type KubePodOptions } from '@nodes-manager/kube/testing';
import { Interner } from '@nodes-manager/platform';
import { claimsOf, projectCachedPod, projectClaim, projectNode, projectPdb, projectPod, projectVolume } from './kube-projection.mapper.js';

const aNode = (name: string): any => aKubeNode(name);
const aPod = (name: string, node: string | undefined, o: KubePodOptions = {}): any => aKubePod(name, node, o);
const aPdb = (app: string, spec: { minAvailable?: number; maxUnavailable?: number }): any => aKubePdb(`${app}-pdb`, { app, ...spec });

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const withSpec = <T extends { spec: object }>(o: T, spec: object): T => ({ ...o, spec: { ...o.spec, ...spec } });

describe('projectNode', () => {
  it('reads zone, type, capacity type, pool, allocatable and readiness', () => {
    const n = projectNode(aKubeNode('n1', { zone: 'us-east-1c', instanceType: 'm5.2xlarge', cpu: '8', memory: '30Gi', capacityType: 'spot', nodePool: 'general' }));
    expect(n).toMatchObject({
      name: 'n1',
      zone: 'us-east-1c',
      instanceType: 'm5.2xlarge',
      capacityType: 'spot',
      nodePool: 'general',
      unschedulable: false,
      ready: true,
      allocatable: { cpuMilli: 7920, memoryBytes: 30 * GiB, gpu: 0, pods: 58 },
      requested: { cpuMilli: 0, memoryBytes: 0, gpu: 0, pods: 0 },
    });
  });

  it.each([
    ['a cordoned node is unschedulable', (o: any) => withSpec(o, { unschedulable: true }), { unschedulable: true, ready: true }],
    ['a node without a Ready condition is not ready', (o: any) => ({ ...o, status: { ...o.status, conditions: [] } }), { ready: false }],
    ['a NotReady node is not ready', (o: any) => ({ ...o, status: { ...o.status, conditions: [{ type: 'Ready', status: 'False' }] } }), { ready: false }],
    ['a node being deleted is not ready', (o: any) => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }), { ready: false }],
    [
      'GPU resources are summed and taints kept',
      (o: any) => ({
        ...withSpec(o, { taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }, { key: 'bad', effect: 'Nonsense' }] }),
        status: { ...o.status, allocatable: { ...o.status.allocatable, 'nvidia.com/gpu': '4', 'aws.amazon.com/neuron': '1' } },
      }),
      { allocatable: expect.objectContaining({ gpu: 5 }), taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] },
    ],
  ])('%s', (_, edit, expected) => {
    expect(projectNode(edit(aNode('n1')))).toMatchObject(expected);
  });
});

describe('projectPod', () => {
  it('reads requests, owner, workload (the Deployment behind the ReplicaSet), labels and node', () => {
    const p = projectPod(aPod('web-1', 'n1', { app: 'web', cpu: '250m', memory: '512Mi' }));
    expect(p).toMatchObject({
      namespace: 'default',
      name: 'web-1',
      nodeName: 'n1',
      phase: 'Running',
      requests: { cpuMilli: 250, memoryBytes: 512 * MiB, gpu: 0, pods: 1 },
      ownerKind: 'ReplicaSet',
      ownerName: 'web-6d4cf',
      workload: 'web',
      hasPvc: false,
      hasLocalStorage: false,
      mirror: false,
    });
  });

  it.each([
    ['a Pending pod has no node', aPod('job-1', undefined), { phase: 'Pending' }, ['nodeName']],
    ['a pod without a controller has no owner', aPod('naked', 'n1', { owner: 'none' }), { hasLocalStorage: false }, ['ownerKind', 'ownerName', 'workload']],
    ['an emptyDir is local storage', aPod('cache', 'n1', { emptyDir: true }), { hasLocalStorage: true }],
    [
      'a PVC marks the pod stateful-capable',
      withSpec(aPod('db-0', 'n1', { owner: { kind: 'StatefulSet', name: 'db' } }), { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data-db-0' } }] }),
      { hasPvc: true, ownerKind: 'StatefulSet', workload: 'db' },
    ],
    [
      'a mirror pod is marked',
      { ...aPod('kube-proxy-n1', 'n1', { owner: { kind: 'Node', name: 'n1' } }), metadata: { ...aPod('x', 'n1').metadata, annotations: { 'kubernetes.io/config.mirror': 'abc' } } },
      { mirror: true },
    ],
    [
      'nodeSelector, tolerations and required node affinity are kept',
      withSpec(aPod('w', 'n1'), {
        nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' },
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }] } } },
      }),
      {
        nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' },
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        requiredNodeAffinity: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] }],
      },
    ],
    [
      'a term with only matchFields keeps them as a requirement on the node name',
      withSpec(aPod('w', 'n1'), {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } },
      }),
      { requiredNodeAffinity: [{ matchExpressions: [], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
    ],
  ] as [string, object, object, string[]?][])('%s', (_, raw, expected, absent = []) => {
    const p = projectPod(raw);
    expect(p).toMatchObject(expected);
    for (const k of absent) expect(p).not.toHaveProperty(k);
  });
});

describe('projectPdb', () => {
  it.each([
    ['matchLabels and the allowed disruptions', { ...aPdb('web', { maxUnavailable: 1 }), status: { disruptionsAllowed: 2 } }, { name: 'web-pdb', namespace: 'default', selector: { app: 'web' }, disruptionsAllowed: 2 }],
    ['no status yet means no disruption allowed', aPdb('web', { maxUnavailable: 1 }), { selector: { app: 'web' }, disruptionsAllowed: 0 }],
    [
      'a single-value In expression is a label',
      { ...aPdb('web', {}), spec: { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] } }, status: { disruptionsAllowed: 1 } },
      { selector: { app: 'web' }, disruptionsAllowed: 1 },
    ],
    [
      'any other expression makes it block (budget 0), never allow more',
      { ...aPdb('web', {}), spec: { selector: { matchLabels: { tier: 'fe' }, matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['x'] }] } }, status: { disruptionsAllowed: 3 } },
      { selector: { tier: 'fe' }, disruptionsAllowed: 0 },
    ],
  ])('%s', (_, raw, expected) => {
    expect(projectPdb(raw)).toMatchObject(expected);
  });
});

describe('volumes', () => {
  const zoneIn = (...values: string[]) => ({ key: 'topology.kubernetes.io/zone', operator: 'In', values });
  const pv = (o: { terms?: object[][]; label?: string }) => ({
    metadata: { name: 'pv-1', ...(o.label ? { labels: { 'topology.kubernetes.io/zone': o.label } } : {}) },
    spec: o.terms ? { nodeAffinity: { required: { nodeSelectorTerms: o.terms.map((matchExpressions) => ({ matchExpressions })) } } } : {},
  });
  it.each([
    ['the zone an EBS volume’s node affinity requires', pv({ terms: [[zoneIn('us-east-1b')]], label: 'us-east-1b' }), ['us-east-1b']],
    ['the node affinity before the label', pv({ terms: [[zoneIn('us-east-1a')]], label: 'us-east-1c' }), ['us-east-1a']],
    ['the CSI driver’s own topology key', pv({ terms: [[{ key: 'topology.ebs.csi.aws.com/zone', operator: 'In', values: ['us-east-1c'] }]] }), ['us-east-1c']],
    ['every zone of a multi-zone volume', pv({ terms: [[zoneIn('us-east-1b', 'us-east-1a')]] }), ['us-east-1a', 'us-east-1b']],
    ['the zones of every term (any may match)', pv({ terms: [[zoneIn('us-east-1a')], [zoneIn('us-east-1c')]] }), ['us-east-1a', 'us-east-1c']],
    ['the label when the affinity names no zone', pv({ terms: [[{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }]], label: 'us-east-1a' }), ['us-east-1a']],
    ['the zones of a legacy multi-zone label', pv({ label: 'us-east-1b__us-east-1a' }), ['us-east-1a', 'us-east-1b']],
    ['nothing for a volume that names no zone', pv({ terms: [[{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }]] }), []],
    ['nothing for a volume without affinity or label', pv({}), []],
    ['nothing when a term without a zone lets any zone reach it', pv({ terms: [[zoneIn('us-east-1a')], [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }]] }), []],
  ])('a PersistentVolume projects to %s', (_, raw, zones) => {
    expect(projectVolume(raw)).toEqual(zones);
  });

  it.each([
    ['a bound claim keeps its volume', { spec: { volumeName: 'pvc-123' } }, { volumeName: 'pvc-123' }],
    ['an unbound claim has none', { spec: { volumeName: '' } }, {}],
    ['a claim without a spec has none', {}, {}],
  ])('%s', (_, raw, want) => {
    expect(projectClaim(raw)).toEqual(want);
  });

  it('names a pod’s claims, generic ephemeral volumes included, and keeps them only when there are any', () => {
    const pod = withSpec(aPod('db-0', 'n1'), { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } }, { name: 'scratch', ephemeral: {} }, { name: 'tmp', emptyDir: {} }] });
    expect(claimsOf(pod)).toEqual(['data-db-0', 'db-0-scratch']);
    expect(projectCachedPod(pod).pvcClaims).toEqual(['data-db-0', 'db-0-scratch']);
    expect(projectCachedPod(aPod('web-1', 'n1'))).not.toHaveProperty('pvcClaims');
  });
});

describe("scheduler-scoring's cache holds projections", () => {
  const UNREAD = 'unread-by-scheduler-scoring';

  it('keeps no field of a pod that scoring does not read', () => {
    const pod = aPod('web-1', 'n1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true', 'example.com/note': UNREAD }, qosClass: 'Burstable' });
    pod.metadata.managedFields = [{ manager: UNREAD, operation: 'Update', fieldsV1: {} }];
    pod.spec.containers[0].env = [{ name: 'TOKEN', value: UNREAD }];
    pod.spec.containers[0].image = UNREAD;
    pod.status = { ...pod.status, podIP: UNREAD, containerStatuses: [{ name: 'main', image: UNREAD, imageID: UNREAD, ready: true, restartCount: 0 }] };
    const cached = projectCachedPod(JSON.parse(JSON.stringify(pod)), new Interner());
    expect(JSON.stringify(cached)).not.toContain(UNREAD);
    expect(cached.annotations).toEqual({ 'karpenter.sh/do-not-disrupt': 'true' });
    expect(cached).not.toHaveProperty('limits'); // the API server stated the QoS class
    expect(cached.qos).toBe('Burstable');
  });

  it('keeps no field of a node that scoring does not read', () => {
    const node = aNode('n1');
    node.metadata.annotations = { 'example.com/note': UNREAD };
    node.metadata.managedFields = [{ manager: UNREAD, operation: 'Update', fieldsV1: {} }];
    node.status.images = [{ names: [UNREAD] }];
    node.status.nodeInfo = { machineID: UNREAD };
    expect(JSON.stringify(projectNode(JSON.parse(JSON.stringify(node)), new Interner()))).not.toContain(UNREAD);
  });

  it('shares the values pods repeat: label sets, tolerations, request shapes, namespaces', () => {
    const intern = new Interner();
    const [a, b] = ['web-1', 'web-2'].map((n) => projectCachedPod(JSON.parse(JSON.stringify(aPod(n, 'n1', { app: 'web' }))), intern));
    expect(b!.labels).toBe(a!.labels);
    expect(b!.tolerations).toBe(a!.tolerations);
    expect(b!.requests).toBe(a!.requests);
  });
});
