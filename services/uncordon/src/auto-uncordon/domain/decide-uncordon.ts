import {
  AUTO_UNCORDON_OPT_OUT_ANNOTATION,
  AUTO_UNCORDON_OPT_OUT_VALUE,
  CLUSTER_AUTOSCALER_DELETION_TAINT_KEY,
  DEFAULT_CORDON_MANAGERS,
  DRAIN_OPERATION_ANNOTATION,
  EXCLUDE_FROM_LOAD_BALANCERS_LABEL_KEY,
  KARPENTER_DISRUPTION_TAINT_KEYS,
  NODES_MANAGER_FIELD_MANAGER,
  NTH_ACTION_LABEL_KEY,
  NTH_REBALANCE_TAINT_KEY,
  UNCORDON_REASON_ANNOTATION,
  UNCORDONED_AT_ANNOTATION,
  UNSCHEDULABLE_TAINT_KEY,
  UncordonReason,
  type CordonManagerKind,
  type CordonTimeSource,
  type UncordonEvidence,
  type UncordonVerdict,
} from '@nodes-manager/contracts';
import type { CordonedNodeSnapshot, ManagedFieldsEntrySnapshot, NodeTaint } from './cordoned-node.js';

/** UncordonRuleConfig — the `AUTO_UNCORDON_*` settings the rule reads (the service's whole configuration is `UncordonConfig`, config.ts). */
export interface UncordonRuleConfig {
  readonly enabled: boolean;
  readonly dryRun: boolean;
  /** Decimals allowed. */
  readonly gracePeriodMinutes: number;
  /** Field managers whose cordon is NTH's (default `['node-termination-handler']`). */
  readonly cordonManagers: readonly string[];
  readonly maxPerCycle: number;
}

export const DEFAULT_UNCORDON_RULE_CONFIG: UncordonRuleConfig = {
  enabled: true,
  dryRun: false,
  gracePeriodMinutes: 15,
  cordonManagers: DEFAULT_CORDON_MANAGERS,
  maxPerCycle: 5,
};

/**
 * CordonObservation — what the service remembers about a node's cordon, in Postgres across restarts:
 * when it first saw this cordon (T when managedFields carry no time) and when it uncordoned the node before
 * (for the flap back-off; only the last 24 h count).
 */
export interface CordonObservation {
  readonly firstSeenCordonedAt: Date;
  readonly uncordonedAt: readonly Date[];
}

/** CordonOwner — the managedFields entry owning `f:spec.f:unschedulable`. */
export interface CordonOwner {
  readonly manager: string;
  readonly time?: Date;
}

const MINUTE_MS = 60_000;
const FLAP_WINDOW_MS = 24 * 60 * MINUTE_MS;

/**
 * cordonOwners — every entry whose `fieldsV1` holds `f:spec` → `f:unschedulable`: one for Update operations,
 * several only when appliers share the field.
 */
export function cordonOwners(managedFields: readonly ManagedFieldsEntrySnapshot[]): CordonOwner[] {
  return managedFields
    .filter((entry) => ownsUnschedulable(entry.fieldsV1))
    .map((entry) => ({ manager: entry.manager ?? '', ...(entry.time ? { time: entry.time } : {}) }));
}

/**
 * cordonOwner — the entry owning `f:spec.f:unschedulable`; of shared owners the most recent (its time is the
 * cordon's T). Undefined when no entry owns it (managedFields stripped, or never written through the API).
 */
export function cordonOwner(managedFields: readonly ManagedFieldsEntrySnapshot[]): CordonOwner | undefined {
  let owner: CordonOwner | undefined;
  for (const candidate of cordonOwners(managedFields)) {
    if (!owner || (candidate.time && (!owner.time || candidate.time.getTime() > owner.time.getTime()))) {
      owner = candidate;
    }
  }
  return owner;
}

function ownsUnschedulable(fieldsV1: unknown): boolean {
  if (typeof fieldsV1 !== 'object' || fieldsV1 === null) return false;
  const spec = (fieldsV1 as Record<string, unknown>)['f:spec'];
  return typeof spec === 'object' && spec !== null && 'f:unschedulable' in spec;
}

