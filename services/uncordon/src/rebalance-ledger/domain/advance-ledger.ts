import {
  EC2_SPOT_TERMINATION_REASON,
  FINAL_REBALANCE_OUTCOMES,
  type InstanceState,
  type InterruptionSource,
  type LedgerSource,
  type RebalanceEvidence,
  type RebalanceEvidenceKind,
  type RebalanceOutcome,
  type RebalanceSignal,
  type RebalanceTimeSource,
} from '@nodes-manager/contracts';
import { cordonOwner } from '../../auto-uncordon/domain/decide-uncordon.js';
import {
  goneNodeInterruptions,
  interruptionSignals,
  rebalanceSignals,
  uncordonedByUsAt,
  type LedgerNode,
  type NodeEvent,
  type NodeFacts,
  type TimedSignal,
} from './ledger-node.js';

/** LedgerEntry — one row of the rebalance ledger: one rebalance recommendation seen on one Node object. */
export interface LedgerEntry extends NodeFacts {
  readonly id: string;
  readonly node: string;
  readonly nodeUid: string;
  readonly seenAt: Date;
  readonly seenSignal: RebalanceSignal;
  readonly seenTimeSource: RebalanceTimeSource;
  readonly outcome: RebalanceOutcome;
  readonly resolvedAt: Date | null;
  readonly uncordonedAt: Date | null;
  readonly recordonedAt: Date | null;
  readonly interruptedAt: Date | null;
  readonly interruptionSource: InterruptionSource | null;
  readonly leadTimeMs: number | null;
  /** Stored at resolution; for an open row see {@link givenBackMs}. */
  readonly givenBackMs: number;
  /** When the Node object was first seen gone (an open row waits here for EC2's answer). */
  readonly goneAt: Date | null;
  readonly evidence: readonly RebalanceEvidence[];
}

export interface LedgerConfig {
  /** REBALANCE_HORIZON_HOURS in ms: a rebalance not followed by an interruption within it has `survived`. */
  readonly horizonMs: number;
  /** AUTO_UNCORDON_CORDON_MANAGERS: whose cordon is NTH's. */
  readonly cordonManagers: readonly string[];
  /** How long a gone node's row waits for EC2's answer before it is `removed` without one. */
  readonly ec2WaitMs: number;
}

/**
 * Ec2View — what EC2 said of gone nodes' instances so far (through spot-advisor), or `not-configured` when EC2 cannot
 * be asked (then a gone node without an interruption signal is `removed` at once).
 */
export type Ec2View = 'not-configured' | ReadonlyMap<string, InstanceState>;

export interface LedgerInput {
  /** Every open row, plus the latest row (open or not) of each present Node object. */
  readonly entries: readonly LedgerEntry[];
  /** The whole synced node view: a row whose Node object is absent is gone. */
  readonly nodes: readonly LedgerNode[];
  readonly events: readonly NodeEvent[];
  readonly ec2: Ec2View;
  readonly now: Date;
  readonly config: LedgerConfig;
  readonly newId: () => string;
}

export interface LedgerStep {
  /** New rows (a new rebalance); some may be resolved already (then also in `resolved`). */
  readonly opened: LedgerEntry[];
  /** Existing rows that changed (their new state). */
  readonly updated: LedgerEntry[];
  /** Rows, new or not, that reached a final outcome in this step. */
  readonly resolved: LedgerEntry[];
  /** Instance ids of gone nodes whose fate EC2 should be asked. */
  readonly askEc2: string[];
}

/** A signal this much before a rebalance is still taken as following it (clock skew between NTH and us). */
const SKEW_MS = 60_000;
/**
 * Two signals of one node this close in time are one rebalance (or one interruption) seen by two sources — NTH and
 * Karpenter both read the same EC2 notice, each on its own schedule — and make one row with both pieces of evidence.
 * EC2 sends one rebalance recommendation per instance; ten minutes is far above the sources' delays (seconds) and
 * below any grace period after which a second recommendation could be told apart.
 */
export const MERGE_WINDOW_MS = 10 * 60_000;

export const isFinal = (o: RebalanceOutcome): boolean => FINAL_REBALANCE_OUTCOMES.includes(o);

