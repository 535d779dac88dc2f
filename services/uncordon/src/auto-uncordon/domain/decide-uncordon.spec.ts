import { describe, expect, it } from '@jest/globals';
import { UncordonReason, type UncordonVerdict } from '@nodes-manager/contracts';
import {
  CORDON_TAINT,
  REBALANCE_TAINT,
  T0,
  aConfig,
  aCordonedNode,
  anObservation,
  at,
  cordonEntry,
  kubeletEntry,
  minutes,
  taint,
} from '../../../test/cordoned-node.builder.js';
import type { CordonedNodeSnapshot } from './cordoned-node.js';
import {
  cordonOwner,
  decideUncordon,
  budgetLeft,
  describeVerdict,
  selectWithinBudget,
  uncordonPatch,
  type CordonObservation,
  type UncordonRuleConfig,
} from './decide-uncordon.js';

interface Row {
  node?: Partial<CordonedNodeSnapshot>;
  observation?: CordonObservation | null;
  /** now, minutes after T0 (default 20). */
  now?: number;
  config?: Partial<UncordonRuleConfig>;
  decision: UncordonVerdict['decision'];
  reason: UncordonReason;
  requeueAfterMs?: number;
}

const R = UncordonReason;
/** One second, in the minutes `now` is given in: managedFields times are whole seconds, the grace counts from the end of one. */
const SECOND = 1 / 60;
const ntBy = (manager: string, time: Date | null = T0) => [kubeletEntry(), cordonEntry(manager, time)];

