import {
  DRAIN_PDB_RETRY_SECONDS,
  DrainFailureReason,
  DrainPodOutcome,
  type DrainOptions,
  type DrainRefuseReason,
  type DrainSkipReason,
} from '@nodes-manager/contracts';

/** DrainPod — what a drain needs to know about one pod on the node. */
export interface DrainPod {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  /** The ownerReference with `controller: true`. */
  readonly controller?: { readonly kind: string; readonly name: string };
  /** A static pod's API mirror (annotation `kubernetes.io/config.mirror`). */
  readonly mirror: boolean;
  readonly hasEmptyDir: boolean;
  readonly deletionTimestamp?: Date;
}

/**
 * DrainPlan — `kubectl drain` triage of a node's pods. `evict` go through the Eviction API (PDBs apply);
 * `delete` are finished pods, deleted outright; `skip` stay (already-terminating ones are still awaited);
 * any `refuse` makes the drain fail before it evicts anything, as kubectl does.
 */
export interface DrainPlan {
  readonly evict: DrainPod[];
  readonly delete: DrainPod[];
  readonly skip: Array<{ readonly pod: DrainPod; readonly reason: DrainSkipReason }>;
  readonly refuse: Array<{ readonly pod: DrainPod; readonly reason: DrainRefuseReason }>;
}

export type DrainFilterOptions = Pick<DrainOptions, 'force' | 'deleteEmptyDirData' | 'ignoreDaemonSets'>;

const finished = (pod: DrainPod): boolean => pod.phase === 'Succeeded' || pod.phase === 'Failed';

/**
 * planDrain — triages pods in kubectl's order: mirror pods skipped; pods already terminating skipped (and
 * awaited); DaemonSet pods skipped with `ignoreDaemonSets`, else refused; finished pods deleted whatever their
 * volumes or owner; emptyDir pods refused unless `deleteEmptyDirData`; pods without a controller refused
 * unless `force`. A pod is refused for the first reason found.
 */
export function planDrain(pods: readonly DrainPod[], options: DrainFilterOptions): DrainPlan {
  const plan: DrainPlan = { evict: [], delete: [], skip: [], refuse: [] };
  for (const pod of pods) {
    if (pod.mirror) plan.skip.push({ pod, reason: 'MIRROR' });
    else if (pod.deletionTimestamp) plan.skip.push({ pod, reason: 'ALREADY_TERMINATED' });
    else if (pod.controller?.kind === 'DaemonSet') {
      if (options.ignoreDaemonSets) plan.skip.push({ pod, reason: 'DAEMONSET' });
      else plan.refuse.push({ pod, reason: 'DAEMONSET_NOT_IGNORED' });
    } else if (finished(pod)) plan.delete.push(pod);
    else if (pod.hasEmptyDir && !options.deleteEmptyDirData) plan.refuse.push({ pod, reason: 'EMPTYDIR_DATA' });
    else if (!pod.controller && !options.force) plan.refuse.push({ pod, reason: 'NO_CONTROLLER' });
    else plan.evict.push(pod);
  }
  return plan;
}

/**
 * DrainPodProgress — one pod through the drain loop:
 * `pending` → (`evict` action) `requested` → `evicted` | `blocked` (429, retried at `retryAt`) | `failed` → `gone`.
 */
export interface DrainPodProgress {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  /** `delete`: a finished pod, deleted rather than evicted. `await`: already terminating, only awaited. */
  readonly mode: 'evict' | 'delete' | 'await';
  readonly phase: 'pending' | 'requested' | 'blocked' | 'evicted' | 'failed' | 'gone';
  readonly attempts: number;
  readonly retryAt?: Date;
  readonly lastMessage?: string;
}

export interface DrainState {
  readonly startedAt: Date;
  readonly deadline: Date;
  readonly pods: readonly DrainPodProgress[];
  readonly refused: DrainPlan['refuse'];
}

/** EvictionResult — how the API answered one eviction (or deletion) request. */
export interface EvictionResult {
  readonly uid: string;
  /** `too-many-requests`: 429, a PodDisruptionBudget refused it. `not-found`: 404, the pod is already gone. */
  readonly outcome: 'accepted' | 'too-many-requests' | 'not-found' | 'error';
  readonly message?: string;
}

