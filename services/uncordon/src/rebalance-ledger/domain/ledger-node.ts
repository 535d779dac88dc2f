import { capacityTypeOf, instanceTypeOf, nodePoolOf, parseProviderId, zoneOf } from '@nodes-manager/kube';
import type { V1Node } from '@kubernetes/client-node';
import {
  NTH_REBALANCE_EVENT_REASON,
  NTH_REBALANCE_TAINT_KEY,
  NTH_SPOT_INTERRUPTION_EVENT_REASON,
  NTH_SPOT_ITN_TAINT_KEY,
  UNCORDONED_AT_ANNOTATION,
  type InterruptionSource,
  type RebalanceSignal,
  type RebalanceTimeSource,
} from '@nodes-manager/contracts';
import { cordonedNodeSnapshot, type CordonedNodeSnapshot } from '../../auto-uncordon/domain/cordoned-node.js';
import { cordonOwner } from '../../auto-uncordon/domain/decide-uncordon.js';

/** NodeFacts — what the ledger keeps of a node's identity: its instance and its Spot pool. */
export interface NodeFacts {
  readonly instanceId: string | null;
  readonly instanceType: string | null;
  readonly zone: string | null;
  readonly capacityType: string | null;
  readonly nodePool: string | null;
}

/** LedgerNode — the lean view of a Node the ledger rules take: the uncordon snapshot plus its uid and facts. */
export interface LedgerNode extends CordonedNodeSnapshot {
  readonly uid: string;
  readonly facts: NodeFacts;
}

/** NodeEvent — a core/v1 Event about a Node (NTH's, with `emitKubernetesEvents`), as the ledger needs it. */
export interface NodeEvent {
  readonly reason: string;
  readonly node: string;
  /** The involved object's uid, when the emitter set it. */
  readonly nodeUid?: string;
  readonly at: Date;
  readonly message?: string;
}

/**
 * nodeFactsOf — the node's identity through the shared Kubernetes model: instance id from the providerID; type, zone,
 * capacity type (one fallback for every service: not Spot is on-demand) and pool from the well-known labels.
 */
export function nodeFactsOf(labels: Readonly<Record<string, string>>, providerId: string | undefined): NodeFacts {
  return {
    instanceId: parseProviderId(providerId)?.instanceId ?? null,
    instanceType: instanceTypeOf(labels) ?? null,
    zone: zoneOf(labels) ?? null,
    capacityType: capacityTypeOf(labels),
    nodePool: nodePoolOf(labels) ?? null,
  };
}

/** ledgerNodeOf — projects a V1Node (client objects or raw JSON) for the ledger rules. */
export function ledgerNodeOf(node: V1Node): LedgerNode {
  const snapshot = cordonedNodeSnapshot(node);
  return { ...snapshot, uid: node.metadata?.uid ?? '', facts: nodeFactsOf(snapshot.labels, node.spec?.providerID) };
}

/** TimedSignal — a signal and when it happened, with where that time came from. */
export interface TimedSignal<K extends string> {
  readonly kind: K;
  readonly at: Date;
  readonly timeSource: RebalanceTimeSource;
  readonly detail?: string;
}

const eventsOf = (node: LedgerNode, events: readonly NodeEvent[], reason: string): NodeEvent[] =>
  events.filter((e) => e.reason === reason && e.node === node.name && (e.nodeUid === undefined || e.nodeUid === '' || e.nodeUid === node.uid));

/**
 * rebalanceSignals — every sign on this node that NTH saw a rebalance recommendation, earliest first: its rebalance
 * taint (time: `timeAdded`), its cordon (the managedFields entry owning `f:spec.f:unschedulable` belongs to one of
 * `cordonManagers`; time: that entry's), its `RebalanceRecommendation` Event (time: the Event's). A signal without a
 * time of its own takes `now` (`first-seen`). An NTH cordon that comes with the interruption taint — written with it,
 * or with no rebalance taint beside it — is the interruption's cordon, not a rebalance.
 */
