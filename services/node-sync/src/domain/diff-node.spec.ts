import { describe, expect, it } from '@jest/globals';
import { aKubeNode } from '@nodes-manager/kube/testing';

const aV1Node = () => aKubeNode('ip-10-0-1-23.ec2.internal');
import { contentHash, diffNode, sameContent, stableJson } from './diff-node.js';
import { projectNode, type NodeRow } from './project-node.js';

const base = projectNode(aV1Node());
const change = (patch: Partial<NodeRow>): NodeRow => ({ ...base, ...patch });

describe('diffNode', () => {
  it.each<[string, NodeRow, string[], boolean]>([
    ['an identical row changes nothing', change({}), [], false],
    ['Ready going False is operator-relevant', change({ ready: false, state: 'NotReady' }), ['ready', 'state'], true],
    ['a cordon is operator-relevant', change({ unschedulable: true, state: 'Cordoned' }), ['unschedulable', 'state'], true],
    ['a new taint is operator-relevant', change({ taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), ['taints'], true],
    ['a capacity change is operator-relevant', change({ allocatable: { ...base.allocatable, pods: 110 } }), ['allocatable'], true],
    ['requested resources are recorded but not announced', change({ requested: { cpuMilli: 500, memoryBytes: 0, gpu: 0 }, podCount: 3 }), ['requested', 'podCount'], false],
    ['a label change is recorded but not announced', change({ labels: { ...base.labels, team: 'x' } }), ['labels'], false],
    ['a condition’s transition is recorded but not announced', change({ conditions: [] }), ['conditions'], false],
  ])('%s', (_sentence, next, fields, operatorRelevant) => {
    expect(diffNode(base, next)).toEqual({ changed: fields.length > 0, operatorRelevant, fields });
  });

  it('a new node is a change of every field and operator-relevant', () => {
    const diff = diffNode(undefined, base);
    expect(diff.changed && diff.operatorRelevant).toBe(true);
    expect(diff.fields).toEqual(Object.keys(base));
  });

  it('ignores the order labels came in', () => {
    const reordered = change({ labels: Object.fromEntries(Object.entries(base.labels).reverse()) });
    expect(diffNode(base, reordered).changed).toBe(false);
  });

  it('ignores a kubelet heartbeat', () => {
    const node = aV1Node();
    const later = aV1Node();
    later.status!.conditions!.find((c) => c.type === 'Ready')!.lastHeartbeatTime = new Date('2026-03-01T10:05:00Z');
    expect(diffNode(projectNode(node), projectNode(later)).changed).toBe(false);
  });
});

describe('contentHash and sameContent', () => {
  it.each<[string, object, object, boolean]>([
    ['equal rows hash alike', base, { ...base }, true],
    ['key order does not matter', { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }, true],
    ['array order does matter', { t: [1, 2] }, { t: [2, 1] }, false],
    ['a changed value changes the hash', base, change({ ready: false }), false],
    ['null and a missing key differ', { a: null }, {}, false],
  ])('%s', (_sentence, a, b, same) => {
    expect(sameContent(a, b)).toBe(same);
    expect(contentHash(a) === contentHash(b)).toBe(same);
  });

  it('is a sha256 hex digest', () => {
    expect(contentHash(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps its exact output (stored hashes are taken over it): keys by UTF-16 code units, undefined left out', () => {
    const value = { b: [1, { z: null, a: 'x', u: undefined }, [], {}], é: 1, Z: true, a: { 10: 1, 9: 2, ab: 'q"uote', 'a-b': -0, e: 1e21 }, n: 1.5, s: 'ü\n', d: undefined };
    expect(stableJson(value)).toBe('{"Z":true,"a":{"10":1,"9":2,"a-b":0,"ab":"q\\"uote","e":1e+21},"b":[1,{"a":"x","z":null},[],{}],"n":1.5,"s":"ü\\n","é":1}');
  });

  it('serialises like JSON apart from key order', () => {
    expect(JSON.parse(stableJson(base))).toEqual(base);
  });
});
