import { describe, expect, it } from '@jest/globals';
import { tolerationOf } from './taints.js';

describe('tolerationOf', () => {
  it.each([
    ['every field', { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, '{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}'],
    ['Exists with no key (tolerates every taint)', { operator: 'Exists' }, '{"operator":"Exists"}'],
    ['an unknown operator and effect are dropped', { key: 'k', operator: 'Gt', value: 1, effect: 'NoWhere' }, '{"key":"k","value":"1"}'],
    ['an empty key and a null value are left out', { key: '', value: null, effect: 'NoExecute' }, '{"effect":"NoExecute"}'],
    ['nothing at all', undefined, '{}'],
  ])('%s', (_, raw, json) => {
    // The JSON, field order included: pod rows carry it, and their content hash is taken over it.
    expect(JSON.stringify(tolerationOf(raw))).toBe(json);
  });
});
