import { describe, expect, it } from '@jest/globals';
import { planConsolidation, type ConsolidationInput, type PdbInfo } from './consolidation.js';
import { aNode, aPod, resources } from './testing/builders.js';
import type { ScoringPod } from './types.js';

const small = (nodeName: string, overrides: Partial<ScoringPod> = {}): ScoringPod =>
  aPod({ nodeName, requests: { cpuMilli: 500, memoryBytes: 0, gpu: 0 }, ...overrides });

/** A busy node that stays (60%) and an idle one (12.5%) whose pod can move over. */
function fleet(onIdle: Partial<ScoringPod> = {}, pdbs: PdbInfo[] = []): ConsolidationInput {
  return {
    nodes: [
      aNode({ name: 'busy', requested: resources({ cpuMilli: 2400, memoryBytes: 0, pods: 5 }) }),
      aNode({ name: 'idle', requested: resources({ cpuMilli: 500, memoryBytes: 0, pods: 1 }) }),
    ],
    pods: [small('idle', onIdle)],
    pdbs,
  };
}

describe('planConsolidation', () => {
  it('removes an idle node whose pod fits elsewhere and prices the saving', () => {
    const plan = planConsolidation(fleet());
    expect(plan.remove.map((r) => [r.node, r.pods.map((p) => p.to)])).toEqual([['idle', ['busy']]]);
    expect(plan.hourlySavingsUsd).toBeCloseTo(0.192, 6);
    expect(plan.monthlySavingsUsd).toBeCloseTo(0.192 * 730, 2);
  });

  it.each([
    ['a pod without a controller blocks its node', { ownerKind: undefined }, 'pod_without_controller'],
    ['a pod with local storage blocks its node', { hasLocalStorage: true }, 'pod_with_local_storage'],
    ['karpenter.sh/do-not-disrupt blocks its node', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }, 'pod_do_not_disrupt'],
    ['safe-to-evict "false" blocks its node', { annotations: { 'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false' } }, 'pod_not_safe_to_evict'],
    ['a pod too big for the remaining room blocks its node', { requests: { cpuMilli: 1700, memoryBytes: 0, gpu: 0 } }, 'pods_do_not_fit'],
    ['a pod whose volume zone has no other node blocks its node', { pvcZones: ['us-east-1b'] }, 'pods_do_not_fit'],
  ] as const)('%s', (_, onIdle, reason) => {
    const plan = planConsolidation(fleet(onIdle));
    expect(plan.remove).toEqual([]);
    expect(plan.blocked.map((b) => [b.node, b.reason])).toEqual([['idle', reason]]);
  });

  it.each([
    ['a DaemonSet pod neither moves nor blocks', { ownerKind: 'DaemonSet' }],
    ['a mirror pod neither moves nor blocks', { mirror: true, ownerKind: 'Node' }],
    ['a finished pod is not moved', { phase: 'Succeeded', ownerKind: undefined }],
  ] as const)('%s', (_, onIdle) => {
    const plan = planConsolidation(fleet(onIdle));
    expect(plan.remove.map((r) => [r.node, r.reason, r.pods])).toEqual([['idle', 'empty', []]]);
  });

  it.each([
    ['a cordoned (already drained) empty node is not planned again', { unschedulable: true }, []],
    ['a cordoned node that still holds a pod is not planned either', { unschedulable: true, requested: resources({ cpuMilli: 500, memoryBytes: 0, pods: 1 }) }, []],
    ['an uncordoned empty node is planned', { unschedulable: false }, [['spare', 'empty']]],
  ] as const)('%s', (_, spare, expected) => {
    const input = fleet();
    const pods = 'requested' in spare ? [small('spare')] : [];
    const plan = planConsolidation({ ...input, nodes: [...input.nodes, aNode({ name: 'spare', ...spare })], pods: [...input.pods, ...pods], candidates: (n) => n.name === 'spare' });
    expect(plan.remove.map((r) => [r.node, r.reason])).toEqual(expected);
    expect(plan.blocked).toEqual([]);
  });

  it('refuses a node whose pods a PodDisruptionBudget protects with no disruption left', () => {
    const plan = planConsolidation(fleet({}, [{ name: 'web', namespace: 'default', selector: { app: 'web' }, disruptionsAllowed: 0 }]));
    expect(plan.blocked).toEqual([{ node: 'idle', reason: 'pdb_exhausted', detail: 'PodDisruptionBudget default/web allows 0 more, needs 1', pdbs: ['default/web'] }]);
    expect(plan.pdbImpact).toEqual([{ pdb: 'default/web', disruptionsUsed: 0, disruptionsAllowed: 0 }]);
  });

  it('names every budget that holds a node, not only the first', () => {
    const web = (name: string, disruptionsAllowed: number): PdbInfo => ({ name, namespace: 'default', selector: { app: 'web' }, disruptionsAllowed });
    const plan = planConsolidation(fleet({}, [web('web-a', 0), web('web-ok', 1), web('web-b', 0)]));
    expect(plan.blocked.map((b) => b.detail)).toEqual(['PodDisruptionBudget default/web-a allows 0 more, needs 1; PodDisruptionBudget default/web-b allows 0 more, needs 1']);
    expect(plan.blocked[0]!.pdbs).toEqual(['default/web-a', 'default/web-b']);
  });

  it('shares a PodDisruptionBudget across the whole plan, not per node', () => {
    const nodes = [
      aNode({ name: 'big', allocatable: resources({ cpuMilli: 16000 }), requested: resources({ cpuMilli: 9000, memoryBytes: 0, pods: 5 }) }),
      aNode({ name: 'a', requested: resources({ cpuMilli: 500, memoryBytes: 0, pods: 1 }) }),
      aNode({ name: 'b', requested: resources({ cpuMilli: 500, memoryBytes: 0, pods: 1 }) }),
    ];
    const plan = planConsolidation({
      nodes,
      pods: [small('a'), small('b')],
      pdbs: [{ name: 'web', namespace: 'default', selector: { app: 'web' }, disruptionsAllowed: 1 }],
    });
    expect(plan.remove).toHaveLength(1);
    expect(plan.blocked.map((b) => b.reason)).toEqual(['pdb_exhausted']);
    expect(plan.blocked[0]!.detail).toBe('PodDisruptionBudget default/web allows 0 more (1 used by other nodes of this plan), needs 1');
    expect(plan.pdbImpact[0]!.disruptionsUsed).toBe(1);
  });

  it('counts pods already moved onto a node when re-packing the next', () => {
    const nodes = [
      aNode({ name: 'dest', requested: resources({ cpuMilli: 2400, memoryBytes: 0, pods: 5 }) }),
      aNode({ name: 'a', requested: resources({ cpuMilli: 1000, memoryBytes: 0, pods: 1 }) }),
      aNode({ name: 'b', requested: resources({ cpuMilli: 1000, memoryBytes: 0, pods: 1 }) }),
    ];
    const pods = [small('a', { requests: { cpuMilli: 1000, memoryBytes: 0, gpu: 0 } }), small('b', { requests: { cpuMilli: 1000, memoryBytes: 0, gpu: 0 } })];
    const plan = planConsolidation({ nodes, pods, pdbs: [] });
    // dest has 1600m free: one of a/b can move there, the other then fits on the survivor.
    expect(plan.remove).toHaveLength(1);
    expect(plan.blocked).toHaveLength(1);
  });

  it('refuses a node annotated do-not-disrupt', () => {
    const input = fleet();
    const nodes = [input.nodes[0]!, { ...input.nodes[1]!, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }];
    expect(planConsolidation({ ...input, nodes }).blocked.map((b) => b.reason)).toEqual(['node_do_not_disrupt']);
  });

  it('leaves nodes at or above the threshold alone', () => {
    const plan = planConsolidation({ ...fleet(), threshold: 0.1 });
    expect(plan.remove).toEqual([]);
    expect(plan.blocked).toEqual([]);
  });
});