export function rebalanceSignals(node: LedgerNode, events: readonly NodeEvent[], cordonManagers: readonly string[], now: Date): TimedSignal<RebalanceSignal>[] {
  const out: TimedSignal<RebalanceSignal>[] = [];
  const taint = node.taints.find((t) => t.key === NTH_REBALANCE_TAINT_KEY);
  if (taint) {
    const added = taint.timeAdded ? new Date(taint.timeAdded) : undefined;
    out.push(added && !Number.isNaN(added.getTime()) ? { kind: 'rebalance-taint', at: added, timeSource: 'taint-time-added' } : { kind: 'rebalance-taint', at: now, timeSource: 'first-seen' });
  }
  const owner = node.unschedulable ? cordonOwner(node.managedFields) : undefined;
  const itn = node.taints.find((t) => t.key === NTH_SPOT_ITN_TAINT_KEY);
  const itnAt = itn?.timeAdded ? new Date(itn.timeAdded).getTime() : Number.NEGATIVE_INFINITY;
  // NTH cordons again with its interruption notice: a cordon written at or after the spot-itn taint is that one.
  const interruptionCordon = itn !== undefined && (!taint || !owner?.time || owner.time.getTime() >= itnAt - 1_000);
  if (owner && cordonManagers.includes(owner.manager) && !interruptionCordon) {
    out.push(owner.time ? { kind: 'nth-cordon', at: owner.time, timeSource: 'managed-fields', detail: owner.manager } : { kind: 'nth-cordon', at: now, timeSource: 'first-seen', detail: owner.manager });
  }
  for (const e of eventsOf(node, events, NTH_REBALANCE_EVENT_REASON)) {
    out.push({ kind: 'nth-event', at: e.at, timeSource: 'event-time', ...(e.message ? { detail: e.message } : {}) });
  }
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/**
 * interruptionSignals — signs that Spot is reclaiming the instance, earliest first: NTH's `spot-itn` taint (time:
 * `timeAdded`, else `now`) and NTH's `SpotInterruption` Event. EC2's state reason is asked only once the node is gone.
 */
export function interruptionSignals(node: LedgerNode, events: readonly NodeEvent[], now: Date): TimedSignal<InterruptionSource>[] {
  const out: TimedSignal<InterruptionSource>[] = [];
  const taint = node.taints.find((t) => t.key === NTH_SPOT_ITN_TAINT_KEY);
  if (taint) {
    const added = taint.timeAdded ? new Date(taint.timeAdded) : undefined;
    out.push(added && !Number.isNaN(added.getTime()) ? { kind: 'spot-itn-taint', at: added, timeSource: 'taint-time-added' } : { kind: 'spot-itn-taint', at: now, timeSource: 'first-seen' });
  }
  out.push(...goneNodeInterruptions(node.name, node.uid, events));
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** goneNodeInterruptions — NTH's `SpotInterruption` Events about a node (they outlive the Node object). */
export function goneNodeInterruptions(name: string, uid: string, events: readonly NodeEvent[]): TimedSignal<InterruptionSource>[] {
  return events
    .filter((e) => e.reason === NTH_SPOT_INTERRUPTION_EVENT_REASON && e.node === name && (e.nodeUid === undefined || e.nodeUid === '' || e.nodeUid === uid))
    .map((e) => ({ kind: 'nth-event' as const, at: e.at, timeSource: 'event-time' as const, ...(e.message ? { detail: e.message } : {}) }));
}

/** uncordonedByUsAt — our `nodes-manager/uncordoned-at` annotation's time, when the node is not cordoned now. */
export function uncordonedByUsAt(node: LedgerNode): Date | undefined {
  if (node.unschedulable) return undefined;
  const raw = node.annotations[UNCORDONED_AT_ANNOTATION];
  const at = raw ? new Date(raw) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at : undefined;
}
