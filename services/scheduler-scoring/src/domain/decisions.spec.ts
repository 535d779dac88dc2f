import { describe, expect, it } from '@jest/globals';
import { planConsolidation, type ConsolidationPlan, type NodeRemoval, type ScoringNode, type ScoringPod, type SimulateResult } from '@nodes-manager/scoring';
import { aNode, aPod, resources } from '../../../../libs/scoring/src/testing/builders.js';
import { pendingGroups, withRequested, withVolumeZones, type CachedPod, type VolumeIndex } from './cluster.js';
import { decidePlan, decideScaleUp, recheckRemoval } from './decisions.js';

const removal = (node: string): NodeRemoval => ({ node, reason: 'underutilized', utilization: 0.1, pods: [], savingsUsdPerHour: 0.192, priceKnown: true });
const plan = (o: Partial<ConsolidationPlan> = {}): ConsolidationPlan => ({ remove: [], blocked: [], pdbImpact: [], hourlySavingsUsd: 0, monthlySavingsUsd: 0, ...o });
const sim = (o: Partial<SimulateResult> = {}): SimulateResult => ({ placedOnExisting: [], placedOnExistingCount: 0, additions: [], hourlyCostUsd: 0, unschedulable: [], algorithm: 'dual-greedy', ...o });
const group = { name: 'default/job', requests: { cpuMilli: 6000, memoryBytes: 0, gpu: 0 }, count: 3 };

describe('decideScaleUp', () => {
  it.each([
    ['no pending pods: nothing to add', [], undefined, 'none', 'no_pending_pods', /^No pending pods/],
    ['pending pods that fit free capacity', [group], sim({ placedOnExistingCount: 3 }), 'fits_existing', 'free_capacity_suffices', /3 fit the free capacity/],
    [
      'pending pods that need new nodes, named with type, zone and cost',
      [group],
      sim({ additions: [{ instanceType: 'm5.2xlarge', zone: 'us-east-1a', capacityType: 'on-demand', count: 3, unitUsdPerHour: 0.384, hourlyUsd: 1.152 }], hourlyCostUsd: 1.152 }),
      'add_nodes',
      'pending_pods_need_capacity',
      /add 3 nodes \(3× m5\.2xlarge on-demand in us-east-1a\) for \$1\.15\/h/,
    ],
    [
      'pods that fit no instance type are reported with simulate’s reason',
      [group],
      sim({ unschedulable: [{ pod: 'default/job', count: 3, reason: 'no_instance_type_fits' }] }),
      'unschedulable',
      'no_instance_type_fits',
      /3 can go nowhere: default\/job ×3 \(no instance type is big enough\)/,
    ],
  ] as const)('%s', (_, groups, result, outcome, reason, rationale) => {
    const d = decideScaleUp(groups, result, 'spot-advisor', 'spot-advisor');
    expect(d).toMatchObject({ kind: 'scale_up', subject: 'cluster', outcome, reason });
    expect(d.rationale).toMatch(rationale);
  });

  it('says when prices are the bundled fallback', () => {
    expect(decideScaleUp([group], sim({ placedOnExistingCount: 3 }), 'bundled-catalog', 'spot-advisor').rationale).toContain('bundled On-Demand prices');
  });

  it.each([
    ['EC2’s instance types through spot-advisor', 'spot-advisor', 'instance types from EC2 through spot-advisor'],
    ['the bundled catalog when spot-advisor listed none', 'bundled', 'the bundled instance-type catalog'],
  ] as const)('says where the instance types came from: %s', (_, catalog, words) => {
    const d = decideScaleUp([group], sim({ placedOnExistingCount: 3 }), 'spot-advisor', catalog);
    expect(d.rationale).toContain(words);
    expect(d.details['catalogSource']).toBe(catalog);
  });
});

