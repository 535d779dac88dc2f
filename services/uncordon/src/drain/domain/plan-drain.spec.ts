import { describe, expect, it } from '@jest/globals';
import { aDrainPod, aNakedPod } from '../../../test/drain-pod.builder.js';
import {
  DRAIN_POLL_MS,
  drainPodOutcomes,
  initialDrainState,
  nextDrainStep,
  planDrain,
  timeoutBeforeLoop,
  type DrainFilterOptions,
  type DrainPod,
  type DrainState,
  type EvictionResult,
} from './plan-drain.js';

const defaults: DrainFilterOptions = { force: false, deleteEmptyDirData: false, ignoreDaemonSets: true };
const ds = { kind: 'DaemonSet', name: 'aws-node' };

type Verdict = 'evict' | 'delete' | `skip:${string}` | `refuse:${string}`;

const verdictOf = (pod: DrainPod, options: DrainFilterOptions): Verdict => {
  const plan = planDrain([pod], options);
  if (plan.evict.length) return 'evict';
  if (plan.delete.length) return 'delete';
  if (plan.skip.length) return `skip:${plan.skip[0]!.reason}`;
  return `refuse:${plan.refuse[0]!.reason}`;
};

describe('planDrain', () => {
  it.each<[string, DrainPod, Partial<DrainFilterOptions>, Verdict]>([
    ['a ReplicaSet pod is evicted', aDrainPod(), {}, 'evict'],
    ['a StatefulSet pod is evicted', aDrainPod({ controller: { kind: 'StatefulSet', name: 'db' } }), {}, 'evict'],
    ['a Job pod is evicted', aDrainPod({ controller: { kind: 'Job', name: 'nightly' } }), {}, 'evict'],
    ['a DaemonSet pod is skipped when DaemonSets are ignored', aDrainPod({ controller: ds }), {}, 'skip:DAEMONSET'],
    ['a DaemonSet pod refuses the drain when they are not ignored', aDrainPod({ controller: ds }), { ignoreDaemonSets: false }, 'refuse:DAEMONSET_NOT_IGNORED'],
    ['a DaemonSet pod with emptyDir is still only skipped', aDrainPod({ controller: ds, hasEmptyDir: true }), {}, 'skip:DAEMONSET'],
    ['a mirror pod is skipped', aNakedPod({ mirror: true }), {}, 'skip:MIRROR'],
    ['a mirror pod is skipped even with force', aNakedPod({ mirror: true }), { force: true }, 'skip:MIRROR'],
    ['a terminating pod is skipped (and awaited)', aDrainPod({ deletionTimestamp: new Date('2026-03-01T10:00:00Z') }), {}, 'skip:ALREADY_TERMINATED'],
    ['a pod without a controller refuses the drain', aNakedPod(), {}, 'refuse:NO_CONTROLLER'],
    ['a pod without a controller is evicted with force', aNakedPod(), { force: true }, 'evict'],
    ['an emptyDir pod refuses the drain', aDrainPod({ hasEmptyDir: true }), {}, 'refuse:EMPTYDIR_DATA'],
    ['an emptyDir pod is evicted with deleteEmptyDirData', aDrainPod({ hasEmptyDir: true }), { deleteEmptyDirData: true }, 'evict'],
    ['a naked emptyDir pod needs both flags', aNakedPod({ hasEmptyDir: true }), { deleteEmptyDirData: true }, 'refuse:NO_CONTROLLER'],
    ['a naked emptyDir pod goes with both flags', aNakedPod({ hasEmptyDir: true }), { deleteEmptyDirData: true, force: true }, 'evict'],
    ['a succeeded pod is simply deleted', aDrainPod({ phase: 'Succeeded' }), {}, 'delete'],
    ['a failed naked pod with emptyDir is simply deleted', aNakedPod({ phase: 'Failed', hasEmptyDir: true }), {}, 'delete'],
    ['a pending pod is evicted', aDrainPod({ phase: 'Pending' }), {}, 'evict'],
  ])('%s', (_sentence, pod, options, verdict) => {
    expect(verdictOf(pod, { ...defaults, ...options })).toBe(verdict);
  });

  it('triages a mixed node in one plan', () => {
    const pods = [aDrainPod({ name: 'a' }), aDrainPod({ name: 'b', controller: ds }), aNakedPod({ name: 'c' })];
    const plan = planDrain(pods, defaults);
    expect(plan.evict.map((p) => p.name)).toEqual(['a']);
    expect(plan.skip.map((s) => s.pod.name)).toEqual(['b']);
    expect(plan.refuse.map((r) => [r.pod.name, r.reason])).toEqual([['c', 'NO_CONTROLLER']]);
  });
});

