import type { InterruptionSource, RebalanceEvidence, RebalanceEvidenceKind } from '@nodes-manager/contracts';
import { MERGE_WINDOW_MS, type LedgerEntry } from './advance-ledger.js';
import { goneNodeInterruptions, interruptionSignals, type LedgerNode, type NodeEvent, type NodeFacts, type TimedSignal } from './ledger-node.js';

/** InterruptionRecord — one Spot interruption of one Node object, whatever came before it (`nodes.spot_interruptions`). */
export interface InterruptionRecord extends NodeFacts {
  readonly id: string;
  readonly node: string;
  readonly nodeUid: string;
  readonly interruptedAt: Date;
  readonly source: InterruptionSource;
  /** The ledger row of the rebalance it followed; null when no recommendation was seen. */
  readonly rebalanceId: string | null;
  readonly evidence: readonly RebalanceEvidence[];
}

export interface InterruptionInput {
  /** The nodes present now. */
  readonly nodes: readonly LedgerNode[];
  /** Nodes seen lately and gone since: their Events (and their NodeClaim's) outlive them. */
  readonly gone: readonly LedgerNode[];
  readonly events: readonly NodeEvent[];
  /** Ledger rows after this pass's step: an interrupted row names its rebalance, and one resolved by EC2 is an interruption too. */
  readonly ledger: readonly LedgerEntry[];
  /** Node uids whose interruption is recorded already. */
  readonly recorded: ReadonlySet<string>;
  readonly now: Date;
  readonly newId: () => string;
}

const EVIDENCE: Record<InterruptionSource, RebalanceEvidenceKind> = {
  'spot-itn-taint': 'spot-itn-taint',
  'nth-event': 'nth-interruption-event',
  'karpenter-event': 'karpenter-interruption-event',
  'ec2-state-reason': 'ec2-state-reason',
};
const INTERRUPTION_KINDS = new Set<RebalanceEvidenceKind>(Object.values(EVIDENCE));

/**
 * detectInterruptions — every Spot interruption not recorded yet, pure: a node (present, or gone lately) showing an
 * interruption signal — NTH's `spot-itn` taint or `SpotInterruption` Event, Karpenter's `SpotInterrupted` Event on
 * the Node or its NodeClaim — and every ledger row resolved `interrupted` (EC2's state reason included). One record
 * per Node object: its first signal gives the time, every source within {@link MERGE_WINDOW_MS} of it is evidence,
 * and the ledger row it followed (if a rebalance recommendation came first) is named. Interruptions that come with
 * no recommendation are as common as those that do, and count the same in a pool's rate.
 */
export function detectInterruptions(input: InterruptionInput): InterruptionRecord[] {
  const out: InterruptionRecord[] = [];
  const done = new Set(input.recorded);
  const rowOf = new Map<string, LedgerEntry>();
  for (const r of input.ledger) if (r.outcome === 'interrupted' && r.interruptedAt) rowOf.set(r.nodeUid, r);

  const add = (node: { name: string; uid: string; facts: NodeFacts }, signals: readonly TimedSignal<InterruptionSource>[]) => {
    const first = signals[0];
    if (!first || done.has(node.uid)) return;
    done.add(node.uid);
    const evidence = signals
      .filter((s) => s.at.getTime() - first.at.getTime() <= MERGE_WINDOW_MS)
      .reduce<RebalanceEvidence[]>((list, s) => {
        const e: RebalanceEvidence = { kind: EVIDENCE[s.kind], at: s.at.toISOString(), source: s.source, ...(s.detail ? { detail: s.detail } : {}) };
        return list.some((x) => x.kind === e.kind && x.at === e.at) ? list : [...list, e];
      }, []);
    out.push({ id: input.newId(), node: node.name, nodeUid: node.uid, ...node.facts, interruptedAt: first.at, source: first.kind, rebalanceId: rowOf.get(node.uid)?.id ?? null, evidence });
  };

  for (const n of input.nodes) add(n, interruptionSignals(n, input.events, input.now));
  for (const n of input.gone) add(n, goneNodeInterruptions(n.name, n.uid, input.events));
  for (const r of rowOf.values()) {
    if (done.has(r.nodeUid)) continue;
    done.add(r.nodeUid);
    out.push({
      id: input.newId(),
      node: r.node,
      nodeUid: r.nodeUid,
      instanceId: r.instanceId,
      instanceType: r.instanceType,
      zone: r.zone,
      capacityType: r.capacityType,
      nodePool: r.nodePool,
      interruptedAt: r.interruptedAt!,
      source: r.interruptionSource ?? 'ec2-state-reason',
      rebalanceId: r.id,
      evidence: r.evidence.filter((e) => INTERRUPTION_KINDS.has(e.kind)),
    });
  }
  return out;
}