describe('decidePlan', () => {
  it.each([
    ['nothing under the threshold', plan(), 'keep', 'no_underutilized_nodes', /No node under 50%/],
    ['candidates that are all blocked', plan({ blocked: [{ node: 'a', reason: 'pdb_exhausted', detail: 'x' }] }), 'keep', 'candidates_blocked', /1 node under 50% utilisation, none removable \(1 node whose PodDisruptionBudget allows no more disruptions\)/],
    ['removable nodes with savings', plan({ remove: [removal('a')], hourlySavingsUsd: 0.192, monthlySavingsUsd: 140.16 }), 'remove_nodes', 'underutilized_nodes', /Remove 1 node: a \(under-used, 10% used\).*saves \$0\.1920\/h \(\$140\.16\/month\)/],
  ] as const)('%s', (_, p, outcome, reason, rationale) => {
    const d = decidePlan(p, { threshold: 0.5, source: 'spot-advisor', mode: 'plan' });
    expect(d).toMatchObject({ kind: 'consolidation', outcome, reason });
    expect(d.rationale).toMatch(rationale);
  });

  it('speaks every reason in words: no reason code reaches the rationale', () => {
    const blocked = (['pods_do_not_fit', 'pods_do_not_fit', 'pdb_exhausted', 'node_do_not_disrupt'] as const).map((reason, i) => ({ node: `n${i}`, reason, detail: 'x' }));
    const d = decidePlan(plan({ blocked, remove: [removal('a')] }), { threshold: 0.5, source: 'spot-advisor', mode: 'plan' });
    expect(d.rationale).toContain('2 nodes whose pods fit nowhere else');
    expect(d.rationale).not.toMatch(/[a-z]+_[a-z_]+/);
  });

  it('names the NodePool as the subject when the plan is for one', () => {
    expect(decidePlan(plan(), { nodePool: 'general', threshold: 0.5, source: 'spot-advisor', mode: 'plan' }).subject).toBe('nodepool/general');
  });
});

describe('recheckRemoval — the plan is re-checked on a fresh read just before draining', () => {
  const idle = (o: Partial<ScoringNode> = {}) => aNode({ name: 'idle', requested: resources({ cpuMilli: 400, memoryBytes: 0, pods: 1 }), ...o });
  const onIdle = (o: Partial<ScoringPod> = {}) => aPod({ name: 'web-1', nodeName: 'idle', labels: { app: 'web' }, requests: { cpuMilli: 400, memoryBytes: 0, gpu: 0 }, ...o });
  const pdb = (allowed: number) => ({ name: 'web', namespace: 'default', selector: { app: 'web' }, disruptionsAllowed: allowed });
  /** A staying node with room for one 400m pod (3920m allocatable, 3300m requested). */
  const spare = (o: Partial<ScoringNode> = {}) => aNode({ name: 'spare', requested: resources({ cpuMilli: 3300, memoryBytes: 0, pods: 5 }), ...o });
  const full = spare({ requested: resources({ cpuMilli: 3900, memoryBytes: 0, pods: 5 }) });
  const drained = aNode({ name: 'drained', unschedulable: true, requested: resources({ cpuMilli: 400, memoryBytes: 0, pods: 1 }) });
  const onDrained = aPod({ name: 'api-1', nodeName: 'drained', requests: { cpuMilli: 400, memoryBytes: 0, gpu: 0 } });
  const none = { gone: new Set<string>(), budgetUsed: new Map<string, number>() };
  it.each([
    ['a node that is still idle and unblocked, whose pod still fits, goes ahead', [idle(), spare()], [onIdle()], [pdb(1)], none, undefined],
    ['a node that is gone is skipped', [spare()], [], [], none, 'node_gone'],
    ['a node that is no longer Ready is skipped', [idle({ ready: false }), spare()], [onIdle()], [], none, 'node_not_ready'],
    ['a node cordoned already (drained by an earlier run) is skipped', [idle({ unschedulable: true }), spare()], [onIdle()], [], none, 'already_cordoned'],
    ['a node now above the threshold is skipped', [idle({ requested: resources({ cpuMilli: 3000, memoryBytes: 0, pods: 4 }) }), spare()], [onIdle()], [], none, 'above_threshold'],
    ['a new pod without a controller is skipped', [idle(), spare()], [onIdle(), aPod({ name: 'naked', nodeName: 'idle', ownerKind: undefined })], [], none, 'new_blocking_pod'],
    ['a new do-not-disrupt pod is skipped', [idle(), spare()], [onIdle({ annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })], [], none, 'new_blocking_pod'],
    ['a budget that no longer allows the eviction is skipped', [idle(), spare()], [onIdle()], [pdb(0)], none, 'pdb_exhausted'],
    ['a budget this run already spent on an earlier node is skipped', [idle(), spare()], [onIdle()], [pdb(1)], { ...none, budgetUsed: new Map([['default/web', 1]]) }, 'pdb_exhausted'],
    ['a budget with room left after this run’s earlier drains goes ahead', [idle(), spare()], [onIdle()], [pdb(2)], { ...none, budgetUsed: new Map([['default/web', 1]]) }, undefined],
    ['a DaemonSet pod neither blocks nor counts', [idle(), spare()], [onIdle({ ownerKind: 'DaemonSet', labels: { app: 'web' } })], [pdb(0)], none, undefined],
    ['a pod that fits on no remaining node any more is skipped', [idle(), full], [onIdle()], [], none, 'pods_do_not_fit'],
    ['a node drained earlier in this run takes no pods', [idle(), full, aNode({ name: 'drained' })], [onIdle()], [], { ...none, gone: new Set(['drained']) }, 'pods_do_not_fit'],
    ['the pods still on a node drained earlier in this run need room too', [idle(), spare(), drained], [onIdle(), onDrained], [], { ...none, gone: new Set(['drained']) }, 'pods_do_not_fit'],
    ['with room for both, a node after an earlier drain goes ahead', [idle(), spare({ requested: resources({ cpuMilli: 2900, memoryBytes: 0, pods: 5 }) }), drained], [onIdle(), onDrained], [], { ...none, gone: new Set(['drained']) }, undefined],
  ] as const)('%s', (_, nodes, pods, pdbs, run, reason) => {
    const r = recheckRemoval(removal('idle'), { nodes: [...nodes], pods: [...pods], pdbs: [...pdbs] }, 0.5, run);
    expect(r.ok ? undefined : r.reason).toBe(reason);
  });

  it('says what the node takes from each budget, for the run to add up', () => {
    const r = recheckRemoval(removal('idle'), { nodes: [idle(), spare()], pods: [onIdle()], pdbs: [pdb(3)] }, 0.5);
    expect(r.ok && [...r.budgetNeed]).toEqual([['default/web', 1]]);
  });
});

