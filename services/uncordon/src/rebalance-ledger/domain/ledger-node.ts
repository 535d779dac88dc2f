import { capacityTypeOf, instanceTypeOf, nodePoolOf, parseProviderId, zoneOf } from '@nodes-manager/kube';
import type { V1Node } from '@kubernetes/client-node';
import {
  KARPENTER_REBALANCE_EVENT_REASON,
  KARPENTER_SPOT_INTERRUPTED_EVENT_REASON,
  NTH_REBALANCE_EVENT_REASON,
  NTH_REBALANCE_TAINT_KEY,
  NTH_SPOT_INTERRUPTION_EVENT_REASON,
  NTH_SPOT_ITN_TAINT_KEY,
  UNCORDONED_AT_ANNOTATION,
  type InterruptionSource,
  type LedgerSource,
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

/**
 * NodeEvent — a core/v1 Event about a Node, as the ledger needs it: NTH's (with `emitKubernetesEvents`) or Karpenter's
 * on the Node, or Karpenter's on the node's NodeClaim, attributed to the node ({@link attributeClaimEvents}).
 */
export interface NodeEvent {
  readonly reason: string;
  readonly node: string;
  /** The involved Node's uid, when the emitter set it (NTH in queue mode and Karpenter do; NTH in IMDS mode does not). */
  readonly nodeUid?: string;
  readonly at: Date;
  readonly message?: string;
  /** Set when the Event is about the node's NodeClaim (Karpenter records each of its Events on both). */
  readonly nodeClaim?: string;
}

/** ClaimEvent — a core/v1 Event about a Karpenter NodeClaim, before it is attributed to a node. */
export interface ClaimEvent {
  readonly reason: string;
  readonly nodeClaim: string;
  readonly at: Date;
  readonly message?: string;
}

/** ClaimRef — what ties a NodeClaim to its node: `status.nodeName`, else the instance id of `status.providerID`. */
export interface ClaimRef {
  readonly name: string;
  readonly nodeName?: string;
  readonly instanceId?: string;
}

/**
 * attributeClaimEvents — Karpenter's NodeClaim Events as Events of the claim's node, found through the NodeClaim's
 * `status.nodeName`, or its `status.providerID` matched against the nodes' (instance id). A NodeClaim's Events
 * outlive it and its Node: `claims` is every NodeClaim seen (the service remembers deleted ones for a while).
 * Events whose NodeClaim names no node yet are left out (`unattributed`).
 */
export function attributeClaimEvents(events: readonly ClaimEvent[], claims: readonly ClaimRef[], nodes: readonly LedgerNode[]): { events: NodeEvent[]; unattributed: number } {
  const byClaim = new Map(claims.map((c) => [c.name, c]));
  const byInstance = new Map(nodes.filter((n) => n.facts.instanceId).map((n) => [n.facts.instanceId!, n.name]));
  const out: NodeEvent[] = [];
  let unattributed = 0;
  for (const e of events) {
    const claim = byClaim.get(e.nodeClaim);
    const node = claim?.nodeName || (claim?.instanceId ? byInstance.get(claim.instanceId) : undefined);
    if (!node) {
      unattributed += 1;
      continue;
    }
    out.push({ reason: e.reason, node, at: e.at, nodeClaim: e.nodeClaim, ...(e.message ? { message: e.message } : {}) });
  }
  return { events: out, unattributed };
}

/**
 * eventSource — the system an Event came from: Karpenter by its reasons; NTH in queue mode when the involved object
 * carries the Node's uid (queue mode reads the Node before it emits), IMDS mode when it names the node only
 * (aws/aws-node-termination-handler, pkg/observability/k8s-events.go, `Emit`).
 */
export function eventSource(e: NodeEvent): LedgerSource {
  if (e.reason === KARPENTER_REBALANCE_EVENT_REASON || e.reason === KARPENTER_SPOT_INTERRUPTED_EVENT_REASON) return 'karpenter';
  return e.nodeUid ? 'nth-queue' : 'nth-imds';
}

/**
 * taintSource — NTH's mode from its taint's value, the event id: queue mode's are `rebalance-recommendation-event-…`
 * / `spot-itn-event-…` (pkg/monitor/sqsevent/), IMDS mode's `rebalance-recommendation-<hash>` / `spot-itn-<hash>`
 * (pkg/monitor/rebalancerecommendation/, pkg/monitor/spotitn/); no value: `nth`.
 */
export function taintSource(value: string | undefined): LedgerSource {
  if (!value) return 'nth';
  return /^(rebalance-recommendation|spot-itn)-event-/.test(value) ? 'nth-queue' : 'nth-imds';
}

const describeEvent = (e: NodeEvent): string =>
  `${e.nodeClaim ? `on the NodeClaim ${e.nodeClaim}` : 'on the Node'}${e.message ? `: ${e.message.trim()}` : ''}`;

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
  readonly source: LedgerSource;
}

const eventsOf = (node: { name: string; uid: string }, events: readonly NodeEvent[], reason: string): NodeEvent[] =>
  events.filter((e) => e.reason === reason && e.node === node.name && (e.nodeUid === undefined || e.nodeUid === '' || e.nodeUid === node.uid));

