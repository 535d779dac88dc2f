/**
 * Karpenter's native interruption handling (aws/karpenter-provider-aws, pkg/controllers/interruption/utils.go
 * `handleNodeClaim`, `notifyForMessage`, `actionForMessage`, `markUnavailableOfferings`, `deleteNodeClaim`; the
 * Events in pkg/controllers/interruption/events/events.go; message kinds in messages/types.go), followed by the
 * termination controller's taint (kubernetes-sigs/karpenter, pkg/controllers/node/termination/controller.go,
 * `karpenter.sh/disrupted:NoSchedule`). See docs/karpenter-simulator.md.
 */

/** InterruptionKind — the message kinds (messages/types.go). */
export type InterruptionKind =
  | 'rebalance_recommendation'
  | 'scheduled_change'
  | 'spot_interrupted'
  | 'instance_stopped'
  | 'instance_terminated'
  | 'capacity_reservation_interrupted'
  | 'instance_status'
  | 'system_status'
  | 'event_status'
  | 'no_op';

export type InterruptionAction = 'CordonAndDrain' | 'ForcefulTermination' | 'NoAction';

/** KarpenterEvent — one core/v1 Event Karpenter records, on the NodeClaim or on the Node (`source.component: karpenter`). */
export interface KarpenterEvent {
  readonly on: 'NodeClaim' | 'Node';
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** DISRUPTED_TAINT — `karpenter.sh/disrupted:NoSchedule` (pkg/apis/v1/taints.go), put on before the drain. */
export const DISRUPTED_TAINT = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } as const;
/** KARPENTER_COMPONENT — the Events' reporting component (the operator's AppName). */
export const KARPENTER_COMPONENT = 'karpenter';

export interface InterruptionPlan {
  readonly action: InterruptionAction;
  /** Recorded first, as notifyForMessage: for each event the NodeClaim's, then the Node's (when the Node exists). */
  readonly notify: readonly KarpenterEvent[];
  /** An unavailable-offerings entry for the NodeClaim's (spot, type, zone): spot interruptions only. */
  readonly markUnavailable: boolean;
  /** Instance health failures: the `karpenter.sh/nodeclaim-termination-timestamp` annotation, so drain skips PDBs. */
  readonly terminationTimestamp: boolean;
  /** Deleting the NodeClaim: TerminatingOnInterruption on both, then the termination controller taints and drains. */
  readonly deleteNodeClaim: boolean;
  readonly onDelete: readonly KarpenterEvent[];
  readonly taint?: typeof DISRUPTED_TAINT;
}

const pair = (type: KarpenterEvent['type'], reason: string, message: string, hasNode: boolean, nodeMessage = message): KarpenterEvent[] => [
  { on: 'NodeClaim', type, reason, message },
  ...(hasNode ? [{ on: 'Node' as const, type, reason, message: nodeMessage }] : []),
];

/** notifyEvents — events.go's Events for a message kind, NodeClaim first. */
export function notifyEvents(kind: InterruptionKind, hasNode: boolean): KarpenterEvent[] {
  switch (kind) {
    case 'rebalance_recommendation': return pair('Normal', 'SpotRebalanceRecommendation', 'Spot rebalance recommendation was triggered', hasNode);
    case 'spot_interrupted': return pair('Warning', 'SpotInterrupted', 'Spot interruption warning was triggered', hasNode);
    case 'instance_stopped': return pair('Warning', 'InstanceStopping', 'Instance is stopping', hasNode);
    case 'instance_terminated': return pair('Warning', 'InstanceTerminating', 'Instance is terminating', hasNode);
    case 'capacity_reservation_interrupted':
      return pair('Warning', 'CapacityReservationInstanceInterrupted', 'Capacity Reservation interruption warning was triggered', hasNode);
    case 'scheduled_change':
    case 'event_status':
    case 'instance_status':
    case 'system_status':
      return pair('Warning', 'InstanceUnhealthy', 'An unhealthy warning was triggered for the instance', hasNode);
    case 'no_op': return [];
  }
}

/** actionFor — `actionForMessage`. */
export function actionFor(kind: InterruptionKind): InterruptionAction {
  switch (kind) {
    case 'instance_status':
    case 'system_status':
      return 'ForcefulTermination';
    case 'scheduled_change':
    case 'event_status':
    case 'spot_interrupted':
    case 'instance_stopped':
    case 'instance_terminated':
    case 'capacity_reservation_interrupted':
      return 'CordonAndDrain';
    default:
      return 'NoAction';
  }
}

/**
 * planInterruption — what Karpenter does with one message about a NodeClaim (and its Node, when there is one). A
 * rebalance recommendation only records its Events: Karpenter neither taints nor drains on it. A NodeClaim already
 * deleting is not deleted again (no second TerminatingOnInterruption).
 */
export function planInterruption(kind: InterruptionKind, nodeClaim: { hasNode: boolean; deleting?: boolean }): InterruptionPlan {
  const action = actionFor(kind);
  const deleteNodeClaim = action !== 'NoAction' && nodeClaim.deleting !== true;
  return {
    action,
    notify: notifyEvents(kind, nodeClaim.hasNode),
    markUnavailable: kind === 'spot_interrupted',
    terminationTimestamp: action === 'ForcefulTermination',
    deleteNodeClaim,
    onDelete: deleteNodeClaim
      ? pair('Warning', 'TerminatingOnInterruption', 'Interruption triggered termination for the NodeClaim', nodeClaim.hasNode, 'Interruption triggered termination for the Node')
      : [],
    ...(deleteNodeClaim && nodeClaim.hasNode ? { taint: DISRUPTED_TAINT } : {}),
  };
}