const START = new Date('2026-03-01T10:00:00Z');
const s = (seconds: number): Date => new Date(START.getTime() + seconds * 1000);

/** startDrain — the loop's first state for these pods under the default options. */
function startDrain(pods: DrainPod[], timeoutSeconds = 600): DrainState {
  return initialDrainState(planDrain(pods, defaults), START, { timeoutSeconds });
}
const result = (uid: string, outcome: EvictionResult['outcome'], message?: string): EvictionResult => ({
  uid,
  outcome,
  ...(message ? { message } : {}),
});

describe('nextDrainStep', () => {
  const p1 = aDrainPod({ uid: 'p1', name: 'p1' });
  const p2 = aDrainPod({ uid: 'p2', name: 'p2' });

  it('evicts every pod first, then waits for them to go, then completes', () => {
    let step = nextDrainStep(startDrain([p1, p2]), s(0), { presentUids: ['p1', 'p2'] });
    expect(step.action).toBe('evict');
    expect(step.action === 'evict' && step.pods.map((p) => p.uid)).toEqual(['p1', 'p2']);
    step = nextDrainStep(step.state, s(1), { results: [result('p1', 'accepted'), result('p2', 'accepted')], presentUids: ['p1', 'p2'] });
    expect(step).toMatchObject({ action: 'wait', requeueAfterMs: DRAIN_POLL_MS });
    step = nextDrainStep(step.state, s(3), { presentUids: ['p2'] });
    expect(step.action).toBe('wait');
    step = nextDrainStep(step.state, s(5), { presentUids: [] });
    expect(step.action).toBe('complete');
  });

  it('retries a PDB 429 every 5 s and succeeds when the budget allows', () => {
    let step = nextDrainStep(startDrain([p1]), s(0), { presentUids: ['p1'] });
    step = nextDrainStep(step.state, s(0), { results: [result('p1', 'too-many-requests', 'Cannot evict pod as it would violate the pod\'s disruption budget.')], presentUids: ['p1'] });
    expect(step).toMatchObject({ action: 'wait', requeueAfterMs: 2_000 });
    step = nextDrainStep(step.state, s(2), { presentUids: ['p1'] });
    expect(step).toMatchObject({ action: 'wait', requeueAfterMs: 2_000 });
    step = nextDrainStep(step.state, s(4), { presentUids: ['p1'] });
    expect(step).toMatchObject({ action: 'wait', requeueAfterMs: 1_000 });
    step = nextDrainStep(step.state, s(5), { presentUids: ['p1'] });
    expect(step.action).toBe('evict');
    expect(step.action === 'evict' && step.pods[0]!.attempts).toBe(2);
    step = nextDrainStep(step.state, s(5), { results: [result('p1', 'accepted')], presentUids: [] });
    expect(step.action).toBe('complete');
  });

  it.each<[string, number, EvictionResult['outcome'], string]>([
    ['a PDB that never allows fails at the timeout as blocked', 30, 'too-many-requests', 'TIMEOUT_BLOCKED_BY_PDB'],
    ['a pod that never goes fails at the timeout as not gone', 30, 'accepted', 'TIMEOUT_PODS_NOT_GONE'],
  ])('%s', (_sentence, timeoutSeconds, outcome, reason) => {
    let step = nextDrainStep(startDrain([p1], timeoutSeconds), s(0), { presentUids: ['p1'] });
    for (let t = 0; t <= timeoutSeconds && step.action !== 'fail'; t += 1) {
      const results = step.action === 'evict' ? [result('p1', outcome)] : [];
      step = nextDrainStep(step.state, s(t), { results, presentUids: ['p1'] });
    }
    expect(step).toMatchObject({ action: 'fail', reason });
    expect(step.action === 'fail' && step.message).toContain('default/p1');
  });

  it('never waits past the deadline', () => {
    let step = nextDrainStep(startDrain([p1], 10), s(0), { presentUids: ['p1'] });
    step = nextDrainStep(step.state, s(9.5), { results: [result('p1', 'accepted')], presentUids: ['p1'] });
    expect(step).toMatchObject({ action: 'wait', requeueAfterMs: 500 });
  });

  it('fails at once when pods are refused, before evicting anything', () => {
    const state = initialDrainState(planDrain([p1, aNakedPod({ name: 'naked' })], defaults), START, { timeoutSeconds: 600 });
    const step = nextDrainStep(state, s(0), { presentUids: ['p1'] });
    expect(step).toMatchObject({ action: 'fail', reason: 'PODS_REFUSED' });
    expect(step.action === 'fail' && step.message).toContain('default/naked (NO_CONTROLLER)');
  });

  it('fails on an eviction error that is neither 429 nor 404', () => {
    let step = nextDrainStep(startDrain([p1]), s(0), { presentUids: ['p1'] });
    step = nextDrainStep(step.state, s(1), { results: [result('p1', 'error', 'forbidden')], presentUids: ['p1'] });
    expect(step).toMatchObject({ action: 'fail', reason: 'EVICTION_FAILED', message: 'default/p1: forbidden' });
  });

  it('treats a 404 as gone', () => {
    let step = nextDrainStep(startDrain([p1]), s(0), { presentUids: ['p1'] });
    step = nextDrainStep(step.state, s(1), { results: [result('p1', 'not-found')], presentUids: ['p1'] });
    expect(step.action).toBe('complete');
  });

  it('completes at once for a node with nothing to evict', () => {
    const step = nextDrainStep(startDrain([aDrainPod({ controller: ds })]), s(0), { presentUids: [] });
    expect(step.action).toBe('complete');
  });

  it('waits for pods already terminating without evicting them', () => {
    const terminating = aDrainPod({ uid: 't', deletionTimestamp: s(-5) });
    let step = nextDrainStep(startDrain([terminating]), s(0), { presentUids: ['t'] });
    expect(step.action).toBe('wait');
    step = nextDrainStep(step.state, s(2), { presentUids: [] });
    expect(step.action).toBe('complete');
  });

  it('deletes finished pods through the same loop, marked as deletions', () => {
    const done = aDrainPod({ uid: 'd', phase: 'Succeeded' });
    const step = nextDrainStep(startDrain([done]), s(0), { presentUids: ['d'] });
    expect(step.action === 'evict' && step.pods.map((p) => p.mode)).toEqual(['delete']);
  });

  it('records each pod’s outcome', () => {
    const blocked = aDrainPod({ uid: 'b', name: 'b' });
    const plan = planDrain([p1, blocked, aDrainPod({ name: 'ds', controller: ds })], defaults);
    let step = nextDrainStep(initialDrainState(plan, START, { timeoutSeconds: 10 }), s(0), { presentUids: ['p1', 'b'] });
    step = nextDrainStep(step.state, s(1), { results: [result('p1', 'accepted'), result('b', 'too-many-requests')], presentUids: ['b'] });
    expect(drainPodOutcomes(plan, step.state).map((o) => [o.pod, o.outcome])).toEqual([
      ['default/p1', 'EVICTED'],
      ['default/b', 'BLOCKED_BY_PDB'],
      ['default/ds', 'SKIPPED_DAEMONSET'],
    ]);
  });
});

describe('timeoutBeforeLoop', () => {
  const started = new Date('2026-03-01T10:00:00Z');
  const after = (seconds: number) => new Date(started.getTime() + seconds * 1000);

  it.each([
    ['a drain within its deadline goes on', 59, [], undefined],
    ['a drain at its deadline with no saved pods failed with pods not gone', 60, [], 'TIMEOUT_PODS_NOT_GONE'],
    ['a resumed drain past its deadline whose pods were blocked failed blocked by a PDB', 600, [{ phase: 'gone' }, { phase: 'blocked' }], 'TIMEOUT_BLOCKED_BY_PDB'],
    ['a resumed drain past its deadline whose pods were terminating failed with pods not gone', 600, [{ phase: 'evicted' }], 'TIMEOUT_PODS_NOT_GONE'],
  ])('%s', (_sentence, seconds, pods, reason) => {
    expect(timeoutBeforeLoop(started, { timeoutSeconds: 60 }, pods, after(seconds))?.reason).toBe(reason);
  });
});