/** DrainObservations — what happened since the last step: request results, and the pods still on the node. */
export interface DrainObservations {
  readonly results?: readonly EvictionResult[];
  /** UIDs of pods still present on the node (from a synced cache); a pod absent from it is gone. */
  readonly presentUids: readonly string[];
}

export type DrainStep =
  | { readonly action: 'evict'; readonly pods: DrainPodProgress[]; readonly state: DrainState }
  | { readonly action: 'wait'; readonly requeueAfterMs: number; readonly state: DrainState }
  | { readonly action: 'complete'; readonly state: DrainState }
  | {
      readonly action: 'fail';
      readonly reason: DrainFailureReason;
      readonly message: string;
      readonly state: DrainState;
    };

/** How often the loop looks again while it only waits for pods to go. */
export const DRAIN_POLL_MS = 2_000;
const PDB_RETRY_MS = DRAIN_PDB_RETRY_SECONDS * 1000;

/** initialDrainState — the loop's start: evict and delete from the plan; already-terminating pods awaited. */
/** drainDeadline — when a drain started at `startedAt` must have ended: startedAt + timeoutSeconds (kept across restarts). */
export function drainDeadline(startedAt: Date, options: Pick<DrainOptions, 'timeoutSeconds'>): Date {
  return new Date(startedAt.getTime() + options.timeoutSeconds * 1000);
}

/**
 * timeoutBeforeLoop — the failure of a drain whose deadline passed before its loop could run (a resumed operation
 * picked up too late, or API reads failing until then): by the pods its saved progress last showed, blocked by a
 * PodDisruptionBudget or else not gone; undefined while the deadline is still ahead.
 */
export function timeoutBeforeLoop(
  startedAt: Date,
  options: Pick<DrainOptions, 'timeoutSeconds'>,
  savedPods: ReadonlyArray<{ readonly phase?: string }>,
  now: Date,
): { readonly reason: DrainFailureReason; readonly message: string } | undefined {
  const deadline = drainDeadline(startedAt, options);
  if (now.getTime() < deadline.getTime()) return undefined;
  const blocked = savedPods.some((p) => p.phase === 'blocked');
  return {
    reason: blocked ? DrainFailureReason.TIMEOUT_BLOCKED_BY_PDB : DrainFailureReason.TIMEOUT_PODS_NOT_GONE,
    message: `timed out at ${deadline.toISOString()} before the drain could go on`,
  };
}

export function initialDrainState(plan: DrainPlan, startedAt: Date, options: Pick<DrainOptions, 'timeoutSeconds'>): DrainState {
  const progress = (pod: DrainPod, mode: DrainPodProgress['mode']): DrainPodProgress => ({
    uid: pod.uid,
    namespace: pod.namespace,
    name: pod.name,
    mode,
    phase: mode === 'await' ? 'evicted' : 'pending',
    attempts: 0,
  });
  return {
    startedAt,
    deadline: drainDeadline(startedAt, options),
    pods: [
      ...plan.evict.map((p) => progress(p, 'evict')),
      ...plan.delete.map((p) => progress(p, 'delete')),
      ...plan.skip.filter((s) => s.reason === 'ALREADY_TERMINATED').map((s) => progress(s.pod, 'await')),
    ],
    refused: plan.refuse,
  };
}

const podName = (p: { namespace: string; name: string }): string => `${p.namespace}/${p.name}`;

/**
 * nextDrainStep — one step of the drain loop. Folds in the observations, then: refused pods → fail;
 * an eviction error → fail; every pod gone → complete; past the deadline → fail (blocked by a PDB, or evicted
 * pods not gone); pods due (never tried, or a 429 whose 5 s retry is due) → evict them; else wait until the
 * next retry, the next poll or the deadline, whichever is first.
 */
