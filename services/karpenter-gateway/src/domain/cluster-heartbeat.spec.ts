import { describe, expect, it } from '@jest/globals';
import { clusterHeartbeatOf, countNodes, type ClusterCounts } from './cluster-heartbeat.js';

const counts = (o: Partial<ClusterCounts> = {}): ClusterCounts => ({ nodes: { total: 40, spot: 31 }, cordonsWaiting: 2, pools: [{ state: 'healthy', n: 12 }, { state: 'avoid', n: 1 }], decidedAt: new Date('2026-11-30T10:00:00Z'), ...o });
const opts = { version: '0.1.0', intervalSeconds: 60, mode: 'plan' as const };

describe('countNodes', () => {
  it.each([
    ['no nodes: none, none Spot', [], { total: 0, spot: 0 }],
    ['two Spot, one on-demand, one unlabelled: four, two Spot', [{ capacityType: 'spot' }, { capacityType: 'spot' }, { capacityType: 'on-demand' }, { capacityType: null }], { total: 4, spot: 2 }],
  ])('%s', (_s, nodes, want) => {
    expect(countNodes(nodes)).toEqual(want);
  });
});

describe('clusterHeartbeatOf', () => {
  it.each<[string, ClusterCounts, object]>([
    ['every owner answered: the counts as they are', counts(), { nodes: 40, spotNodes: 31, cordonsWaiting: 2 }],
    ['node-sync did not answer: nodes and Spot nodes are null, not zero', counts({ nodes: { error: 'timeout' } }), { nodes: null, spotNodes: null, cordonsWaiting: 2 }],
    ['uncordon did not answer: cordons waiting is null', counts({ cordonsWaiting: { error: 'timeout' } }), { nodes: 40, spotNodes: 31, cordonsWaiting: null }],
  ])('%s', (_s, c, want) => {
    expect(clusterHeartbeatOf(c, opts)).toMatchObject(want);
  });

  it('reports the steering mode, the pools by state (absent states are zero) and when they were decided', () => {
    expect(clusterHeartbeatOf(counts(), opts).steering).toEqual({ mode: 'plan', pools: { healthy: 12, watch: 0, avoid: 1 }, decidedAt: '2026-11-30T10:00:00.000Z' });
    expect(clusterHeartbeatOf(counts({ pools: [], decidedAt: null }), { ...opts, mode: 'off' }).steering).toEqual({ mode: 'off', pools: { healthy: 0, watch: 0, avoid: 0 }, decidedAt: null });
  });
});
