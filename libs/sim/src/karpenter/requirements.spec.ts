import { describe, expect, it } from '@jest/globals';
import { requirementsDrifted, type NodeSelectorRequirement } from './requirements.js';

const CLAIM = {
  'karpenter.sh/nodepool': 'general',
  'node.kubernetes.io/instance-type': 'm5a.large',
  'topology.kubernetes.io/zone': 'us-east-1a',
  'karpenter.sh/capacity-type': 'spot',
  'karpenter.k8s.aws/instance-cpu': '2',
};
const POOL: NodeSelectorRequirement[] = [
  { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] },
  { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm5a.large'] },
  { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a', 'us-east-1b'] },
];
const req = (key: string, operator: NodeSelectorRequirement['operator'], ...values: string[]): NodeSelectorRequirement => ({ key, operator, ...(values.length ? { values } : {}) });
const without = (key: string): NodeSelectorRequirement[] => POOL.filter((r) => r.key !== key);

describe('requirementsDrifted (areRequirementsDrifted)', () => {
  it.each<[string, NodeSelectorRequirement[], boolean]>([
    ['the requirements the NodeClaim was launched under do not drift it', POOL, false],
    ['narrowing In to drop its instance type drifts it', [...without('node.kubernetes.io/instance-type'), req('node.kubernetes.io/instance-type', 'In', 'm5.large')], true],
    ['an added NotIn of its instance type drifts it, whatever its zone', [...POOL, req('node.kubernetes.io/instance-type', 'NotIn', 'm5a.large')], true],
    ['an added NotIn of another instance type does not', [...POOL, req('node.kubernetes.io/instance-type', 'NotIn', 'c5.large')], false],
    ['the on-demand fallback (capacity-type NotIn [spot]) drifts a Spot NodeClaim', [...POOL, req('karpenter.sh/capacity-type', 'NotIn', 'spot')], true],
    ['widening In (a new zone) drifts nothing', [...without('topology.kubernetes.io/zone'), req('topology.kubernetes.io/zone', 'In', 'us-east-1a', 'us-east-1b', 'us-east-1c')], false],
    ['removing a requirement drifts nothing', without('topology.kubernetes.io/zone'), false],
    ['an In on a label the NodeClaim lacks drifts it (undefined labels are denied)', [...POOL, req('team', 'In', 'payments')], true],
    ['an Exists on a label the NodeClaim lacks drifts it', [...POOL, req('team', 'Exists')], true],
    ['a NotIn on a label the NodeClaim lacks does not', [...POOL, req('team', 'NotIn', 'payments')], false],
    ['a DoesNotExist on a label the NodeClaim lacks does not', [...POOL, req('team', 'DoesNotExist')], false],
    ['a DoesNotExist on a label it carries drifts it', [...POOL, req('karpenter.k8s.aws/instance-cpu', 'DoesNotExist')], true],
    ['Gt 1 on its instance-cpu of 2 admits it', [...POOL, req('karpenter.k8s.aws/instance-cpu', 'Gt', '1')], false],
    ['Gt 2 on its instance-cpu of 2 drifts it (Gt is strict)', [...POOL, req('karpenter.k8s.aws/instance-cpu', 'Gt', '2')], true],
    ['Lt 4 on its instance-cpu of 2 admits it', [...POOL, req('karpenter.k8s.aws/instance-cpu', 'Lt', '4')], false],
    ['two requirements on one key are intersected: In [a, b] and NotIn [a] leaves only b', [...POOL, req('topology.kubernetes.io/zone', 'NotIn', 'us-east-1a')], true],
    ['a deprecated key is read as its stable one', [...POOL, req('beta.kubernetes.io/instance-type', 'NotIn', 'm5a.large')], true],
  ])('%s', (_, requirements, drifted) => {
    expect(requirementsDrifted(CLAIM, requirements).drifted).toBe(drifted);
  });

  it('says which key no longer admits the NodeClaim, with the reason Karpenter sets', () => {
    const r = requirementsDrifted(CLAIM, [...POOL, req('karpenter.sh/capacity-type', 'NotIn', 'spot')]);
    expect(r).toEqual({ drifted: true, reason: 'RequirementsDrifted', detail: expect.stringContaining('karpenter.sh/capacity-type') });
  });
});