/**
 * untilNextHorizonMs — how long until the soonest horizon of the rows still open (seen + horizon): the pass then
 * resolves that row `survived` at its horizon, not up to a scan interval later. Undefined when no open row has its
 * horizon ahead.
 */
export function untilNextHorizonMs(entries: readonly LedgerEntry[], now: Date, horizonMs: number): number | undefined {
  const ahead = entries.filter((e) => e.resolvedAt === null).map((e) => e.seenAt.getTime() + horizonMs - now.getTime()).filter((ms) => ms > 0);
  return ahead.length > 0 ? Math.min(...ahead) : undefined;
}

/**
 * givenBackMs — node time auto-uncordon gave back on this row: from our uncordon to the first of the cordon coming
 * back, the interruption, the node going, the horizon's end, and `now` (or the resolution). 0 when we never
 * uncordoned it.
 */
export function givenBackMs(e: LedgerEntry, now: Date, horizonMs: number): number {
  if (!e.uncordonedAt) return 0;
  const ends = [e.recordonedAt, e.interruptedAt, e.goneAt, e.resolvedAt, now].filter((d): d is Date => d !== null).map((d) => d.getTime());
  const end = Math.min(...ends, e.seenAt.getTime() + horizonMs);
  return Math.max(0, end - e.uncordonedAt.getTime());
}

/**
 * advanceLedger — the outcome rules (docs/rebalance-ledger.md), pure: from the rows so far and one synced view of
 * the nodes and their Events, which rows open, which move on and which resolve.
 *
 * - A row opens for a Node object (uid) showing a rebalance signal ({@link rebalanceSignals}) unless a row of it
 *   is still `observed` (the same cordon), or the signal is no later than what its latest row already covers. A
 *   signal with no time of its own opens a row only for a node never seen before, or as the re-cordon after our
 *   uncordon. So a restart, seeing the same node again, opens nothing.
 * - `observed` → `uncordoned` when the node is uncordoned with our `uncordoned-at` annotation (its time is kept);
 *   `uncordoned` → `recordoned` when it is cordoned again.
 * - Final: `interrupted` at the first interruption signal (spot-itn taint, SpotInterruption Event — also after the
 *   node went — or, for a gone node, EC2's `Server.SpotInstanceTermination` state reason) within the horizon, the
 *   lead time being its time − seenAt; `survived` at seenAt + horizon when nothing ended it before; `removed` when
 *   the Node object went before that without an interruption (EC2 asked first when configured, for at most
 *   `ec2WaitMs`).
 * Applying the same view twice changes nothing the second time.
 */
