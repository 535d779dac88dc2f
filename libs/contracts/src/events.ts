/**
 * Events on the `nodes.events` topic exchange: CloudEvents 1.0 in JSON structured mode. The routing key is the
 * CloudEvents `type`. Data only — the AsyncAPI document (docs/asyncapi.yaml) is checked against this file in a test.
 */
export const EVENTS_EXCHANGE = 'nodes.events';

export const ServiceNames = [
  'api-gateway',
  'node-sync',
  'uncordon',
  'scheduler-scoring',
  'karpenter-gateway',
  'spot-advisor',
] as const;
export type ServiceName = (typeof ServiceNames)[number];

export const EventTypes = {
  nodeAdded: 'node.added',
  nodeRemoved: 'node.removed',
  nodeChanged: 'node.changed',
  nodesSynced: 'nodes.synced',
  nodeUncordoned: 'node.uncordoned',
  nodeDrainStarted: 'node.drain.started',
  nodeDrainCompleted: 'node.drain.completed',
  nodeDrainFailed: 'node.drain.failed',
  rebalanceObserved: 'rebalance.observed',
  rebalanceResolved: 'rebalance.resolved',
  schedulingDecided: 'scheduling.decided',
  optimizePlanned: 'optimize.planned',
  optimizeExecuted: 'optimize.executed',
  nodepoolCreated: 'nodepool.created',
  nodepoolUpdated: 'nodepool.updated',
  nodepoolDeleted: 'nodepool.deleted',
  nodepoolConsolidationRequested: 'nodepool.consolidation.requested',
  poolHealthChanged: 'pool.health.changed',
  nodepoolSteered: 'nodepool.steered',
  spotPricesRefreshed: 'spot.prices.refreshed',
  instanceProvisioned: 'instance.provisioned',
  nodeFenced: 'node.fenced',
  fencingSuspended: 'fencing.suspended',
  nodePressureRelieved: 'node.pressure.relieved',
  approvalRequested: 'approval.requested',
  approvalApproved: 'approval.approved',
  approvalRejected: 'approval.rejected',
  approvalExpired: 'approval.expired',
  approvalExecuted: 'approval.executed',
  disruptionsPaused: 'disruptions.paused',
  disruptionsResumed: 'disruptions.resumed',
  clusterHeartbeat: 'cluster.heartbeat',
} as const;
export type ActionEventType = (typeof EventTypes)[keyof typeof EventTypes];
export type HeartbeatEventType = `heartbeat.${ServiceName}`;
export type EventType = ActionEventType | HeartbeatEventType;

export const heartbeatType = (service: ServiceName): HeartbeatEventType => `heartbeat.${service}`;

/** Every routing key the system publishes, heartbeats included. */
export const ALL_EVENT_TYPES: readonly EventType[] = [
  ...Object.values(EventTypes),
  ...ServiceNames.map(heartbeatType),
];

/**
 * CloudEvent — the envelope of every message on `nodes.events`. `actor` (who asked for the action: a JWT `sub`,
 * or `system:<service>` for the loops) and `correlationid` are CloudEvents extension attributes.
 */
export interface CloudEvent<T = unknown> {
  specversion: '1.0';
  id: string;
  source: `nodes-manager/${ServiceName}`;
  type: EventType;
  time: string;
  datacontenttype: 'application/json';
  subject?: string;
  actor?: string;
  correlationid?: string;
  /** The cluster that published it (docs/fleet.md#cluster-identity): CloudEvents extension attributes. */
  clusterid?: string;
  clustername?: string;
  data: T;
}

/** The cluster a deployment runs beside: a stable id (the EKS cluster ARN, or any unique string) and a name for people. */
export interface ClusterIdentity {
  id: string;
  name: string;
}