export function nextDrainStep(state: DrainState, now: Date, observations: DrainObservations): DrainStep {
  if (state.refused.length > 0) {
    const list = state.refused.map((r) => `${podName(r.pod)} (${r.reason})`).join(', ');
    return { action: 'fail', reason: DrainFailureReason.PODS_REFUSED, message: `refused: ${list}`, state };
  }

  const results = new Map((observations.results ?? []).map((r) => [r.uid, r]));
  const present = new Set(observations.presentUids);
  let failed: { pod: DrainPodProgress; message: string } | undefined;
  const pods = state.pods.map((pod): DrainPodProgress => {
    let next = pod;
    const result = results.get(pod.uid);
    if (result && pod.phase === 'requested') {
      const { retryAt: _retry, ...rest } = pod;
      const message = result.message !== undefined ? { lastMessage: result.message } : {};
      switch (result.outcome) {
        case 'accepted':
          next = { ...rest, ...message, phase: 'evicted' };
          break;
        case 'not-found':
          next = { ...rest, ...message, phase: 'gone' };
          break;
        case 'too-many-requests':
          next = { ...rest, ...message, phase: 'blocked', retryAt: new Date(now.getTime() + PDB_RETRY_MS) };
          break;
        case 'error':
          next = { ...rest, ...message, phase: 'failed' };
          failed ??= { pod, message: result.message ?? 'eviction failed' };
          break;
      }
    }
    return next.phase !== 'gone' && !present.has(next.uid) ? { ...next, phase: 'gone' } : next;
  });
  const after: DrainState = { ...state, pods };

  if (failed) {
    return {
      action: 'fail',
      reason: DrainFailureReason.EVICTION_FAILED,
      message: `${podName(failed.pod)}: ${failed.message}`,
      state: after,
    };
  }
  if (pods.every((p) => p.phase === 'gone')) return { action: 'complete', state: after };

  if (now.getTime() >= state.deadline.getTime()) {
    const blocked = pods.filter((p) => p.phase === 'blocked' || p.phase === 'pending');
    const stuck = blocked.length > 0 ? blocked : pods.filter((p) => p.phase !== 'gone');
    return {
      action: 'fail',
      reason: blocked.length > 0 ? DrainFailureReason.TIMEOUT_BLOCKED_BY_PDB : DrainFailureReason.TIMEOUT_PODS_NOT_GONE,
      message: `timed out; still there: ${stuck.map(podName).join(', ')}`,
      state: after,
    };
  }

  const due = pods.filter(
    (p) => p.phase === 'pending' || (p.phase === 'blocked' && (p.retryAt?.getTime() ?? 0) <= now.getTime()),
  );
  if (due.length > 0) {
    const dueUids = new Set(due.map((p) => p.uid));
    const requested = pods.map((p): DrainPodProgress =>
      dueUids.has(p.uid) ? { ...p, phase: 'requested', attempts: p.attempts + 1 } : p,
    );
    return {
      action: 'evict',
      pods: requested.filter((p) => dueUids.has(p.uid)),
      state: { ...after, pods: requested },
    };
  }

  const untilDeadline = state.deadline.getTime() - now.getTime();
  const untilRetry = pods
    .filter((p) => p.phase === 'blocked' && p.retryAt)
    .map((p) => p.retryAt!.getTime() - now.getTime());
  return { action: 'wait', requeueAfterMs: Math.min(DRAIN_POLL_MS, untilDeadline, ...untilRetry), state: after };
}

