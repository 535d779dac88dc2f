import { describe, expect, it } from '@jest/globals';
import { aNodePool, withRequirement } from '../../test/nodepool.builder.js';
import { applyNodePoolPatch, validateNodePool, validateNodePoolPatch } from './validate-nodepool.js';

const req = (operator: string, values?: string[], key = 'karpenter.k8s.aws/instance-cpu') => withRequirement({ key, operator, ...(values ? { values } : {}) });
const budgets = (...b: object[]) => aNodePool({ spec: { disruption: { budgets: b } } });
const fields = (errs: { field: string; message: string }[]) => errs.map((e) => `${e.field}: ${e.message}`);

describe('validateNodePool', () => {
  it('accepts a complete valid NodePool', () => {
    expect(validateNodePool(aNodePool())).toEqual([]);
  });

  it.each([
    ['In with values', req('In', ['4', '8'])],
    ['NotIn with values', req('NotIn', ['2'])],
    ['Exists without values', req('Exists')],
    ['DoesNotExist with an empty list', req('DoesNotExist', [])],
    ['Gt with one integer', req('Gt', ['2'])],
    ['Lt with one integer', req('Lt', ['64'])],
    ['Gte with one integer', req('Gte', ['0'])],
    ['Lte with one integer', req('Lte', ['16'])],
    ['In with minValues met', withRequirement({ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'm6i.large'], minValues: 2 })],
    ['consolidateAfter 30s', aNodePool({ spec: { disruption: { consolidateAfter: '30s' } } })],
    ['consolidateAfter 1h30m', aNodePool({ spec: { disruption: { consolidateAfter: '1h30m' } } })],
    ['consolidateAfter Never', aNodePool({ spec: { disruption: { consolidateAfter: 'Never' } } })],
    ['policy WhenEmpty', aNodePool({ spec: { disruption: { consolidationPolicy: 'WhenEmpty' } } })],
    ['a count budget', budgets({ nodes: '5' })],
    ['a 100% budget', budgets({ nodes: '100%' })],
    ['a scheduled budget with reasons', budgets({ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Underutilized', 'Empty'] })],
    ['a macro schedule', budgets({ nodes: '0', schedule: '@daily', duration: '1h30m' })],
    ['weight 1', aNodePool({ spec: { weight: 1 } })],
    ['weight 100', aNodePool({ spec: { weight: 100 } })],
    ['no weight at all', aNodePool({ spec: { weight: null } })],
    ['numeric and binary-suffixed limits', aNodePool({ spec: { limits: { cpu: 500, memory: '64Gi', 'nvidia.com/gpu': '8' } } })],
    ['millicore limits', aNodePool({ spec: { limits: { cpu: '1500m' } } })],
  ])('accepts %s', (_what, pool) => {
    expect(validateNodePool(pool)).toEqual([]);
  });

  it.each([
    ['an unknown operator', req('Equals', ['4']), 'spec.template.spec.requirements[0].operator: must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte'],
    ['In without values', req('In', []), 'spec.template.spec.requirements[0].values: operator In needs at least one value'],
    ['NotIn without values', req('NotIn'), 'spec.template.spec.requirements[0].values: operator NotIn needs at least one value'],
    ['Exists with values', req('Exists', ['x']), 'spec.template.spec.requirements[0].values: operator Exists takes no values'],
    ['DoesNotExist with values', req('DoesNotExist', ['x']), 'spec.template.spec.requirements[0].values: operator DoesNotExist takes no values'],
    ['Gt with two values', req('Gt', ['1', '2']), 'spec.template.spec.requirements[0].values: operator Gt needs exactly one value'],
    ['Lt with a non-integer', req('Lt', ['abc']), 'spec.template.spec.requirements[0].values[0]: operator Lt needs a non-negative integer'],
    ['Gte with a negative', req('Gte', ['-1']), 'spec.template.spec.requirements[0].values[0]: operator Gte needs a non-negative integer'],
    ['Lte without values', req('Lte'), 'spec.template.spec.requirements[0].values: operator Lte needs exactly one value'],
    ['a restricted key', req('Exists', undefined, 'kubernetes.io/hostname'), 'spec.template.spec.requirements[0].key: label "kubernetes.io/hostname" is restricted'],
    ['minValues above the values', withRequirement({ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'], minValues: 2 }), 'spec.template.spec.requirements[0].minValues: needs at least 2 values'],
    ['a bad consolidation policy', aNodePool({ spec: { disruption: { consolidationPolicy: 'Always' } } }), 'spec.disruption.consolidationPolicy: must be one of WhenEmpty, WhenEmptyOrUnderutilized'],
    ['consolidateAfter 5 minutes', aNodePool({ spec: { disruption: { consolidateAfter: '5 minutes' } } }), 'spec.disruption.consolidateAfter: must be a duration like 30s, 5m or 1h30m, or Never'],
    ['consolidateAfter 1d', aNodePool({ spec: { disruption: { consolidateAfter: '1d' } } }), 'spec.disruption.consolidateAfter: must be a duration like 30s, 5m or 1h30m, or Never'],
    ['consolidateAfter 30m1h (units out of order)', aNodePool({ spec: { disruption: { consolidateAfter: '30m1h' } } }), 'spec.disruption.consolidateAfter: must be a duration like 30s, 5m or 1h30m, or Never'],
    ['budget nodes as words', budgets({ nodes: 'ten' }), 'spec.disruption.budgets[0].nodes: must be a count or a percentage (e.g. "5" or "10%", as a string)'],
    ['budget nodes above 100%', budgets({ nodes: '150%' }), 'spec.disruption.budgets[0].nodes: must be a count or a percentage (e.g. "5" or "10%", as a string)'],
    ['a schedule without duration', budgets({ nodes: '0', schedule: '@daily' }), 'spec.disruption.budgets[0].duration: schedule and duration must be set together'],
    ['a duration without schedule', budgets({ nodes: '0', duration: '1h' }), 'spec.disruption.budgets[0].schedule: schedule and duration must be set together'],
    ['a four-field cron', budgets({ nodes: '0', schedule: '0 9 * *', duration: '1h' }), 'spec.disruption.budgets[0].schedule: must be a cron expression: expected 5 fields (minute hour day-of-month month day-of-week), got 4'],
    ['an hour of 24', budgets({ nodes: '0', schedule: '0 24 * * *', duration: '1h' }), 'spec.disruption.budgets[0].schedule: must be a cron expression: hour: 24 is outside 0-23'],
    ['a budget duration in seconds', budgets({ nodes: '0', schedule: '@daily', duration: '30s' }), 'spec.disruption.budgets[0].duration: must be hours and/or minutes like 1h, 30m or 1h30m'],
    ['an unknown reason', budgets({ nodes: '1', reasons: ['Expired'] }), 'spec.disruption.budgets[0].reasons[0]: must be one of Underutilized, Empty, Drifted'],
    ['weight 0', aNodePool({ spec: { weight: 0 } }), 'spec.weight: must be an integer from 1 to 100'],
    ['weight 101', aNodePool({ spec: { weight: 101 } }), 'spec.weight: must be an integer from 1 to 100'],
    ['weight 1.5', aNodePool({ spec: { weight: 1.5 } }), 'spec.weight: must be an integer from 1 to 100'],
    ['a limit that is not a quantity', aNodePool({ spec: { limits: { cpu: 'lots' } } }), 'spec.limits.cpu: must be a Kubernetes quantity (e.g. 1000, 500m, 64Gi)'],
    ['a negative limit', aNodePool({ spec: { limits: { memory: '-1Gi' } } }), 'spec.limits.memory: must be a Kubernetes quantity (e.g. 1000, 500m, 64Gi)'],
    ['no nodeClassRef', aNodePool({ spec: { template: { spec: { nodeClassRef: null } } } }), 'spec.template.spec.nodeClassRef: is required (group, kind and name of the node class)'],
    ['a nodeClassRef without name', aNodePool({ spec: { template: { spec: { nodeClassRef: { name: null } } } } }), 'spec.template.spec.nodeClassRef.name: is required (a non-empty string)'],
    ['no requirements', aNodePool({ spec: { template: { spec: { requirements: null } } } }), 'spec.template.spec.requirements: is required (a list)'],
    ['an unknown spec field', aNodePool({ spec: { replicas: 3 } }), 'spec.replicas: unknown field (allowed: template, disruption, limits, weight)'],
    ['a bad expireAfter', aNodePool({ spec: { template: { spec: { expireAfter: '30 days' } } } }), 'spec.template.spec.expireAfter: must be a duration like 720h or 1h30m, or Never'],
    ['a taint with a bad effect', aNodePool({ spec: { template: { spec: { taints: [{ key: 'gpu', effect: 'NoRun' }] } } } }), 'spec.template.spec.taints[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute'],
    ['a bad name', aNodePool({ metadata: { name: 'Bad_Name' } }), 'metadata.name: must be a DNS-1123 name (lower-case letters, digits, - and ., at most 253 characters)'],
    ['a status', aNodePool({ status: { resources: {} } }), 'status: is set by Karpenter and cannot be written'],
    ['another kind', aNodePool({ kind: 'NodeClaim' }), 'kind: must be NodePool'],
  ])('refuses %s, naming the field', (_what, pool, message) => {
    expect(fields(validateNodePool(pool))).toContain(message);
  });

  it('reports every problem at once', () => {
    const errs = validateNodePool(aNodePool({ spec: { weight: 0, disruption: { consolidateAfter: 'soon' } } }));
    expect(errs.map((e) => e.field).sort()).toEqual(['spec.disruption.consolidateAfter', 'spec.weight']);
  });

  it.each([['not an object', 'nodePool'], ['no spec', 'spec']])('refuses %s', (what, field) => {
    const input = what === 'not an object' ? 'yaml please' : { metadata: { name: 'x' } };
    expect(validateNodePool(input).map((e) => e.field)).toContain(field);
  });
});

describe('validateNodePoolPatch', () => {
  it.each([
    ['limits only', { spec: { limits: { cpu: '200' } } }],
    ['disruption only', { spec: { disruption: { budgets: [{ nodes: '1' }] } } }],
    ['both', { spec: { limits: { cpu: '2' }, disruption: { consolidateAfter: '5m' } } }],
    ['removing the limits', { spec: { limits: null } }],
  ])('accepts %s', (_what, body) => {
    expect(validateNodePoolPatch(body)).toEqual({ patch: body, errors: [] });
  });

  it.each([
    ['spec.template', { spec: { template: { spec: { expireAfter: '1h' } } } }, 'spec.template: cannot be changed: only spec.limits and spec.disruption may be patched'],
    ['spec.weight', { spec: { weight: 5 } }, 'spec.weight: cannot be changed: only spec.limits and spec.disruption may be patched'],
    ['metadata', { metadata: { labels: { a: 'b' } }, spec: { limits: {} } }, 'metadata: cannot be changed: only spec.limits and spec.disruption may be patched'],
    ['a bare limits (the other shape)', { limits: { cpu: '1' } }, 'limits: cannot be changed: only spec.limits and spec.disruption may be patched; send {"spec":{"limits":…}}'],
    ['an empty spec', { spec: {} }, 'spec: must change spec.limits or spec.disruption'],
    ['limits as a string', { spec: { limits: '100' } }, 'spec.limits: must be an object (or null to remove it)'],
  ])('refuses %s, naming the field', (_what, body, message) => {
    const { patch, errors } = validateNodePoolPatch(body);
    expect(patch).toBeUndefined();
    expect(fields(errors)).toContain(message);
  });
});

describe('applyNodePoolPatch', () => {
  it('merges limits key by key and replaces the budgets list', () => {
    const { next, errors } = applyNodePoolPatch(aNodePool(), { spec: { limits: { cpu: '64' }, disruption: { budgets: [{ nodes: '2' }] } } });
    expect(errors).toEqual([]);
    expect(next.spec.limits).toEqual({ cpu: '64', memory: '1000Gi' });
    expect(next.spec.disruption).toEqual({ consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '1m', budgets: [{ nodes: '2' }] });
  });

  it('checks the merged result and names the field', () => {
    const { errors } = applyNodePoolPatch(aNodePool(), { spec: { disruption: { budgets: [{ nodes: 'half' }] } } });
    expect(fields(errors)).toEqual(['spec.disruption.budgets[0].nodes: must be a count or a percentage (e.g. "5" or "10%", as a string)']);
  });

  it('does not refuse a limits change for problems elsewhere in a pool written by someone else', () => {
    const odd = aNodePool({ spec: { weight: 0 } });
    expect(applyNodePoolPatch(odd, { spec: { limits: { cpu: '8' } } }).errors).toEqual([]);
  });
});
