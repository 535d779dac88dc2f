/** Which service publishes each routing key of `nodes.events`: the AsyncAPI document and docs/design.md's services table read it. */
import { EventTypes, ServiceNames, heartbeatType, type EventType, type ServiceName } from './events.js';
import { APPROVAL_OWNERS } from './approvals.js';

/** Every service that owns approvals of some kind publishes their events: the owners of APPROVAL_OWNERS, once each. */
const APPROVAL_SOURCES: readonly ServiceName[] = [...new Set(Object.values(APPROVAL_OWNERS))];

/** eventSources — the publishers of a routing key, as a list. */
export const eventSources = (type: EventType): readonly ServiceName[] => {
  const s = EVENT_SOURCES[type];
  return typeof s === 'string' ? [s] : s;
};

/**
 * EVENT_SOURCES — the service (or services) that publish each routing key (the CloudEvents `source` is
 * `nodes-manager/<service>`). Approval events come from every service that owns approvals.
 */
export const EVENT_SOURCES: Readonly<Record<EventType, ServiceName | readonly ServiceName[]>> = {
  'node.added': 'node-sync',
  'node.removed': 'node-sync',
  'node.changed': 'node-sync',
  'nodes.synced': 'node-sync',
  'node.uncordoned': 'uncordon',
  'node.drain.started': 'uncordon',
  'node.drain.completed': 'uncordon',
  'node.drain.failed': 'uncordon',
  'rebalance.observed': 'uncordon',
  'rebalance.resolved': 'uncordon',
  'scheduling.decided': 'scheduler-scoring',
  'optimize.planned': 'scheduler-scoring',
  'optimize.executed': 'scheduler-scoring',
  'nodepool.created': 'karpenter-gateway',
  'nodepool.updated': 'karpenter-gateway',
  'pool.health.changed': 'karpenter-gateway',
  'nodepool.steered': 'karpenter-gateway',
  'nodepool.deleted': 'karpenter-gateway',
  'nodepool.consolidation.requested': 'karpenter-gateway',
  'spot.prices.refreshed': 'spot-advisor',
  'instance.provisioned': 'spot-advisor',
  'node.fenced': 'uncordon',
  'fencing.suspended': 'uncordon',
  'node.pressure.relieved': 'uncordon',
  'approval.requested': APPROVAL_SOURCES,
  'approval.approved': APPROVAL_SOURCES,
  'approval.rejected': APPROVAL_SOURCES,
  'approval.expired': APPROVAL_SOURCES,
  'approval.executed': APPROVAL_SOURCES,
  'disruptions.paused': 'uncordon',
  'disruptions.resumed': 'uncordon',
  'cluster.heartbeat': 'karpenter-gateway',
  ...(Object.fromEntries(ServiceNames.map((s) => [heartbeatType(s), s])) as Record<`heartbeat.${ServiceName}`, ServiceName>),
};