export function advanceLedger(input: LedgerInput): LedgerStep {
  const { now, config } = input;
  const opened: LedgerEntry[] = [];
  const updated = new Map<string, LedgerEntry>();
  const resolved: LedgerEntry[] = [];
  const askEc2: string[] = [];
  const byUid = new Map<string, LedgerEntry[]>();
  for (const e of input.entries) byUid.set(e.nodeUid, [...(byUid.get(e.nodeUid) ?? []), e]);
  for (const rows of byUid.values()) rows.sort((a, b) => a.seenAt.getTime() - b.seenAt.getTime());

  const settle = (before: LedgerEntry | undefined, after: LedgerEntry): void => {
    if (before && sameEntry(before, after)) return;
    if (before) updated.set(after.id, after);
    if (isFinal(after.outcome) && (!before || !isFinal(before.outcome))) resolved.push(after);
  };

  const eventsByNode = new Map<string, NodeEvent[]>();
  for (const e of input.events) eventsByNode.set(e.node, [...(eventsByNode.get(e.node) ?? []), e]);
  const present = new Set<string>();
  for (const node of input.nodes) {
    const events = eventsByNode.get(node.name) ?? [];
    present.add(node.uid);
    const rows = byUid.get(node.uid) ?? [];
    const open = rows.filter((r) => !isFinal(r.outcome));
    const latest = rows.at(-1);
    const signals = rebalanceSignals(node, events, config.cordonManagers, now);
    const interruptions = interruptionSignals(node, events, now);

    // A signal close to a row's time is that rebalance seen again, or seen by a second source: its evidence joins
    // that row. Only the others can open a row.
    const merged = new Map<string, LedgerEntry>();
    const unmatched: TimedSignal<RebalanceSignal>[] = [];
    for (const sig of signals) {
      const row = sig.timeSource === 'first-seen' ? undefined : rows.find((r) => Math.abs(r.seenAt.getTime() - sig.at.getTime()) <= MERGE_WINDOW_MS);
      if (!row) {
        unmatched.push(sig);
        continue;
      }
      const cur = merged.get(row.id) ?? row;
      const evidence = addEvidence(cur.evidence, rebalanceEvidence(sig));
      if (evidence === cur.evidence) continue;
      // Seen earlier by the second source: an open row takes the earlier time.
      const earlier = !isFinal(cur.outcome) && sig.at.getTime() < cur.seenAt.getTime();
      merged.set(row.id, { ...cur, evidence, ...(earlier ? { seenAt: sig.at, seenSignal: sig.kind, seenTimeSource: sig.timeSource } : {}) });
    }
    // An interruption seen by a second source after the row was resolved: its evidence joins the row too.
    for (const row of rows.filter((r) => r.outcome === 'interrupted' && r.interruptedAt)) {
      const cur = merged.get(row.id) ?? row;
      const evidence = interruptions
        .filter((sig) => Math.abs(sig.at.getTime() - row.interruptedAt!.getTime()) <= MERGE_WINDOW_MS)
        .reduce((list, sig) => addEvidence(list, interruptionEvidence(sig)), cur.evidence);
      if (evidence !== cur.evidence) merged.set(row.id, { ...cur, evidence });
    }

    let fresh: TimedSignal<RebalanceSignal>[] = [];
    if (unmatched.length > 0 && !open.some((r) => r.outcome === 'observed')) {
      if (!latest) fresh = unmatched;
      else {
        // What the latest row already accounts for: its rebalance, our uncordon, and its interruption.
        const covered = Math.max(latest.seenAt.getTime(), latest.uncordonedAt?.getTime() ?? 0, latest.interruptedAt?.getTime() ?? 0);
        fresh = unmatched.filter((sig) => sig.timeSource !== 'first-seen' && sig.at.getTime() > covered);
        const recordon = latest.uncordonedAt !== null && latest.recordonedAt === null && node.unschedulable && !isFinal(latest.outcome);
        if (fresh.length === 0 && recordon) fresh = unmatched.filter((sig) => sig.timeSource === 'first-seen');
      }
    }
    // [the row before this step (undefined: new), the row to advance]
    const rowsNow: [LedgerEntry | undefined, LedgerEntry][] = open.map((r) => [r, merged.get(r.id) ?? r]);
    for (const r of rows.filter((x) => isFinal(x.outcome) && merged.has(x.id))) settle(r, merged.get(r.id)!);
    if (fresh.length > 0) {
      const first = fresh[0]!;
      const entry: LedgerEntry = {
        id: input.newId(),
        node: node.name,
        nodeUid: node.uid,
        ...node.facts,
        seenAt: first.at,
        seenSignal: first.kind,
        seenTimeSource: first.timeSource,
        outcome: 'observed',
        resolvedAt: null,
        uncordonedAt: null,
        recordonedAt: null,
        interruptedAt: null,
        interruptionSource: null,
        leadTimeMs: null,
        givenBackMs: 0,
        goneAt: null,
        evidence: fresh.reduce<readonly RebalanceEvidence[]>(
          (list, sig) => addEvidence(list, rebalanceEvidence(sig.timeSource === 'first-seen' && !sig.detail ? { ...sig, detail: 'no time of its own: first seen' } : sig)),
          [],
        ),
      };
      rowsNow.push([undefined, entry]);
    }
    for (const [before, row] of rowsNow) {
      const after = advancePresent(row, node, interruptions, now, config);
      if (!before) opened.push(after);
      settle(before, after);
    }
  }

  for (const row of input.entries) {
    if (present.has(row.nodeUid) || isFinal(row.outcome)) continue;
    const { entry, ask } = advanceGone(row, eventsByNode.get(row.node) ?? [], input.ec2, now, config);
    settle(row, entry);
    if (ask) askEc2.push(ask);
  }
  return { opened, updated: [...updated.values()], resolved, askEc2 };
}