describe('cluster snapshot', () => {
  it('sums the requests of running pods onto their nodes, not finished or pending ones', () => {
    const [n] = withRequested(
      [aNode({ name: 'n' })],
      [
        aPod({ nodeName: 'n', requests: { cpuMilli: 300, memoryBytes: 100, gpu: 0 } }),
        aPod({ nodeName: 'n', phase: 'Succeeded', requests: { cpuMilli: 999, memoryBytes: 999, gpu: 0 } }),
        aPod({ requests: { cpuMilli: 999, memoryBytes: 999, gpu: 0 } }),
      ],
    );
    expect(n!.requested).toEqual({ cpuMilli: 300, memoryBytes: 100, gpu: 0, pods: 1 });
  });

  it('groups identical pending pods of a workload and keeps differing ones apart', () => {
    const job = (name: string, cpuMilli: number) => aPod({ name, phase: 'Pending', workload: 'job', ownerKind: 'Job', requests: { cpuMilli, memoryBytes: 0, gpu: 0 } });
    const groups = pendingGroups([job('a', 1000), job('b', 1000), job('c', 2000), aPod({ name: 'running', nodeName: 'n', phase: 'Running' })]);
    expect(groups.map((g) => [g.name, g.count, g.requests.cpuMilli, g.class])).toEqual([
      ['default/job', 2, 1000, 'batch'],
      ['default/job#2', 1, 2000, 'batch'],
    ]);
  });
});

