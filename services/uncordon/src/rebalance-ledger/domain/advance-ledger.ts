import {
  EC2_SPOT_TERMINATION_REASON,
  FINAL_REBALANCE_OUTCOMES,
  type InstanceState,
  type InterruptionSource,
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

  const known = new Set(input.entries);
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

    let fresh: TimedSignal<RebalanceSignal>[] = [];
    if (signals.length > 0 && !open.some((r) => r.outcome === 'observed')) {
      if (!latest) fresh = signals;
      else {
        // What the latest row already accounts for: its rebalance, our uncordon, and its interruption.
        const covered = Math.max(latest.seenAt.getTime(), latest.uncordonedAt?.getTime() ?? 0, latest.interruptedAt?.getTime() ?? 0);
        fresh = signals.filter((s) => s.timeSource !== 'first-seen' && s.at.getTime() > covered);
        const recordon = latest.uncordonedAt !== null && latest.recordonedAt === null && node.unschedulable && !isFinal(latest.outcome);
        if (fresh.length === 0 && recordon) fresh = signals.filter((s) => s.timeSource === 'first-seen');
      }
    }
    const rowsNow = [...open];
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
        evidence: fresh.map((s) => evidenceOf(s.kind, s.at, s.detail ?? (s.timeSource === 'first-seen' ? 'no time of its own: first seen' : undefined))),
      };
      opened.push(entry);
      rowsNow.push(entry);
    }
    for (const row of rowsNow) {
      const after = advancePresent(row, node, interruptions, now, config);
      if (!known.has(row)) {
        opened[opened.length - 1] = after;
        settle(undefined, after);
      } else settle(row, after);
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
  } else if (!node.unschedulable && !ours && next.outcome === 'observed' && !next.evidence.some((e) => e.kind === 'uncordoned-by-other')) {
    next = { ...next, evidence: addEvidence(next.evidence, evidenceOf('uncordoned-by-other', now)) };
  }
  if (next.outcome === 'uncordoned' && node.unschedulable) {
    const owner = cordonOwner(node.managedFields);
    const since = owner?.time && next.uncordonedAt && owner.time.getTime() > next.uncordonedAt.getTime() ? owner.time : now;
    next = { ...next, outcome: 'recordoned', recordonedAt: since, evidence: addEvidence(next.evidence, evidenceOf('recordoned', since, owner?.manager)) };
  }
  // Then whether it ended.
  const hit = interruptions.find((s) => s.at.getTime() >= row.seenAt.getTime() - SKEW_MS);
  if (hit) {
    const evidence = addEvidence(next.evidence, evidenceOf(hit.kind === 'nth-event' ? 'nth-interruption-event' : 'spot-itn-taint', hit.at, hit.detail));
    return hit.at.getTime() <= horizonEnd ? interrupted(next, hit.at, hit.kind, evidence, now, config) : survived(next, evidence, now, config);
  }
  if (now.getTime() >= horizonEnd) return survived(next, next.evidence, now, config);
  return next;
}

function advanceGone(row: LedgerEntry, events: readonly NodeEvent[], ec2: Ec2View, now: Date, config: LedgerConfig): { entry: LedgerEntry; ask?: string } {
  const goneAt = row.goneAt ?? now;
  const horizonEnd = row.seenAt.getTime() + config.horizonMs;
  const base: LedgerEntry = row.goneAt ? row : { ...row, goneAt, evidence: addEvidence(row.evidence, evidenceOf('node-gone', goneAt)) };
  const hit = goneNodeInterruptions(row.node, row.nodeUid, events).find((s) => s.at.getTime() >= row.seenAt.getTime() - SKEW_MS);
  if (hit) {
    const evidence = addEvidence(base.evidence, evidenceOf('nth-interruption-event', hit.at, hit.detail));
    return { entry: hit.at.getTime() <= horizonEnd ? interrupted(base, hit.at, 'nth-event', evidence, now, config) : survived(base, evidence, now, config) };
  }
  if (goneAt.getTime() >= horizonEnd) return { entry: survived(base, base.evidence, now, config) };
  if (ec2 === 'not-configured' || !row.instanceId) return { entry: removed(base, base.evidence, now, config) };
  const state = ec2.get(row.instanceId);
  if (state) {
    const evidence = addEvidence(base.evidence, evidenceOf('ec2-state-reason', goneAt, `${state.state}: ${state.stateReasonCode ?? 'no state reason'}`));
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

const evidenceOf = (kind: RebalanceEvidenceKind, at: Date, detail?: string): RebalanceEvidence => ({ kind, at: at.toISOString(), ...(detail ? { detail } : {}) });

function addEvidence(list: readonly RebalanceEvidence[], e: RebalanceEvidence): readonly RebalanceEvidence[] {
  return list.some((x) => x.kind === e.kind && x.at === e.at) ? list : [...list, e];
}

function sameEntry(a: LedgerEntry, b: LedgerEntry): boolean {
  const t = (d: Date | null) => d?.getTime() ?? null;
  return (
    a.outcome === b.outcome &&
    t(a.uncordonedAt) === t(b.uncordonedAt) &&
    t(a.recordonedAt) === t(b.recordonedAt) &&
    t(a.goneAt) === t(b.goneAt) &&
    t(a.resolvedAt) === t(b.resolvedAt) &&
    a.evidence.length === b.evidence.length
  );
}