function advancePresent(row: LedgerEntry, node: LedgerNode, interruptions: readonly TimedSignal<InterruptionSource>[], now: Date, config: LedgerConfig): LedgerEntry {
  const horizonEnd = row.seenAt.getTime() + config.horizonMs;
  // First what happened to the cordon (also while we were down: the annotation keeps our uncordon's time).
  let next = row;
  const ours = uncordonedByUsAt(node);
  if (ours && row.uncordonedAt === null && ours.getTime() >= row.seenAt.getTime() - SKEW_MS && ours.getTime() < horizonEnd) {
    next = {
      ...next,
      outcome: next.outcome === 'observed' ? 'uncordoned' : next.outcome,
      uncordonedAt: ours,
      evidence: addEvidence(next.evidence, evidenceOf('uncordoned-by-nodes-manager', ours)),
    };
  } else if (!node.unschedulable && !ours && next.outcome === 'observed' && wasCordoned(next) && !next.evidence.some((e) => e.kind === 'uncordoned-by-other')) {
    next = { ...next, evidence: addEvidence(next.evidence, evidenceOf('uncordoned-by-other', now)) };
  }
  if (next.outcome === 'uncordoned' && node.unschedulable) {
    const owner = cordonOwner(node.managedFields);
    const since = owner?.time && next.uncordonedAt && owner.time.getTime() > next.uncordonedAt.getTime() ? owner.time : now;
    next = { ...next, outcome: 'recordoned', recordonedAt: since, evidence: addEvidence(next.evidence, evidenceOf('recordoned', since, owner?.manager)) };
  }
  // Then whether it ended.
  const after = interruptions.filter((s) => s.at.getTime() >= row.seenAt.getTime() - SKEW_MS);
  const hit = after[0];
  if (hit) {
    // Every source that saw this interruption is evidence; the first gives its time.
    const evidence = after.filter((s) => s.at.getTime() - hit.at.getTime() <= MERGE_WINDOW_MS).reduce((list, s) => addEvidence(list, interruptionEvidence(s)), next.evidence);
    return hit.at.getTime() <= horizonEnd ? interrupted(next, hit.at, hit.kind, evidence, now, config) : survived(next, evidence, now, config);
  }
  if (now.getTime() >= horizonEnd) return survived(next, next.evidence, now, config);
  return next;
}

/** wasCordoned — the row came with a cordon (NTH's cordon or taint); Karpenter's rebalance Event and NTH's Event alone do not cordon. */
const wasCordoned = (e: LedgerEntry): boolean => e.evidence.some((x) => x.kind === 'nth-cordon' || x.kind === 'rebalance-taint');

function advanceGone(row: LedgerEntry, events: readonly NodeEvent[], ec2: Ec2View, now: Date, config: LedgerConfig): { entry: LedgerEntry; ask?: string } {
  const goneAt = row.goneAt ?? now;
  const horizonEnd = row.seenAt.getTime() + config.horizonMs;
  const base: LedgerEntry = row.goneAt ? row : { ...row, goneAt, evidence: addEvidence(row.evidence, evidenceOf('node-gone', goneAt)) };
  const after = goneNodeInterruptions(row.node, row.nodeUid, events).filter((s) => s.at.getTime() >= row.seenAt.getTime() - SKEW_MS);
  const hit = after[0];
  if (hit) {
    const evidence = after.filter((s) => s.at.getTime() - hit.at.getTime() <= MERGE_WINDOW_MS).reduce((list, s) => addEvidence(list, interruptionEvidence(s)), base.evidence);
    return { entry: hit.at.getTime() <= horizonEnd ? interrupted(base, hit.at, hit.kind, evidence, now, config) : survived(base, evidence, now, config) };
  }
  if (goneAt.getTime() >= horizonEnd) return { entry: survived(base, base.evidence, now, config) };
  if (ec2 === 'not-configured' || !row.instanceId) return { entry: removed(base, base.evidence, now, config) };
  const state = ec2.get(row.instanceId);
  if (state) {
    const evidence = addEvidence(base.evidence, evidenceOf('ec2-state-reason', goneAt, `${state.state}: ${state.stateReasonCode ?? 'no state reason'}`, 'ec2'));
    return { entry: state.stateReasonCode === EC2_SPOT_TERMINATION_REASON ? interrupted(base, goneAt, 'ec2-state-reason', evidence, now, config) : removed(base, evidence, now, config) };
  }
  if (now.getTime() - goneAt.getTime() >= config.ec2WaitMs) {
    return { entry: removed(base, addEvidence(base.evidence, evidenceOf('ec2-unanswered', now, `no answer from EC2 within ${Math.round(config.ec2WaitMs / 1000)} s`)), now, config) };
  }
  return { entry: base, ask: row.instanceId };
}