/** drainPodOutcomes — the per-pod result recorded on the operation, for every pod the plan looked at. */
export function drainPodOutcomes(plan: DrainPlan, state: DrainState): Array<{ uid: string; pod: string; outcome: DrainPodOutcome }> {
  const progress = new Map(state.pods.map((p) => [p.uid, p]));
  const of = (pod: DrainPod, outcome: DrainPodOutcome) => ({ uid: pod.uid, pod: podName(pod), outcome });
  const moved = (pod: DrainPod, gone: DrainPodOutcome): DrainPodOutcome => {
    const p = progress.get(pod.uid);
    if (!p || p.phase === 'gone') return gone;
    if (p.phase === 'blocked' || p.phase === 'pending') return DrainPodOutcome.BLOCKED_BY_PDB;
    if (p.phase === 'failed') return DrainPodOutcome.EVICTION_FAILED;
    return DrainPodOutcome.NOT_GONE;
  };
  return [
    ...plan.evict.map((pod) => of(pod, moved(pod, DrainPodOutcome.EVICTED))),
    ...plan.delete.map((pod) => of(pod, moved(pod, DrainPodOutcome.DELETED))),
    ...plan.skip.map(({ pod, reason }) =>
      of(
        pod,
        reason === 'MIRROR'
          ? DrainPodOutcome.SKIPPED_MIRROR
          : reason === 'DAEMONSET'
            ? DrainPodOutcome.SKIPPED_DAEMONSET
            : DrainPodOutcome.SKIPPED_ALREADY_TERMINATED,
      ),
    ),
    ...plan.refuse.map(({ pod, reason }) =>
      of(
        pod,
        reason === 'NO_CONTROLLER'
          ? DrainPodOutcome.REFUSED_NO_CONTROLLER
          : reason === 'EMPTYDIR_DATA'
            ? DrainPodOutcome.REFUSED_EMPTYDIR_DATA
            : DrainPodOutcome.REFUSED_DAEMONSET_NOT_IGNORED,
      ),
    ),
  ];
}

/**
 * DrainLoop — what a drain carries from one step to the next, stored on its row (the row is the state: a restart or
 * a new leader goes on from it): the plan it made once, where each pod is, the answers of the evictions of the last
 * step (folded in by the next), and the pods last seen on the node (kept when a listing fails).
 */
export interface DrainLoop {
  readonly plan: DrainPlan;
  readonly state: DrainState;
  readonly results: readonly EvictionResult[];
  readonly present: readonly string[];
}

/**
 * DrainRowState — the row's `state`: the leadership term that last moved the drain on (another term means a restart
 * or a failover resumed it) and, once the drain has made its plan, its loop.
 */
export interface DrainRowState {
  readonly term: string;
  readonly loop?: DrainLoop;
}

/** drainStateToJson — the row's state as stored (times as ISO 8601 strings). */
export function drainStateToJson(s: DrainRowState): Record<string, unknown> {
  return JSON.parse(JSON.stringify(s)) as Record<string, unknown>;
}

const dateOf = (v: unknown): Date | undefined => (typeof v === 'string' || v instanceof Date ? new Date(v) : undefined);

/** drainStateFromJson — the stored state with its times as Dates again; undefined for none (a row of before). */
export function drainStateFromJson(json: unknown): DrainRowState | undefined {
  if (!json || typeof json !== 'object') return undefined;
  const s = json as { term?: unknown; loop?: { plan: DrainPlan; state: DrainState; results?: EvictionResult[]; present?: string[] } };
  if (typeof s.term !== 'string') return undefined;
  if (!s.loop) return { term: s.term };
  const pod = (p: DrainPod): DrainPod => {
    const { deletionTimestamp, ...rest } = p;
    const at = dateOf(deletionTimestamp);
    return at ? { ...rest, deletionTimestamp: at } : rest;
  };
  const progress = (p: DrainPodProgress): DrainPodProgress => {
    const { retryAt, ...rest } = p;
    const at = dateOf(retryAt);
    return at ? { ...rest, retryAt: at } : rest;
  };
  const { plan, state } = s.loop;
  return {
    term: s.term,
    loop: {
      plan: {
        evict: plan.evict.map(pod),
        delete: plan.delete.map(pod),
        skip: plan.skip.map((x) => ({ pod: pod(x.pod), reason: x.reason })),
        refuse: plan.refuse.map((x) => ({ pod: pod(x.pod), reason: x.reason })),
      },
      state: {
        startedAt: dateOf(state.startedAt)!,
        deadline: dateOf(state.deadline)!,
        pods: state.pods.map(progress),
        refused: state.refused.map((x) => ({ pod: pod(x.pod), reason: x.reason })),
      },
      results: s.loop.results ?? [],
      present: s.loop.present ?? [],
    },
  };
}