/** cordonManagerKind — classifies a field manager name for the evidence and the API. */
export function cordonManagerKind(manager: string): CordonManagerKind {
  if (manager === 'node-termination-handler' || manager === 'aws-node-termination-handler') {
    return 'node-termination-handler';
  }
  if (manager.startsWith('kubectl')) return 'kubectl-cordon';
  if (manager.includes('karpenter')) return 'karpenter';
  if (manager.includes('cluster-autoscaler')) return 'cluster-autoscaler';
  if (manager === NODES_MANAGER_FIELD_MANAGER) return 'nodes-manager';
  if (manager === 'ancient-changes') return 'ancient-changes';
  return 'unknown';
}

const isCordonTaint = (t: NodeTaint): boolean => t.key === UNSCHEDULABLE_TAINT_KEY && t.effect === 'NoSchedule';
const isRebalanceTaint = (t: NodeTaint): boolean => t.key === NTH_REBALANCE_TAINT_KEY;
const taintName = (t: NodeTaint): string => `${t.key}:${t.effect}`;

/** effectiveGraceMinutes — `gracePeriodMinutes × 2^k`: each uncordon in the last 24 h doubles the wait. */
export function effectiveGraceMinutes(gracePeriodMinutes: number, flapCount: number): number {
  return gracePeriodMinutes * 2 ** flapCount;
}

/** flapCount — k: uncordons at or before `now` and less than 24 h before it. */
export function flapCount(uncordonedAt: readonly Date[], now: Date): number {
  const t = now.getTime();
  return uncordonedAt.filter((at) => at.getTime() <= t && t - at.getTime() < FLAP_WINDOW_MS).length;
}

/**
 * latestInstantOf — a managedFields time has second precision: the write happened somewhere in
 * `[t, t + 1 s)`. The grace counts from the end of that second, so a cordon is never reversed early
 * (docs/auto-uncordon.md). A time that carries milliseconds is taken as it is.
 */
export function latestInstantOf(t: Date): Date {
  return t.getTime() % 1000 === 0 ? new Date(t.getTime() + 1000) : t;
}

/**
 * decideUncordon — docs/auto-uncordon.md clauses 1–5 on one fresh read of a node (clause 6 is {@link selectWithinBudget}).
 *
 * Checks run cheapest-to-explain first, and the first failing clause is the reason:
 * not cordoned → clause 3 exclusions → clause 1 taints → clause 2 provenance → clause 4 T and Ready →
 * clause 5 grace. Only a grace shortfall is a `wait` (the node will qualify by itself); everything else is a
 * `skip` until the node changes.
 *
 * Clause 2 is read strictly: when managedFields entries own `f:spec.f:unschedulable`, every owner must be in
 * `config.cordonManagers` — NTH's rebalance taint does not launder a cordon that `kubectl-cordon`, Karpenter,
 * cluster-autoscaler, our own drain, `ancient-changes` or an unknown manager wrote last. The rebalance taint is
 * the provenance only when no entry owns the field (managedFields stripped by a cache, say).
 *
 * A rule that holds under `enabled=false` or `dryRun=true` is reported as `skip` with `DISABLED` / `DRY_RUN`,
 * keeping the full evidence, so the API shows what would have happened.
 */
