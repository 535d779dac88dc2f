import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { CordonedNodeSnapshot, ManagedFieldsEntrySnapshot, NodeTaint } from './cordoned-node.js';
import { decideUncordon, selectWithinBudget, type CordonObservation, type UncordonRuleConfig } from './decide-uncordon.js';

/*
 * Random node histories against an oracle written from the rule in docs/auto-uncordon.md alone: it shares no helper with the
 * implementation. Times are seconds around a fixed base so that boundaries (Ready since exactly T, ...) occur.
 */

const BASE = Date.UTC(2026, 2, 1, 10, 0, 0);
const sec = (s: number): Date => new Date(BASE + s * 1000);

const TAINT_POOL: NodeTaint[] = [
  { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', effect: 'NoExecute' },
  { key: 'aws-node-termination-handler/rebalance-recommendation', effect: 'NoSchedule' },
  { key: 'aws-node-termination-handler/rebalance-recommendation', effect: 'PreferNoSchedule' },
  { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' },
  { key: 'karpenter.sh/disruption', effect: 'NoSchedule', value: 'disrupting' },
  { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
  { key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule', value: '1700000000' },
  { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
  { key: 'dedicated', effect: 'NoSchedule', value: 'gpu' },
];
const MANAGERS = [
  'node-termination-handler',
  'node-termination-handler',
  'kubectl-cordon',
  'karpenter',
  'cluster-autoscaler',
  'nodes-manager',
  'ancient-changes',
  'ops-script',
  'my-nth-fork',
];

/** mostly — true with probability about `weight / (weight + 1)`. */
const mostly = (weight: number): fc.Arbitrary<boolean> =>
  fc.oneof({ arbitrary: fc.constant(true), weight }, { arbitrary: fc.constant(false), weight: 1 });

const timeOffset = fc.oneof(fc.constant(0), fc.integer({ min: -200_000, max: 200_000 }));

const managedEntry: fc.Arbitrary<ManagedFieldsEntrySnapshot> = fc
  .record({
    manager: fc.constantFrom(...MANAGERS, 'kubelet'),
    time: fc.option(timeOffset, { nil: undefined }),
    ownsCordon: fc.boolean(),
  })
  .map(({ manager, time, ownsCordon }) => ({
    manager,
    operation: 'Update',
    ...(time !== undefined ? { time: sec(time) } : {}),
    fieldsV1: ownsCordon ? { 'f:spec': { 'f:unschedulable': {} } } : { 'f:metadata': { 'f:labels': {} } },
  }));

const nthOwner: fc.Arbitrary<ManagedFieldsEntrySnapshot> = fc
  .option(fc.integer({ min: -1_000, max: 0 }), { nil: undefined })
  .map((time) => ({
    manager: 'node-termination-handler',
    operation: 'Update',
    ...(time !== undefined ? { time: sec(time) } : {}),
    fieldsV1: { 'f:spec': { 'f:unschedulable': {}, 'f:taints': {} } },
  }));

const aNode: fc.Arbitrary<CordonedNodeSnapshot> = fc
  .record({
    unschedulable: mostly(9),
    taints: fc.oneof(
      { arbitrary: fc.constant([TAINT_POOL[0]!]), weight: 4 },
      { arbitrary: fc.constant([TAINT_POOL[0]!, TAINT_POOL[3]!]), weight: 2 },
      { arbitrary: fc.subarray(TAINT_POOL), weight: 2 },
    ),
    excludeLb: mostly(12).map((b) => !b),
    nthAction: mostly(12).map((b) => !b),
    optOut: fc.oneof({ arbitrary: fc.constant(undefined), weight: 10 }, fc.constant('disabled'), fc.constant('enabled')),
    deleting: mostly(12).map((b) => !b),
    managedFields: fc.oneof(
      { arbitrary: nthOwner.map((e) => [e]), weight: 3 },
      { arbitrary: fc.array(managedEntry, { maxLength: 3 }), weight: 2 },
      { arbitrary: fc.constant<ManagedFieldsEntrySnapshot[]>([]), weight: 1 },
    ),
    ready: fc.option(
      fc.record({
        status: fc.constantFrom('True', 'True', 'True', 'True', 'False', 'Unknown') as fc.Arbitrary<'True' | 'False' | 'Unknown'>,
        transition: fc.option(fc.oneof(timeOffset, fc.integer({ min: -200_000, max: 0 })), { nil: undefined }),
      }),
      { nil: undefined },
    ),
  })
  .map(
    (r): CordonedNodeSnapshot => ({
    name: 'n',
    resourceVersion: '1',
    unschedulable: r.unschedulable,
    taints: r.taints,
    labels: {
      ...(r.excludeLb ? { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } : {}),
      ...(r.nthAction ? { 'aws-node-termination-handler/action': 'cordon' } : {}),
    },
    annotations: r.optOut ? { 'nodes-manager/auto-uncordon': r.optOut } : {},
    ...(r.deleting ? { deletionTimestamp: sec(100) } : {}),
    managedFields: r.managedFields,
    ...(r.ready
      ? {
          ready: {
            status: r.ready.status,
            ...(r.ready.transition !== undefined ? { lastTransitionTime: sec(r.ready.transition) } : {}),
          },
        }
      : {}),
  }));

const anObservation: fc.Arbitrary<CordonObservation | undefined> = fc.option(
  fc.record({
    firstSeenCordonedAt: timeOffset.map(sec),
    uncordonedAt: fc.array(fc.integer({ min: -300_000, max: 300_000 }).map(sec), { maxLength: 3 }),
  }),
  { nil: undefined },
);

const aConfig: fc.Arbitrary<UncordonRuleConfig> = fc.record({
  enabled: mostly(4),
  dryRun: mostly(4).map((b) => !b),
  gracePeriodMinutes: fc.constantFrom(0, 0.5, 1, 2.25, 15, 60),
  cordonManagers: fc.constantFrom(['node-termination-handler'], ['node-termination-handler', 'my-nth-fork'], ['my-nth-fork']),
  maxPerCycle: fc.integer({ min: 0, max: 3 }),
});

const aNow = fc.integer({ min: -10_000, max: 400_000 }).map(sec);

/** The oracle: docs/auto-uncordon.md clauses 1–5, read directly. Returns the time still to wait, or false. */
function oracle(
  node: CordonedNodeSnapshot,
  obs: CordonObservation | undefined,
  now: Date,
  cfg: UncordonRuleConfig,
): { holds: false } | { holds: true; waitMs: number } {
  // 1. cordoned, taints exactly {unschedulable:NoSchedule} or that + NTH rebalance.
  if (node.unschedulable !== true) return { holds: false };
  const names = node.taints.map((t) => `${t.key}:${t.effect}`).sort();
  const cordon = 'node.kubernetes.io/unschedulable:NoSchedule';
  const rebalance = node.taints.filter((t) => t.key === 'aws-node-termination-handler/rebalance-recommendation');
  const exactly =
    (names.length === 1 && names[0] === cordon) ||
    (names.length === 2 && rebalance.length === 1 && names.filter((n) => n === cordon).length === 1);
  if (!exactly) return { holds: false };
  // 2. provenance.
  const owners = node.managedFields.filter((e) => {
    const spec = (e.fieldsV1 as { 'f:spec'?: Record<string, unknown> } | undefined)?.['f:spec'];
    return spec !== undefined && Object.prototype.hasOwnProperty.call(spec, 'f:unschedulable');
  });
  if (owners.length > 0) {
    if (!owners.every((o) => cfg.cordonManagers.includes(o.manager ?? ''))) return { holds: false };
  } else if (rebalance.length === 0) {
    return { holds: false };
  }
  // 3. exclusions.
  const excludedTaints = ['karpenter.sh/disrupted', 'karpenter.sh/disruption', 'karpenter.sh/unregistered', 'ToBeDeletedByClusterAutoscaler'];
  if (node.taints.some((t) => excludedTaints.includes(t.key))) return { holds: false };
  if (node.deletionTimestamp !== undefined) return { holds: false };
  if (node.labels['node.kubernetes.io/exclude-from-external-load-balancers'] !== undefined) return { holds: false };
  if (node.labels['aws-node-termination-handler/action'] !== undefined) return { holds: false };
  if (node.annotations['nodes-manager/auto-uncordon'] === 'disabled') return { holds: false };
  // 4. T and Ready continuously since T.
  const ownerTimes = owners.flatMap((o) => (o.time ? [o.time.getTime()] : []));
  const written = ownerTimes.length > 0 ? Math.max(...ownerTimes) : obs?.firstSeenCordonedAt.getTime();
  if (written === undefined) return { holds: false };
  // managedFields times are whole seconds: the grace runs from the end of that second, never earlier.
  const T = ownerTimes.length > 0 && written % 1000 === 0 ? written + 1000 : written;
  if (node.ready?.status !== 'True') return { holds: false };
  const since = node.ready.lastTransitionTime?.getTime();
  if (since === undefined || since > written) return { holds: false };
  // 5. grace × 2^k.
  const day = 86_400_000;
  const k = (obs?.uncordonedAt ?? []).filter((u) => u.getTime() <= now.getTime() && now.getTime() - u.getTime() < day).length;
  const graceMs = cfg.gracePeriodMinutes * 60_000 * Math.pow(2, k);
  return { holds: true, waitMs: Math.max(0, graceMs - (now.getTime() - T)) };
}

describe('decideUncordon against the docs/auto-uncordon.md oracle', () => {
  it('never uncordons unless every clause holds, and always does when they do', () => {
    let uncordoned = 0;
    fc.assert(
      fc.property(aNode, anObservation, aNow, aConfig, (node, obs, now, cfg) => {
        const verdict = decideUncordon(node, obs, now, cfg);
        const truth = oracle(node, obs, now, cfg);
        if (verdict.decision === 'uncordon') {
          uncordoned += 1;
          expect(truth).toEqual({ holds: true, waitMs: 0 });
        }
        if (truth.holds && truth.waitMs === 0) {
          const expected = !cfg.enabled ? 'DISABLED' : cfg.dryRun ? 'DRY_RUN' : 'UNCORDON';
          expect(verdict.reason).toBe(expected);
          if (cfg.enabled && !cfg.dryRun) {
            const [selected] = selectWithinBudget([verdict], Math.max(1, cfg.maxPerCycle));
            expect(selected!.decision).toBe('uncordon');
          }
        }
      }),
      { numRuns: 5_000 },
    );
    // The generators must reach the interesting case often enough for the property to mean something.
    expect(uncordoned).toBeGreaterThan(100);
  });

  it('waits exactly the grace left when it is ours, and only then', () => {
    fc.assert(
      fc.property(aNode, anObservation, aNow, aConfig, (node, obs, now, cfg) => {
        const verdict = decideUncordon(node, obs, now, cfg);
        const truth = oracle(node, obs, now, cfg);
        if (verdict.decision === 'wait') {
          expect(truth.holds).toBe(true);
          expect(verdict.requeueAfterMs).toBe(truth.holds ? Math.ceil(truth.waitMs) : NaN);
        }
        if (truth.holds && truth.waitMs > 0) expect(verdict.decision).toBe('wait');
      }),
      { numRuns: 3_000 },
    );
  });

  it('never lets more than the budget through, and keeps the oldest cordons', () => {
    const anUncordon = fc.record({ name: fc.string({ minLength: 1, maxLength: 4 }), t: timeOffset, go: fc.boolean() });
    fc.assert(
      fc.property(fc.array(anUncordon, { maxLength: 12 }), fc.integer({ min: 0, max: 6 }), (nodes, max) => {
        const verdicts = nodes.map((n) => ({
          node: n.name,
          decision: n.go ? ('uncordon' as const) : ('skip' as const),
          reason: n.go ? ('UNCORDON' as const) : ('NOT_CORDONED' as const),
          evidence: { cordonedSince: sec(n.t).toISOString() },
          evaluatedAt: sec(0).toISOString(),
        }));
        const out = selectWithinBudget(verdicts, max);
        const kept = out.filter((v) => v.decision === 'uncordon');
        const wanted = verdicts.filter((v) => v.decision === 'uncordon');
        expect(kept.length).toBe(Math.min(max, wanted.length));
        const newestKept = Math.max(...kept.map((v) => Date.parse(v.evidence.cordonedSince!)));
        for (const v of out.filter((o) => o.reason === 'BUDGET_EXHAUSTED')) {
          expect(Date.parse(v.evidence.cordonedSince!)).toBeGreaterThanOrEqual(newestKept);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