const rows: Array<[string, Row]> = [
  // Clause 1–5 all hold.
  ['an NTH cordon, Ready throughout, past the grace period is uncordoned', { decision: 'uncordon', reason: R.UNCORDON }],
  ['exactly at the grace period, counted from the end of the cordon’s second, is uncordoned', { now: 15 + SECOND, decision: 'uncordon', reason: R.UNCORDON }],
  ['at the grace period counted from the cordon’s truncated second it still waits that second', { now: 15, decision: 'wait', reason: R.WAITING_GRACE_PERIOD, requeueAfterMs: 1000 }],
  ['a cordon time with milliseconds is taken as it is', { node: { managedFields: ntBy('node-termination-handler', new Date(T0.getTime() + 900)) }, now: 15 + 0.9 * SECOND, decision: 'uncordon', reason: R.UNCORDON }],
  ['the cordon plus NTH rebalance taint is uncordoned', { node: { taints: [CORDON_TAINT, REBALANCE_TAINT] }, decision: 'uncordon', reason: R.UNCORDON }],
  ['a PreferNoSchedule rebalance taint is NTH’s too', { node: { taints: [CORDON_TAINT, taint('aws-node-termination-handler/rebalance-recommendation', 'PreferNoSchedule')] }, decision: 'uncordon', reason: R.UNCORDON }],
  ['Ready since exactly T is continuous', { node: { ready: { status: 'True', lastTransitionTime: T0 } }, decision: 'uncordon', reason: R.UNCORDON }],
  ['an extra configured cordon manager counts as NTH', { node: { managedFields: ntBy('my-nth-fork') }, config: { cordonManagers: ['node-termination-handler', 'my-nth-fork'] }, decision: 'uncordon', reason: R.UNCORDON }],
  ['no managedFields owner but the rebalance taint is provenance, T from first sight', { node: { managedFields: [kubeletEntry()], taints: [CORDON_TAINT, REBALANCE_TAINT] }, observation: anObservation({ firstSeenCordonedAt: at(2) }), now: 17, decision: 'uncordon', reason: R.UNCORDON }],
  ['an owner without a time takes T from first sight', { node: { managedFields: ntBy('node-termination-handler', null) }, observation: anObservation({ firstSeenCordonedAt: at(5) }), now: 20, decision: 'uncordon', reason: R.UNCORDON }],
  ['an uncordon more than 24 h ago does not back off', { observation: anObservation({ uncordonedAt: [at(-24 * 60 - 1)] }), now: 16, decision: 'uncordon', reason: R.UNCORDON }],
  ['a decimal grace period is honoured', { config: { gracePeriodMinutes: 0.5 }, now: 0.5 + SECOND, decision: 'uncordon', reason: R.UNCORDON }],
  // Clause 5: grace and back-off.
  ['before the grace period it waits the time left', { now: 10, decision: 'wait', reason: R.WAITING_GRACE_PERIOD, requeueAfterMs: minutes(5) + 1000 }],
  ['one uncordon in the last 24 h doubles the grace', { observation: anObservation({ uncordonedAt: [at(-60)] }), now: 20, decision: 'wait', reason: R.WAITING_GRACE_PERIOD, requeueAfterMs: minutes(10) + 1000 }],
  ['two uncordons in the last 24 h quadruple the grace', { observation: anObservation({ uncordonedAt: [at(-600), at(-60)] }), now: 59, decision: 'wait', reason: R.WAITING_GRACE_PERIOD, requeueAfterMs: minutes(1) + 1000 }],
  ['after the quadrupled grace it uncordons', { observation: anObservation({ uncordonedAt: [at(-600), at(-60)] }), now: 60 + SECOND, decision: 'uncordon', reason: R.UNCORDON }],
  ['T from first sight delays the grace', { node: { managedFields: ntBy('node-termination-handler', null) }, observation: anObservation({ firstSeenCordonedAt: at(10) }), now: 20, decision: 'wait', reason: R.WAITING_GRACE_PERIOD, requeueAfterMs: minutes(5) }],
  // Clause 1: taints.
  ['a node that is not cordoned is skipped', { node: { unschedulable: false, taints: [] }, decision: 'skip', reason: R.NOT_CORDONED }],
  ['an NTH-tainted node that is not cordoned is skipped', { node: { unschedulable: false, taints: [REBALANCE_TAINT] }, decision: 'skip', reason: R.NOT_CORDONED }],
  ['a cordon whose taint is not there yet is skipped', { node: { taints: [] }, decision: 'skip', reason: R.CORDON_TAINT_MISSING }],
  ['a cordon with only the rebalance taint is skipped', { node: { taints: [REBALANCE_TAINT] }, decision: 'skip', reason: R.CORDON_TAINT_MISSING }],
  ['any other taint keeps the cordon', { node: { taints: [CORDON_TAINT, taint('dedicated', 'NoSchedule', 'gpu')] }, decision: 'skip', reason: R.EXTRA_TAINTS }],
  ['a NoExecute unschedulable taint is not the cordon taint', { node: { taints: [CORDON_TAINT, taint('node.kubernetes.io/unschedulable', 'NoExecute')] }, decision: 'skip', reason: R.EXTRA_TAINTS }],
  ['a not-ready taint keeps the cordon', { node: { taints: [CORDON_TAINT, taint('node.kubernetes.io/not-ready', 'NoExecute')] }, decision: 'skip', reason: R.EXTRA_TAINTS }],
  ['NTH’s spot interruption taint keeps the cordon', { node: { taints: [CORDON_TAINT, taint('aws-node-termination-handler/spot-itn', 'NoSchedule')] }, decision: 'skip', reason: R.EXTRA_TAINTS }],
  ['a soft cluster-autoscaler candidate taint keeps the cordon', { node: { taints: [CORDON_TAINT, taint('DeletionCandidateOfClusterAutoscaler', 'PreferNoSchedule')] }, decision: 'skip', reason: R.EXTRA_TAINTS }],
  // Clause 2: provenance.
  ['kubectl cordon is an operator’s: never', { node: { managedFields: ntBy('kubectl-cordon') }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
  ['kubectl cordon with the rebalance taint is still an operator’s', { node: { managedFields: ntBy('kubectl-cordon'), taints: [CORDON_TAINT, REBALANCE_TAINT] }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
  ['a Karpenter cordon: never', { node: { managedFields: ntBy('karpenter') }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
  ['a cluster-autoscaler cordon: never', { node: { managedFields: ntBy('cluster-autoscaler') }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
  ['our own drain’s cordon: never', { node: { managedFields: ntBy('nodes-manager') }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
  ['ancient-changes: never', { node: { managedFields: ntBy('ancient-changes') }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
  ['an unknown manager: never', { node: { managedFields: ntBy('ops-script') }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
  ['NTH not in the configured managers: never', { node: { managedFields: ntBy('node-termination-handler') }, config: { cordonManagers: ['something-else'] }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
  ['no owner and no rebalance taint: no provenance', { node: { managedFields: [kubeletEntry()] }, decision: 'skip', reason: R.NO_PROVENANCE }],
  ['no managedFields at all and no rebalance taint: no provenance', { node: { managedFields: [] }, decision: 'skip', reason: R.NO_PROVENANCE }],
  // Clause 3: exclusions.
  ['Karpenter disrupted taint excludes', { node: { taints: [CORDON_TAINT, taint('karpenter.sh/disrupted')] }, decision: 'skip', reason: R.KARPENTER_DISRUPTION_TAINT }],
  ['Karpenter disruption taint excludes', { node: { taints: [CORDON_TAINT, taint('karpenter.sh/disruption', 'NoSchedule', 'disrupting')] }, decision: 'skip', reason: R.KARPENTER_DISRUPTION_TAINT }],
  ['Karpenter unregistered taint excludes', { node: { taints: [CORDON_TAINT, taint('karpenter.sh/unregistered', 'NoExecute')] }, decision: 'skip', reason: R.KARPENTER_DISRUPTION_TAINT }],
  ['cluster-autoscaler deletion taint excludes', { node: { taints: [CORDON_TAINT, taint('ToBeDeletedByClusterAutoscaler')] }, decision: 'skip', reason: R.CLUSTER_AUTOSCALER_DELETION_TAINT }],
  ['a deletionTimestamp excludes', { node: { deletionTimestamp: at(5) }, decision: 'skip', reason: R.BEING_DELETED }],
  ['excluded from load balancers excludes', { node: { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true' } }, decision: 'skip', reason: R.EXCLUDED_FROM_LOAD_BALANCERS }],
  ['an empty exclude-from-load-balancers label still excludes', { node: { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' } }, decision: 'skip', reason: R.EXCLUDED_FROM_LOAD_BALANCERS }],
  ['an NTH action label excludes', { node: { labels: { 'aws-node-termination-handler/action': 'cordon-and-drain' } }, decision: 'skip', reason: R.NTH_ACTION_LABEL }],
  ['the opt-out annotation excludes', { node: { annotations: { 'nodes-manager/auto-uncordon': 'disabled' } }, decision: 'skip', reason: R.OPTED_OUT }],
  ['a node our own drain is running on is ours, whoever owns the cordon field', { node: { annotations: { 'nodes-manager/drain-operation': '0d2c7c8e-5b4e-4c55-9d8e-1f0c0a3b7a11' } }, decision: 'skip', reason: R.DRAINING }],
  ['another auto-uncordon annotation value does not opt out', { node: { annotations: { 'nodes-manager/auto-uncordon': 'enabled' } }, decision: 'uncordon', reason: R.UNCORDON }],
  // Clause 4: T and Ready.
  ['no owner time and no observation: T unknown', { node: { managedFields: ntBy('node-termination-handler', null) }, observation: null, decision: 'skip', reason: R.CORDON_TIME_UNKNOWN }],
  ['Ready False now', { node: { ready: { status: 'False', lastTransitionTime: at(-60) } }, decision: 'skip', reason: R.NOT_READY }],
  ['Ready Unknown now', { node: { ready: { status: 'Unknown', lastTransitionTime: at(3) } }, decision: 'skip', reason: R.NOT_READY }],
  ['no Ready condition', { node: { ready: undefined }, decision: 'skip', reason: R.NOT_READY }],
  ['Ready again after T is not continuous', { node: { ready: { status: 'True', lastTransitionTime: at(1) } }, now: 60, decision: 'skip', reason: R.NOT_READY_SINCE_CORDON }],
  ['Ready without a transition time is not provably continuous', { node: { ready: { status: 'True' } }, decision: 'skip', reason: R.NOT_READY_SINCE_CORDON }],
  // Modes.
  ['disabled reports what it would do', { config: { enabled: false }, decision: 'skip', reason: R.DISABLED }],
  ['dry run reports what it would do', { config: { dryRun: true }, decision: 'skip', reason: R.DRY_RUN }],
  ['disabled does not hide a skip reason', { config: { enabled: false }, node: { managedFields: ntBy('kubectl-cordon') }, decision: 'skip', reason: R.CORDONED_BY_OTHER_MANAGER }],
];

describe('decideUncordon', () => {
  it.each(rows)('%s', (_sentence, row) => {
    const observation = row.observation === null ? undefined : (row.observation ?? anObservation());
    const verdict = decideUncordon(aCordonedNode(row.node), observation, at(row.now ?? 20), aConfig(row.config));
    expect({ decision: verdict.decision, reason: verdict.reason }).toEqual({ decision: row.decision, reason: row.reason });
    if (row.requeueAfterMs !== undefined) expect(verdict.requeueAfterMs).toBe(row.requeueAfterMs);
    if (verdict.decision !== 'wait') expect(verdict.requeueAfterMs).toBeUndefined();
  });

  it('puts T and its source, the manager, Ready since, the grace and k in the evidence', () => {
    const verdict = decideUncordon(
      aCordonedNode(),
      anObservation({ uncordonedAt: [at(-120)] }),
      at(45),
      aConfig(),
    );
    expect(verdict).toEqual({
      node: 'ip-10-0-1-23.ec2.internal',
      decision: 'uncordon',
      reason: 'UNCORDON',
      evaluatedAt: at(45).toISOString(),
      evidence: {
        cordonedSince: new Date(T0.getTime() + 1000).toISOString(),
        cordonedSinceSource: 'managed-fields',
        cordonManager: 'node-termination-handler',
        cordonManagerKind: 'node-termination-handler',
        provenance: 'managed-fields',
        rebalanceTaint: false,
        ready: true,
        readySince: at(-60).toISOString(),
        effectiveGraceMinutes: 30,
        flapCount: 1,
        cordonedForMs: minutes(45) - 1000,
      },
    });
  });

  it.each([
    ['kubectl-cordon', 'kubectl-cordon'],
    ['kubectl-patch', 'kubectl-cordon'],
    ['karpenter', 'karpenter'],
    ['cluster-autoscaler', 'cluster-autoscaler'],
    ['nodes-manager', 'nodes-manager'],
    ['ancient-changes', 'ancient-changes'],
    ['ops-script', 'unknown'],
  ])('names a cordon by %s as %s', (manager, kind) => {
    const verdict = decideUncordon(aCordonedNode({ managedFields: ntBy(manager) }), anObservation(), at(20), aConfig());
    expect(verdict.evidence).toMatchObject({ cordonManager: manager, cordonManagerKind: kind });
  });

  it('says in plain words how long it still waits and who cordoned', () => {
    const waiting = decideUncordon(aCordonedNode(), anObservation(), new Date(at(8).getTime() + 1000), aConfig());
    expect(describeVerdict(waiting)).toBe('waiting 7 m more (grace 15 m, k=0)');
    const foreign = decideUncordon(aCordonedNode({ managedFields: ntBy('kubectl-cordon') }), anObservation(), at(8), aConfig());
    expect(describeVerdict(foreign)).toBe('not ours: kubectl-cordon (kubectl-cordon)');
  });

  it.each([
    ['a node not Ready says since when', { status: 'False', lastTransitionTime: at(10) }, R.NOT_READY, `not Ready since ${at(10).toISOString()}`],
    ['a node whose Ready condition has no time says so', { status: 'Unknown' }, R.NOT_READY, 'not Ready since an unknown time'],
    [
      'a node Ready only after the cordon says since when, and since when it is cordoned',
      { status: 'True', lastTransitionTime: at(5) },
      R.NOT_READY_SINCE_CORDON,
      `not Ready continuously since the cordon at ${new Date(T0.getTime() + 1000).toISOString()}: Ready only since ${at(5).toISOString()}`,
    ],
  ] as const)('%s', (_sentence, ready, reason, description) => {
    const verdict = decideUncordon(aCordonedNode({ ready }), anObservation(), at(20), aConfig());
    expect(verdict.reason).toBe(reason);
    expect(describeVerdict(verdict)).toBe(description);
  });
});

describe('cordonOwner', () => {
  it.each([
    ['finds the entry owning f:spec.f:unschedulable', [kubeletEntry(), cordonEntry('node-termination-handler', T0)], { manager: 'node-termination-handler', time: T0 }],
    ['ignores entries that own other spec fields', [{ manager: 'kubectl-label', time: T0, fieldsV1: { 'f:spec': { 'f:podCIDR': {} } } }], undefined],
    ['ignores entries without fieldsV1', [{ manager: 'x', time: T0 }], undefined],
    ['takes the most recent of shared owners', [cordonEntry('a', at(-5)), cordonEntry('b', at(5)), cordonEntry('c', at(1))], { manager: 'b', time: at(5) }],
    ['is undefined without managedFields', [], undefined],
  ])('%s', (_sentence, managedFields, owner) => {
    expect(cordonOwner(managedFields)).toEqual(owner);
  });
});

describe('selectWithinBudget', () => {
  const uncordon = (node: string, cordonedMinutes: number): UncordonVerdict => ({
    node,
    decision: 'uncordon',
    reason: 'UNCORDON',
    evidence: { cordonedSince: at(cordonedMinutes).toISOString() },
    evaluatedAt: at(60).toISOString(),
  });
  const skipped: UncordonVerdict = { node: 'z', decision: 'skip', reason: 'NOT_CORDONED', evidence: {}, evaluatedAt: at(60).toISOString() };

  it.each([
    ['keeps everything when the budget allows', 5, ['a', 'b', 'c']],
    ['keeps the oldest-cordoned first', 2, ['b', 'c']],
    ['keeps the single oldest', 1, ['b']],
    ['keeps none with a zero budget', 0, []],
  ])('%s', (_sentence, max, kept) => {
    const input = [uncordon('a', 5), uncordon('b', -10), uncordon('c', 0), skipped];
    const out = selectWithinBudget(input, max, 30_000);
    expect(out.filter((v) => v.decision === 'uncordon').map((v) => v.node)).toEqual(kept);
    for (const v of out.filter((v) => v.decision === 'wait')) {
      expect(v).toMatchObject({ reason: 'BUDGET_EXHAUSTED', requeueAfterMs: 30_000 });
    }
    expect(out).toHaveLength(4);
    expect(out[3]).toBe(skipped);
  });

  it('breaks ties on T by node name', () => {
    const out = selectWithinBudget([uncordon('n2', 0), uncordon('n1', 0)], 1);
    expect(out.map((v) => v.decision)).toEqual(['wait', 'uncordon']);
  });
});

describe('budgetLeft', () => {
  const WINDOW = 60_000;
  const now = at(10);
  const ago = (ms: number) => new Date(now.getTime() - ms);

  it.each([
    ['a quiet window leaves the whole budget; what this cycle takes frees one window from now', [], 3, { allowed: 3, freesInMs: WINDOW }],
    ['uncordons in the window use it up', [ago(0), ago(0), ago(0)], 3, { allowed: 0, freesInMs: WINDOW }],
    ['a partly used window leaves the rest; the oldest frees first', [ago(20_000), ago(5_000)], 3, { allowed: 1, freesInMs: 40_000 }],
    ['an uncordon exactly one window ago no longer counts', [ago(WINDOW), ago(1_000)], 2, { allowed: 1, freesInMs: 59_000 }],
    ['more uncordons than the budget (another leader, a lower setting) leave none', [ago(1), ago(2), ago(3), ago(4)], 2, { allowed: 0, freesInMs: WINDOW - 4 }],
  ])('%s', (_sentence, recent, max, expected) => {
    expect(budgetLeft(max, WINDOW, recent, now)).toEqual(expected);
  });
});

describe('uncordonPatch', () => {
  it('clears the cordon and the rebalance taint, keeps others, guards on resourceVersion and annotates', () => {
    const keep = taint('dedicated', 'NoSchedule', 'infra');
    const patch = uncordonPatch(aCordonedNode({ taints: [CORDON_TAINT, REBALANCE_TAINT, keep] }), at(30), 'spot rebalance cordon reversed');
    expect(patch).toEqual({
      metadata: {
        resourceVersion: '4711',
        annotations: {
          'nodes-manager/uncordoned-at': at(30).toISOString(),
          'nodes-manager/uncordon-reason': 'spot rebalance cordon reversed',
        },
      },
      spec: { unschedulable: false, taints: [keep] },
    });
  });

  it('writes an empty taint list when only ours were there', () => {
    expect(uncordonPatch(aCordonedNode(), at(30), 'r').spec.taints).toEqual([]);
  });
});