export function decideUncordon(
  node: CordonedNodeSnapshot,
  observation: CordonObservation | undefined,
  now: Date,
  config: UncordonRuleConfig,
): UncordonVerdict {
  const verdict = (
    decision: UncordonVerdict['decision'],
    reason: UncordonReason,
    evidence: UncordonEvidence,
    requeueAfterMs?: number,
  ): UncordonVerdict => ({
    node: node.name,
    decision,
    reason,
    evidence,
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
    evaluatedAt: now.toISOString(),
  });

  if (!node.unschedulable) return verdict('skip', UncordonReason.NOT_CORDONED, {});

  // Clause 3: anything that says another actor is taking this node away.
  if (node.deletionTimestamp) return verdict('skip', UncordonReason.BEING_DELETED, {});
  const karpenter = node.taints.filter((t) => (KARPENTER_DISRUPTION_TAINT_KEYS as readonly string[]).includes(t.key));
  if (karpenter.length > 0) {
    return verdict('skip', UncordonReason.KARPENTER_DISRUPTION_TAINT, { blockingTaints: karpenter.map(taintName) });
  }
  const autoscaler = node.taints.filter((t) => t.key === CLUSTER_AUTOSCALER_DELETION_TAINT_KEY);
  if (autoscaler.length > 0) {
    return verdict('skip', UncordonReason.CLUSTER_AUTOSCALER_DELETION_TAINT, {
      blockingTaints: autoscaler.map(taintName),
    });
  }
  if (EXCLUDE_FROM_LOAD_BALANCERS_LABEL_KEY in node.labels) {
    return verdict('skip', UncordonReason.EXCLUDED_FROM_LOAD_BALANCERS, {
      blockingKey: EXCLUDE_FROM_LOAD_BALANCERS_LABEL_KEY,
    });
  }
  if (NTH_ACTION_LABEL_KEY in node.labels) {
    return verdict('skip', UncordonReason.NTH_ACTION_LABEL, { blockingKey: NTH_ACTION_LABEL_KEY });
  }
  if (node.annotations[AUTO_UNCORDON_OPT_OUT_ANNOTATION] === AUTO_UNCORDON_OPT_OUT_VALUE) {
    return verdict('skip', UncordonReason.OPTED_OUT, { blockingKey: AUTO_UNCORDON_OPT_OUT_ANNOTATION });
  }
  // Our own drain: its cordon is ours even where an earlier NTH cordon still owns the field.
  if (DRAIN_OPERATION_ANNOTATION in node.annotations) {
    return verdict('skip', UncordonReason.DRAINING, { blockingKey: DRAIN_OPERATION_ANNOTATION });
  }

  // Clause 1: exactly one cordon taint, plus at most NTH's rebalance taint.
  const cordonTaints = node.taints.filter(isCordonTaint);
  const rebalanceTaints = node.taints.filter(isRebalanceTaint);
  const extra = node.taints.filter((t) => !isCordonTaint(t) && !isRebalanceTaint(t));
  if (extra.length > 0 || cordonTaints.length > 1 || rebalanceTaints.length > 1) {
    return verdict('skip', UncordonReason.EXTRA_TAINTS, {
      blockingTaints: (extra.length > 0 ? extra : node.taints).map(taintName),
    });
  }
  if (cordonTaints.length === 0) return verdict('skip', UncordonReason.CORDON_TAINT_MISSING, {});
  const rebalanceTaint = rebalanceTaints.length === 1;

  // Clause 2: provenance.
  const foreign = cordonOwners(node.managedFields).find((o) => !config.cordonManagers.includes(o.manager));
  const owner = foreign ?? cordonOwner(node.managedFields);
  const ownerEvidence: UncordonEvidence = owner
    ? { cordonManager: owner.manager, cordonManagerKind: cordonManagerKind(owner.manager), rebalanceTaint }
    : { rebalanceTaint };
  if (foreign) return verdict('skip', UncordonReason.CORDONED_BY_OTHER_MANAGER, ownerEvidence);
  if (!owner && !rebalanceTaint) return verdict('skip', UncordonReason.NO_PROVENANCE, ownerEvidence);
  const provenance: UncordonEvidence = {
    ...ownerEvidence,
    provenance: owner ? 'managed-fields' : 'rebalance-taint',
  };

  // Clause 4: T, and Ready continuously since T.
  const since: { at: Date; source: CordonTimeSource } | undefined = owner?.time
    ? { at: latestInstantOf(owner.time), source: 'managed-fields' }
    : observation
      ? { at: observation.firstSeenCordonedAt, source: 'first-seen' }
      : undefined;
  if (!since) return verdict('skip', UncordonReason.CORDON_TIME_UNKNOWN, provenance);
  const readyTransition = node.ready?.lastTransitionTime;
  const timed: UncordonEvidence = {
    ...provenance,
    cordonedSince: since.at.toISOString(),
    cordonedSinceSource: since.source,
    ready: node.ready?.status === 'True',
    ...(readyTransition ? { readySince: readyTransition.toISOString() } : {}),
  };
  if (node.ready?.status !== 'True') return verdict('skip', UncordonReason.NOT_READY, timed);
  // Ready is compared with the second the cordon was written in (both times have second precision).
  if (!readyTransition || readyTransition.getTime() > (owner?.time ?? since.at).getTime()) {
    return verdict('skip', UncordonReason.NOT_READY_SINCE_CORDON, timed);
  }

  // Clause 5: grace, doubled per flap in the last 24 h.
  const k = flapCount(observation?.uncordonedAt ?? [], now);
  const graceMinutes = effectiveGraceMinutes(config.gracePeriodMinutes, k);
  const cordonedForMs = now.getTime() - since.at.getTime();
  const graced: UncordonEvidence = { ...timed, effectiveGraceMinutes: graceMinutes, flapCount: k, cordonedForMs };
  const remainingMs = graceMinutes * MINUTE_MS - cordonedForMs;
  if (remainingMs > 0) {
    return verdict('wait', UncordonReason.WAITING_GRACE_PERIOD, graced, Math.ceil(remainingMs));
  }

  if (!config.enabled) return verdict('skip', UncordonReason.DISABLED, graced);
  if (config.dryRun) return verdict('skip', UncordonReason.DRY_RUN, graced);
  return verdict('uncordon', UncordonReason.UNCORDON, graced);
}

