import { describe, expect, it } from '@jest/globals';
import { aKubePod } from '@nodes-manager/kube/testing';
import { Interner } from '@nodes-manager/platform';
import { toLivePod } from './kube-cache.adapter.js';
import { copyText, POD_COPY_COLUMNS } from './pod-copy.mapper.js';

const UNREAD = 'unread-by-node-sync';

/** aFullPod — a pod with fields node-sync never reads, each holding the UNREAD marker. */
function aFullPod() {
  const pod = aKubePod('web-1', 'node-a', { namespace: 'shop', app: 'web', annotations: { 'example.com/note': UNREAD, 'kubectl.kubernetes.io/last-applied-configuration': UNREAD } }) as any;
  pod.metadata.managedFields = [{ manager: UNREAD, operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }];
  pod.metadata.resourceVersion = '42';
  pod.spec.containers[0].env = [{ name: 'TOKEN', value: UNREAD }];
  pod.spec.containers[0].image = `registry/${UNREAD}:1`;
  pod.status = { ...pod.status, podIP: UNREAD, containerStatuses: [{ name: 'main', image: UNREAD, imageID: UNREAD, ready: true, restartCount: 0 }] };
  return pod;
}

describe("node-sync's cache of pods", () => {
  it('holds a projection: no field outside the row survives into the cache', () => {
    const cached = toLivePod(aFullPod());
    expect(Object.keys(cached).sort()).toEqual(['active', 'hash', 'nodeName', 'requests', 'resourceVersion', 'row', 'uid']);
    expect(JSON.stringify(cached)).not.toContain(UNREAD);
    expect(cached.row.split('\t')).toHaveLength(POD_COPY_COLUMNS.length);
    expect(cached).toMatchObject({ nodeName: 'node-a', active: true, resourceVersion: '42', requests: { cpuMilli: 100, memoryBytes: 128 * 1024 ** 2 } });
  });

  it('shares one copy of a node name and of a request shape between the pods of a cache', () => {
    const intern = new Interner();
    const a = toLivePod(aKubePod('a', 'node-a'), intern);
    const b = toLivePod(JSON.parse(JSON.stringify(aKubePod('b', 'node-a'))), intern);
    expect(b.requests).toBe(a.requests);
  });

  it.each([
    ['null', null, '\\N'],
    ['a boolean', true, 't'],
    ['a number, rounded', 2.6, '3'],
    ['a string with a tab, a newline and a backslash', 'a\tb\nc\\d', 'a\\tb\\nc\\\\d'],
  ])('encodes %s as COPY text', (_, value, text) => {
    expect(copyText(value)).toBe(text);
  });
});