describe('withVolumeZones', () => {
  const nodes = [aNode({ name: 'a1', zone: 'us-east-1a' }), aNode({ name: 'b1', zone: 'us-east-1b' })];
  it.each([
    ['a running pod with a PVC keeps to its node’s zone', aPod({ nodeName: 'b1', hasPvc: true }), ['us-east-1b']],
    ['a running pod without a PVC has no volume zone', aPod({ nodeName: 'b1', hasPvc: false }), undefined],
    ['a pending pod with a PVC has no known zone', aPod({ phase: 'Pending', hasPvc: true }), undefined],
    ['a pod on a node not in the view is left alone', aPod({ nodeName: 'gone', hasPvc: true }), undefined],
    ['zones already known are kept', aPod({ nodeName: 'b1', hasPvc: true, pvcZones: ['us-east-1c'] }), ['us-east-1c']],
  ] as const)('%s', (_, pod, zones) => {
    expect(withVolumeZones([pod], nodes)[0]!.pvcZones).toEqual(zones);
  });

  describe('from the volumes the pod’s claims are bound to', () => {
    const bound: Record<string, string> = { 'default/data-a': 'pv-a', 'default/data-b': 'pv-b', 'default/data-b2': 'pv-b2', 'default/data-ab': 'pv-ab', 'default/data-bc': 'pv-bc', 'default/data-nfs': 'pv-nfs', 'other/data-a': 'pv-b' };
    const zonesOf: Record<string, string[]> = { 'pv-a': ['us-east-1a'], 'pv-b': ['us-east-1b'], 'pv-b2': ['us-east-1b'], 'pv-ab': ['us-east-1a', 'us-east-1b'], 'pv-bc': ['us-east-1b', 'us-east-1c'], 'pv-nfs': [] };
    const volumes: VolumeIndex = { claimVolume: (k) => bound[k], volumeZones: (n) => zonesOf[n] };
    const withClaims = (claims: string[], o: Partial<ScoringPod> = {}): CachedPod => ({ ...aPod({ hasPvc: true, ...o }), pvcClaims: claims });
    it.each([
      ['a running pod keeps to its volume’s zone, not its node’s', withClaims(['data-a'], { nodeName: 'b1' }), ['us-east-1a']],
      ['a pending pod with a bound claim gets its volume’s zone', withClaims(['data-b'], { phase: 'Pending' }), ['us-east-1b']],
      ['claims are looked up in the pod’s own namespace', withClaims(['data-a'], { namespace: 'other', phase: 'Pending' }), ['us-east-1b']],
      ['two volumes in one zone confine the pod to it', withClaims(['data-b', 'data-b2'], { phase: 'Pending' }), ['us-east-1b']],
      ['volumes in two zones leave no zone (no node passes)', withClaims(['data-a', 'data-b'], { phase: 'Pending' }), ['us-east-1a', 'us-east-1b']],
      ['multi-zone volumes confine the pod to the zone they share', withClaims(['data-ab', 'data-bc'], { phase: 'Pending' }), ['us-east-1b']],
      ['a multi-zone volume keeps a running pod to its node’s zone', withClaims(['data-ab'], { nodeName: 'b1' }), ['us-east-1b']],
      ['a multi-zone volume leaves a pending pod unconstrained', withClaims(['data-ab'], { phase: 'Pending' }), undefined],
      ['an unbound claim of a running pod falls back to its node’s zone', withClaims(['unbound'], { nodeName: 'b1' }), ['us-east-1b']],
      ['an unbound claim of a pending pod says nothing', withClaims(['unbound'], { phase: 'Pending' }), undefined],
      ['a volume without a zone of a running pod falls back to its node’s zone', withClaims(['data-nfs'], { nodeName: 'a1' }), ['us-east-1a']],
      ['a volume without a zone of a pending pod says nothing, the bound ones still count', withClaims(['data-nfs', 'data-b'], { phase: 'Pending' }), ['us-east-1b']],
      ['a volume and the fallback node zone that disagree leave no zone', withClaims(['data-a', 'unbound'], { nodeName: 'b1' }), ['us-east-1a', 'us-east-1b']],
      ['zones already known are kept', withClaims(['data-a'], { nodeName: 'b1', pvcZones: ['us-east-1c'] }), ['us-east-1c']],
    ] as const)('%s', (_, pod, zones) => {
      expect(withVolumeZones([pod], nodes, volumes)[0]!.pvcZones).toEqual(zones);
    });

    it('drops the claim names from the pods it returns', () => {
      const [a, b] = withVolumeZones([withClaims(['data-a'], { nodeName: 'a1' }), withClaims(['unbound'], { phase: 'Pending' })], nodes, volumes);
      expect(a).not.toHaveProperty('pvcClaims');
      expect(b).not.toHaveProperty('pvcClaims');
    });

    it('lets consolidation move a stateful pod to another node in its volume’s zone', () => {
      const idleA = aNode({ name: 'idle-a', zone: 'us-east-1a', requested: resources({ cpuMilli: 500, memoryBytes: 0, pods: 1 }) });
      const spareA = aNode({ name: 'spare-a', zone: 'us-east-1a', requested: resources({ cpuMilli: 1000, memoryBytes: 0, pods: 3 }) });
      const busyB = aNode({ name: 'busy-b', zone: 'us-east-1b', requested: resources({ cpuMilli: 2400, memoryBytes: 0, pods: 5 }) });
      const db: CachedPod = { ...aPod({ nodeName: 'idle-a', ownerKind: 'StatefulSet', hasPvc: true, requests: { cpuMilli: 500, memoryBytes: 0, gpu: 0 } }), pvcClaims: ['data-a'] };
      const plan = planConsolidation({ nodes: [busyB, idleA, spareA], pods: withVolumeZones([db], [busyB, idleA, spareA], volumes), pdbs: [] });
      expect(plan.remove.map((r) => [r.node, r.pods.map((p) => p.to)])).toEqual([['idle-a', ['spare-a']]]);
    });
  });

  it('keeps a stateful pod’s node unless its zone has room: consolidation moves it only within the zone', () => {
    const busyB = aNode({ name: 'busy-b', zone: 'us-east-1b', requested: resources({ cpuMilli: 2400, memoryBytes: 0, pods: 5 }) });
    const idleA = aNode({ name: 'idle-a', zone: 'us-east-1a', requested: resources({ cpuMilli: 500, memoryBytes: 0, pods: 1 }) });
    const db = aPod({ nodeName: 'idle-a', ownerKind: 'StatefulSet', hasPvc: true, requests: { cpuMilli: 500, memoryBytes: 0, gpu: 0 } });
    const plan = planConsolidation({ nodes: [busyB, idleA], pods: withVolumeZones([db], [busyB, idleA]), pdbs: [] });
    expect(plan.remove).toEqual([]);
    expect(plan.blocked.map((b) => b.reason)).toEqual(['pods_do_not_fit']);
  });
});