/**
 * selectWithinBudget — clause 6: at most `maxPerCycle` `uncordon` verdicts survive (the service passes what
 * {@link budgetLeft} allows), oldest cordon (T) first, then by node name; the rest become `wait` / `BUDGET_EXHAUSTED`,
 * requeued after `requeueAfterMs`.
 * Other verdicts pass through; the input order is kept.
 */
export function selectWithinBudget(
  verdicts: readonly UncordonVerdict[],
  maxPerCycle: number,
  requeueAfterMs = 5_000,
): UncordonVerdict[] {
  const cordonedAt = (v: UncordonVerdict): number =>
    v.evidence.cordonedSince ? Date.parse(v.evidence.cordonedSince) : Number.POSITIVE_INFINITY;
  const chosen = new Set(
    verdicts
      .filter((v) => v.decision === 'uncordon')
      .sort((a, b) => cordonedAt(a) - cordonedAt(b) || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0))
      .slice(0, Math.max(0, Math.floor(maxPerCycle))),
  );
  return verdicts.map((v) =>
    v.decision !== 'uncordon' || chosen.has(v)
      ? v
      : { ...v, decision: 'wait', reason: UncordonReason.BUDGET_EXHAUSTED, requeueAfterMs },
  );
}

/** CycleBudget — what is left of clause 6's budget for one cycle. */
export interface CycleBudget {
  /** How many uncordons this cycle may still make. */
  readonly allowed: number;
  /** When the window next frees a slot (the requeue of a node held back by the budget). */
  readonly freesInMs: number;
}

/**
 * budgetLeft — clause 6 over a sliding window: at most `max` uncordons per `windowMs` (the scan interval), however
 * many cycles run in it (each of our patches comes back through the watch and sets off another cycle).
 * `recent` are our uncordons so far; those in (now − windowMs, now] count. allowed = max − used (never below 0).
 * A slot frees when the oldest counted uncordon leaves the window; with none counted, the slots this cycle takes
 * free one window from now. See docs/auto-uncordon.md.
 */
export function budgetLeft(max: number, windowMs: number, recent: readonly Date[], now: Date): CycleBudget {
  const from = now.getTime() - windowMs;
  const counted = recent.map((d) => d.getTime()).filter((t) => t > from);
  const oldest = counted.length > 0 ? Math.min(...counted, now.getTime()) : now.getTime();
  return {
    allowed: Math.max(0, Math.floor(max) - counted.length),
    freesInMs: Math.max(1, oldest + windowMs - now.getTime()),
  };
}