function interrupted(row: LedgerEntry, at: Date, source: InterruptionSource, evidence: readonly RebalanceEvidence[], now: Date, config: LedgerConfig): LedgerEntry {
  const e: LedgerEntry = {
    ...row,
    outcome: 'interrupted',
    interruptedAt: at,
    interruptionSource: source,
    leadTimeMs: Math.max(0, at.getTime() - row.seenAt.getTime()),
    resolvedAt: now.getTime() > at.getTime() ? now : at,
    evidence,
  };
  return { ...e, givenBackMs: givenBackMs(e, now, config.horizonMs) };
}

function survived(row: LedgerEntry, evidence: readonly RebalanceEvidence[], now: Date, config: LedgerConfig): LedgerEntry {
  const end = new Date(row.seenAt.getTime() + config.horizonMs);
  const e: LedgerEntry = { ...row, outcome: 'survived', resolvedAt: end, evidence: addEvidence(evidence, evidenceOf('horizon-passed', end)) };
  return { ...e, givenBackMs: givenBackMs(e, now, config.horizonMs) };
}

function removed(row: LedgerEntry, evidence: readonly RebalanceEvidence[], now: Date, config: LedgerConfig): LedgerEntry {
  const e: LedgerEntry = { ...row, outcome: 'removed', resolvedAt: now, evidence };
  return { ...e, givenBackMs: givenBackMs(e, now, config.horizonMs) };
}

const evidenceOf = (kind: RebalanceEvidenceKind, at: Date, detail?: string, source?: LedgerSource): RebalanceEvidence => ({
  kind,
  at: at.toISOString(),
  ...(detail ? { detail } : {}),
  ...(source ? { source } : {}),
});

const REBALANCE_EVIDENCE: Record<RebalanceSignal, RebalanceEvidenceKind> = {
  'rebalance-taint': 'rebalance-taint',
  'nth-cordon': 'nth-cordon',
  'nth-event': 'nth-event',
  'karpenter-event': 'karpenter-rebalance-event',
};
const INTERRUPTION_EVIDENCE: Record<InterruptionSource, RebalanceEvidenceKind> = {
  'spot-itn-taint': 'spot-itn-taint',
  'nth-event': 'nth-interruption-event',
  'karpenter-event': 'karpenter-interruption-event',
  'ec2-state-reason': 'ec2-state-reason',
};
const rebalanceEvidence = (s: TimedSignal<RebalanceSignal>): RebalanceEvidence => evidenceOf(REBALANCE_EVIDENCE[s.kind], s.at, s.detail, s.source);
const interruptionEvidence = (s: TimedSignal<InterruptionSource>): RebalanceEvidence => evidenceOf(INTERRUPTION_EVIDENCE[s.kind], s.at, s.detail, s.source);

function addEvidence(list: readonly RebalanceEvidence[], e: RebalanceEvidence): readonly RebalanceEvidence[] {
  return list.some((x) => x.kind === e.kind && x.at === e.at) ? list : [...list, e];
}

function sameEntry(a: LedgerEntry, b: LedgerEntry): boolean {
  const t = (d: Date | null) => d?.getTime() ?? null;
  return (
    a.outcome === b.outcome &&
    t(a.seenAt) === t(b.seenAt) &&
    t(a.uncordonedAt) === t(b.uncordonedAt) &&
    t(a.recordonedAt) === t(b.recordonedAt) &&
    t(a.goneAt) === t(b.goneAt) &&
    t(a.resolvedAt) === t(b.resolvedAt) &&
    a.evidence.length === b.evidence.length
  );
}