/**
 * rebalanceSignals — every sign on this node that NTH or Karpenter saw a rebalance recommendation, earliest first:
 * NTH's rebalance taint (time: `timeAdded`), its cordon (the managedFields entry owning `f:spec.f:unschedulable`
 * belongs to one of `cordonManagers`; time: that entry's), NTH's `RebalanceRecommendation` Event and Karpenter's
 * `SpotRebalanceRecommendation` Event on the Node or its NodeClaim (time: the Event's). A signal without a time of its
 * own takes `now` (`first-seen`). An NTH cordon that comes with the interruption taint — written with it,
 * or with no rebalance taint beside it — is the interruption's cordon, not a rebalance.
 */
export function rebalanceSignals(node: LedgerNode, events: readonly NodeEvent[], cordonManagers: readonly string[], now: Date): TimedSignal<RebalanceSignal>[] {
  const out: TimedSignal<RebalanceSignal>[] = [];
  const taint = node.taints.find((t) => t.key === NTH_REBALANCE_TAINT_KEY);
  if (taint) {
    const added = taint.timeAdded ? new Date(taint.timeAdded) : undefined;
    const source = taintSource(taint.value);
    out.push(added && !Number.isNaN(added.getTime()) ? { kind: 'rebalance-taint', at: added, timeSource: 'taint-time-added', source } : { kind: 'rebalance-taint', at: now, timeSource: 'first-seen', source });
  }
  const owner = node.unschedulable ? cordonOwner(node.managedFields) : undefined;
  const itn = node.taints.find((t) => t.key === NTH_SPOT_ITN_TAINT_KEY);
  const itnAt = itn?.timeAdded ? new Date(itn.timeAdded).getTime() : Number.NEGATIVE_INFINITY;
  // NTH cordons again with its interruption notice: a cordon written at or after the spot-itn taint is that one.
  const interruptionCordon = itn !== undefined && (!taint || !owner?.time || owner.time.getTime() >= itnAt - 1_000);
  if (owner && cordonManagers.includes(owner.manager) && !interruptionCordon) {
    const source: LedgerSource = 'nth';
    out.push(owner.time ? { kind: 'nth-cordon', at: owner.time, timeSource: 'managed-fields', detail: owner.manager, source } : { kind: 'nth-cordon', at: now, timeSource: 'first-seen', detail: owner.manager, source });
  }
  for (const e of eventsOf(node, events, NTH_REBALANCE_EVENT_REASON)) {
    out.push({ kind: 'nth-event', at: e.at, timeSource: 'event-time', source: eventSource(e), ...(e.message ? { detail: e.message } : {}) });
  }
  for (const e of eventsOf(node, events, KARPENTER_REBALANCE_EVENT_REASON)) {
    out.push({ kind: 'karpenter-event', at: e.at, timeSource: 'event-time', source: 'karpenter', detail: describeEvent(e) });
  }
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/**
 * interruptionSignals — signs that Spot is reclaiming the instance, earliest first: NTH's `spot-itn` taint (time:
 * `timeAdded`, else `now`), NTH's `SpotInterruption` Event and Karpenter's `SpotInterrupted` Event (on the Node or its
 * NodeClaim). EC2's state reason is asked only once the node is gone.
 */
export function interruptionSignals(node: LedgerNode, events: readonly NodeEvent[], now: Date): TimedSignal<InterruptionSource>[] {
  const out: TimedSignal<InterruptionSource>[] = [];
  const taint = node.taints.find((t) => t.key === NTH_SPOT_ITN_TAINT_KEY);
  if (taint) {
    const added = taint.timeAdded ? new Date(taint.timeAdded) : undefined;
    const source = taintSource(taint.value);
    out.push(added && !Number.isNaN(added.getTime()) ? { kind: 'spot-itn-taint', at: added, timeSource: 'taint-time-added', source } : { kind: 'spot-itn-taint', at: now, timeSource: 'first-seen', source });
  }
  out.push(...goneNodeInterruptions(node.name, node.uid, events));
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/**
 * goneNodeInterruptions — NTH's `SpotInterruption` and Karpenter's `SpotInterrupted` Events about a node, earliest
 * first (Events outlive the Node object, and a NodeClaim's outlive both).
 */
export function goneNodeInterruptions(name: string, uid: string, events: readonly NodeEvent[]): TimedSignal<InterruptionSource>[] {
  const node = { name, uid };
  return [
    ...eventsOf(node, events, NTH_SPOT_INTERRUPTION_EVENT_REASON).map((e) => ({ kind: 'nth-event' as const, at: e.at, timeSource: 'event-time' as const, source: eventSource(e), ...(e.message ? { detail: e.message } : {}) })),
    ...eventsOf(node, events, KARPENTER_SPOT_INTERRUPTED_EVENT_REASON).map((e) => ({ kind: 'karpenter-event' as const, at: e.at, timeSource: 'event-time' as const, source: 'karpenter' as const, detail: describeEvent(e) })),
  ].sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** uncordonedByUsAt — our `nodes-manager/uncordoned-at` annotation's time, when the node is not cordoned now. */
export function uncordonedByUsAt(node: LedgerNode): Date | undefined {
  if (node.unschedulable) return undefined;
  const raw = node.annotations[UNCORDONED_AT_ANNOTATION];
  const at = raw ? new Date(raw) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at : undefined;
}