/** UncordonPatch — the JSON merge patch body of one uncordon. */
export interface UncordonPatch {
  readonly metadata: {
    /** The optimistic-concurrency guard: the write fails with 409 if the node changed since the read. */
    readonly resourceVersion: string;
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly spec: { readonly unschedulable: false; readonly taints: readonly NodeTaint[] };
}

/**
 * uncordonPatch — a merge patch that clears the cordon and NTH's rebalance taint and keeps every other taint
 * (a merge patch replaces the whole list), stamped with `nodes-manager/uncordoned-at` and
 * `nodes-manager/uncordon-reason`. Send it with field manager `nodes-manager`.
 */
export function uncordonPatch(node: CordonedNodeSnapshot, at: Date, reason: string): UncordonPatch {
  return {
    metadata: {
      resourceVersion: node.resourceVersion,
      annotations: { [UNCORDONED_AT_ANNOTATION]: at.toISOString(), [UNCORDON_REASON_ANNOTATION]: reason },
    },
    spec: {
      unschedulable: false,
      taints: node.taints.filter((t) => t.key !== UNSCHEDULABLE_TAINT_KEY && !isRebalanceTaint(t)),
    },
  };
}

/**
 * describeVerdict — one plain-language line for the API, the `uncordon-reason` annotation, logs and the
 * Kubernetes Event ("waiting 7 m more", "not ours: kubectl-cordon", "not Ready since …").
 */
export function describeVerdict(v: UncordonVerdict): string {
  const e = v.evidence;
  const since = e.cordonedSince ? ` since ${e.cordonedSince}` : '';
  switch (v.reason) {
    case UncordonReason.UNCORDON:
    case UncordonReason.DRY_RUN:
    case UncordonReason.DISABLED: {
      const verb =
        v.reason === UncordonReason.UNCORDON ? 'uncordoned' : v.reason === UncordonReason.DRY_RUN ? 'would uncordon (dry run)' : 'would uncordon (disabled)';
      const by = e.provenance === 'rebalance-taint' ? 'NTH rebalance taint' : `cordoned by ${e.cordonManager ?? '?'}`;
      return `${verb}: ${by}${since}, Ready since ${e.readySince ?? '?'}, grace ${e.effectiveGraceMinutes ?? '?'} m (k=${e.flapCount ?? 0})`;
    }
    case UncordonReason.WAITING_GRACE_PERIOD:
      return `waiting ${Math.ceil((v.requeueAfterMs ?? 0) / MINUTE_MS)} m more (grace ${e.effectiveGraceMinutes} m, k=${e.flapCount})`;
    case UncordonReason.CORDONED_BY_OTHER_MANAGER:
      return `not ours: ${e.cordonManager || 'unknown'} (${e.cordonManagerKind ?? 'unknown'})`;
    case UncordonReason.MEMORY_PRESSURE:
      return `would uncordon, but memory pressure is high (PSI full avg10 ${e.memoryFullAvg10 ?? '?'}%): waiting for it to fall`;
    case UncordonReason.NOT_READY:
      return `not Ready since ${e.readySince ?? 'an unknown time'}`;
    case UncordonReason.NOT_READY_SINCE_CORDON:
      return `not Ready continuously since the cordon at ${e.cordonedSince ?? '?'}: Ready only since ${e.readySince ?? 'an unknown time'}`;
    case UncordonReason.EXTRA_TAINTS:
    case UncordonReason.KARPENTER_DISRUPTION_TAINT:
    case UncordonReason.CLUSTER_AUTOSCALER_DELETION_TAINT:
      return `${v.reason}: ${(e.blockingTaints ?? []).join(', ')}`;
    default:
      return e.blockingKey ? `${v.reason}: ${e.blockingKey}` : v.reason;
  }
}
