import { describe, expect, it } from '@jest/globals';
import { AUTO_UNCORDON_OPT_OUT_ANNOTATION, FENCING_LABEL } from '@nodes-manager/contracts';
import { aKubeNode } from '@nodes-manager/kube/testing';
import { cordonedNodeSnapshot } from '../../auto-uncordon/domain/cordoned-node.js';
import { ledgerNodeOf } from '../../rebalance-ledger/domain/ledger-node.js';
import { projectUncordonNode } from './node-projection.mapper.js';

const UNCORDON = 'unread-by-uncordon';

/** aFullNode — a cordoned node as the API serves it, with fields uncordon never reads holding the UNREAD marker. */
function aFullNode() {
  const node = aKubeNode('ip-10-0-0-1.ec2.internal', {
    unschedulable: true,
    labels: { [FENCING_LABEL]: 'enabled', 'example.com/team': UNCORDON },
    annotations: { [AUTO_UNCORDON_OPT_OUT_ANNOTATION]: 'true', 'example.com/note': UNCORDON },
    taints: [{ key: 'aws-node-termination-handler/rebalance-recommendation', effect: 'NoSchedule', timeAdded: new Date('2026-01-01T00:00:00Z') }],
  }) as any;
  node.metadata.resourceVersion = '7';
  node.metadata.managedFields = [
    { manager: 'node-termination-handler', operation: 'Update', time: '2026-01-01T00:00:01Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:unschedulable': {}, [`f:${UNCORDON}`]: {} } } },
    { manager: UNCORDON, operation: 'Update', time: '2026-01-01T00:00:02Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:images': {} } } },
  ];
  node.status.images = [{ names: [`registry/${UNCORDON}:1`], sizeBytes: 1 }];
  node.status.nodeInfo = { machineID: UNCORDON };
  node.status.addresses = [{ type: 'InternalIP', address: UNCORDON }];
  node.status.conditions.push({ type: 'MemoryPressure', status: 'False', reason: UNCORDON });
  return node;
}

describe("uncordon's cache of nodes", () => {
  it('holds a projection: no field outside what uncordon reads survives into the cache', () => {
    const cached = projectUncordonNode(JSON.parse(JSON.stringify(aFullNode())));
    expect(JSON.stringify(cached)).not.toContain(UNCORDON);
    expect(cached.metadata!.managedFields).toEqual([expect.objectContaining({ manager: 'node-termination-handler', fieldsV1: { 'f:spec': { 'f:unschedulable': {} } } })]);
  });

  it('gives the uncordon rule and the rebalance ledger the same view as the whole object', () => {
    const full = JSON.parse(JSON.stringify(aFullNode()));
    const cached = projectUncordonNode(full);
    expect(cordonedNodeSnapshot(cached)).toEqual({ ...cordonedNodeSnapshot(full), labels: expect.any(Object), annotations: expect.any(Object), managedFields: [expect.objectContaining({ manager: 'node-termination-handler' })] });
    const [a, b] = [ledgerNodeOf(cached), ledgerNodeOf(full)];
    expect(a.facts).toEqual(b.facts);
    expect(a.uid).toBe(b.uid);
    expect(cordonedNodeSnapshot(cached).annotations[AUTO_UNCORDON_OPT_OUT_ANNOTATION]).toBe('true');
    expect(cordonedNodeSnapshot(cached).ready).toEqual(cordonedNodeSnapshot(full).ready);
  });
});
