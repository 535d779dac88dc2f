/**
 * JSON Schemas (draft-07, plain objects) of the `data` of every event on `nodes.events`, keyed by routing key, and
 * the AsyncAPI 3.0 document built from them (docs/asyncapi.yaml is generated from {@link asyncApiDocument} and a
 * test checks the two agree). Data only: no I/O. Top-level `data` objects are closed (`additionalProperties:
 * false`) so that a producer adding a field fails the contract test until the field is documented here; consumers
 * should still ignore fields they do not know. Longer than 500 lines on purpose: one schema per routing key in one
 * table, so that the generator and the contract tests read a single place.
 */
import { ALL_EVENT_TYPES, EVENTS_EXCHANGE, EventTypes, ServiceNames, heartbeatType, type CloudEvent, type EventType, type ServiceName } from './events.js';
import { EVENT_EXAMPLES } from './event-examples.js';
import { NODE_STATES } from './api.js';
import { APPROVAL_OWNERS, ApprovalKinds, ApprovalStatuses } from './approvals.js';
import { DrainFailureReason, DrainPodOutcome, DrainStatus, UNCORDON_REASONS } from './uncordon.js';
import { FENCING_ACTIONS, PRESSURE_MODES, PressureReliefOutcome } from './fencing.js';
import { PauseScopes, PauseSources } from './pause.js';
import { INTERRUPTION_SOURCES, REBALANCE_EVIDENCE_KINDS, REBALANCE_OUTCOMES, REBALANCE_SIGNALS, REBALANCE_TIME_SOURCES } from './rebalance.js';

/** JsonSchema — a JSON Schema as a plain object. */
export type JsonSchema = { readonly [key: string]: unknown };

const str = (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) });
const nullableStr = (description?: string): JsonSchema => ({ type: ['string', 'null'], ...(description ? { description } : {}) });
const int = (description?: string): JsonSchema => ({ type: 'integer', minimum: 0, ...(description ? { description } : {}) });
const num = (description?: string): JsonSchema => ({ type: 'number', ...(description ? { description } : {}) });
const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const time = (description?: string): JsonSchema => ({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
const uuid = (description?: string): JsonSchema => ({ type: 'string', format: 'uuid', ...(description ? { description } : {}) });
const arrayOf = (items: JsonSchema, description?: string): JsonSchema => ({ type: 'array', items, ...(description ? { description } : {}) });
const anyObject = (description?: string): JsonSchema => ({ type: 'object', ...(description ? { description } : {}) });

/** closed — an object with exactly these properties; those not listed in `optional` are required. */
function closed(properties: Record<string, JsonSchema>, optional: readonly string[] = [], description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}

const nodeState: JsonSchema = { type: 'string', enum: [...NODE_STATES] };
const taint = closed({ key: str(), value: nullableStr(), effect: str('NoSchedule, PreferNoSchedule or NoExecute') });
const nodeResources = closed({ cpuMilli: int(), memoryBytes: int(), gpu: int(), pods: int() });
const nodeOperatorView = closed({ ready: bool(), unschedulable: bool(), state: nodeState, taints: arrayOf(taint), allocatable: nodeResources });

const uncordonEvidence = closed(
  {
    cordonedSince: time('T: when the cordon was set'),
    cordonedSinceSource: { type: 'string', enum: ['managed-fields', 'first-seen'] },
    cordonManager: str('the managedFields manager owning f:spec.f:unschedulable, verbatim'),
    cordonManagerKind: {
      type: 'string',
      enum: ['node-termination-handler', 'kubectl-cordon', 'karpenter', 'cluster-autoscaler', 'nodes-manager', 'ancient-changes', 'unknown'],
    },
    provenance: { type: 'string', enum: ['managed-fields', 'rebalance-taint'] },
    rebalanceTaint: bool(),
    ready: bool(),
    readySince: time("the Ready condition's lastTransitionTime"),
    effectiveGraceMinutes: num('gracePeriodMinutes × 2^flapCount'),
    flapCount: int('uncordons of this node by nodes-manager in the 24 h before'),
    cordonedForMs: num(),
    blockingTaints: arrayOf(str()),
    blockingKey: str(),
    memoryFullAvg10: num('memory PSI full avg10 (percent) that held the uncordon back'),
  },
  [
    'cordonedSince', 'cordonedSinceSource', 'cordonManager', 'cordonManagerKind', 'provenance', 'rebalanceTaint', 'ready',
    'readySince', 'effectiveGraceMinutes', 'flapCount', 'cordonedForMs', 'blockingTaints', 'blockingKey', 'memoryFullAvg10',
  ],
  'What the verdict was based on (docs/auto-uncordon.md).',
);

const approvalResult = closed(
  {
    node: str(),
    outcome: { type: 'string', enum: ['started', 'skipped', 'failed'] },
    reason: str('why: planned_removal, or the re-check that no longer held (outside_window, above_threshold, pods_do_not_fit, …)'),
    detail: str(),
    operationId: uuid('the drain (or fencing) operation, when one started'),
    nodeClaim: str('the NodeClaim deleted or kept, for a consolidation'),
  },
  ['operationId', 'nodeClaim'],
);

/** approvalEvent — every approval.* event carries the approval's identity, its action in short and its outcome so far. */
function approvalEvent(description: string): JsonSchema {
  return closed(
    {
      approvalId: str('`<kind>-<uuid>`'),
      kind: { type: 'string', enum: [...ApprovalKinds] },
      status: { type: 'string', enum: [...ApprovalStatuses] },
      subject: str('`cluster` for the optimizer, the NodePool for a consolidation, the node for a fence or a manual drain'),
      planId: nullableStr('the consolidation plan it carries out'),
      nodes: arrayOf(str(), 'the nodes the action disrupts'),
      hourlySavingsUsd: { type: ['number', 'null'] },
      requestedBy: str(),
      expiresAt: time(),
      decidedBy: nullableStr('who approved or rejected it'),
      comment: nullableStr(),
      results: arrayOf(approvalResult, 'per node, once executed'),
    },
    [],
    description,
  );
}

/** activePause — a pause in force: who paused, why, since when, until when, what it holds (docs/pause.md). */
function activePause(description: string): JsonSchema {
  return closed(
    {
      reason: str('why, in the words of who paused'),
      scope: { type: 'string', enum: [...PauseScopes], description: '`disruptive`: every disruptive action; `all`: auto-uncordon too' },
      pausedBy: str('a JWT sub, or `config:DISRUPTION_PAUSE`'),
      pausedAt: time(),
      until: { type: ['string', 'null'], format: 'date-time', description: 'when it ends by itself; null: until resumed' },
      source: { type: 'string', enum: [...PauseSources] },
    },
    [],
    description,
  );
}

const podReason = closed({ pod: str('namespace/name'), reason: str() });
const drainProgress = closed(
  {
    podsTotal: int(),
    podsLeft: int(),
    pdbWaits: int('evictions refused by a PodDisruptionBudget (429), each retry counted'),
    errors: arrayOf(str()),
    resumed: int('how often a restarted leader picked the operation up again'),
    pods: arrayOf(closed({ pod: str(), phase: str(), attempts: int(), lastMessage: str() }, ['lastMessage'])),
    skipped: arrayOf(podReason),
    refused: arrayOf(podReason),
    message: str('the final message, once the drain has ended'),
    outcomes: arrayOf(closed({ pod: str(), outcome: { type: 'string', enum: Object.values(DrainPodOutcome) } }), 'per-pod results, once the drain has ended'),
  },
  ['message', 'outcomes'],
);
const drainEvent = (status: readonly string[], failed: boolean): JsonSchema =>
  closed(
    {
      operationId: uuid('the drain operation: GET /api/v1/drains/{operationId}'),
      node: str(),
      status: { type: 'string', enum: [...status] },
      reason: failed ? { type: 'string', enum: Object.values(DrainFailureReason) } : str(),
      message: str(),
      progress: drainProgress,
    },
    failed ? ['message', 'progress'] : ['reason', 'message', 'progress'],
  );

const poolLimitsAndDisruption = closed({ limits: { type: ['object', 'null'] }, disruption: { type: ['object', 'null'] } });
const disruptionReason: JsonSchema = { type: 'string', enum: ['Underutilized', 'Empty', 'Drifted'] };
const consolidationResult = closed(
  {
    nodePool: str(),
    dryRun: bool('always false on the event: a dry run publishes nothing'),
    nodeClaims: arrayOf(closed({ nodeClaim: str(), node: str(), reason: disruptionReason }), 'the NodeClaims deleted'),
    failed: arrayOf(closed({ nodeClaim: str(), node: str(), error: str() })),
    skipped: arrayOf(
      closed(
        {
          node: str(),
          nodeClaim: str(),
          reason: { type: 'string', enum: ['no_nodeclaim', 'already_deleting', 'nodeclaim_do_not_disrupt', 'node_do_not_disrupt', 'pod_do_not_disrupt', 'budget_exhausted', 'duplicate'] },
        },
        ['nodeClaim'],
      ),
    ),
    budget: closed({
      poolNodes: int(),
      disrupting: int(),
      active: arrayOf(closed({ index: int(), nodes: str(), reasons: arrayOf(disruptionReason), allowed: int() }, ['reasons'])),
      allowed: {
        type: 'object',
        description: 'per reason, how many NodeClaims could go before this selection (null: no budget caps it)',
        additionalProperties: { type: ['integer', 'null'] },
      },
    }),
    planned: int('removals in the scheduler-scoring plan for this pool'),
  },
  [],
);

const rebalanceEvidence = closed({ kind: { type: 'string', enum: [...REBALANCE_EVIDENCE_KINDS] }, at: time(), detail: str() }, ['detail']);
const rebalanceIdentity = {
  id: uuid('the ledger row: GET /api/v1/rebalances'),
  node: str(),
  nodeUid: str('the Node object: a re-created node of the same name is another row'),
  instanceId: nullableStr('EC2 instance id from the providerID'),
  instanceType: nullableStr(),
  zone: nullableStr(),
  capacityType: nullableStr('spot or on-demand'),
  nodePool: nullableStr('Karpenter NodePool or EKS node group'),
  seenAt: time('when the rebalance recommendation was seen'),
  seenSignal: { type: 'string', enum: [...REBALANCE_SIGNALS] },
  seenTimeSource: { type: 'string', enum: [...REBALANCE_TIME_SOURCES] },
  evidence: arrayOf(rebalanceEvidence, 'every fact behind the row, oldest first'),
};
const nullableTime = (description?: string): JsonSchema => ({ type: ['string', 'null'], format: 'date-time', ...(description ? { description } : {}) });

const heartbeat = closed({ service: { type: 'string', enum: [...ServiceNames] }, mode: { type: 'string', enum: ['split', 'all-in-one'] } });

/** EVENT_DATA_SCHEMAS — the JSON Schema of `data`, for every routing key in {@link ALL_EVENT_TYPES}. */
export const EVENT_DATA_SCHEMAS: Readonly<Record<EventType, JsonSchema>> = {
  [EventTypes.nodeAdded]: closed(
    {
      name: str(),
      uid: str(),
      instanceId: nullableStr('EC2 instance id (i-…) from the providerID'),
      instanceType: nullableStr(),
      zone: nullableStr(),
      capacityType: nullableStr('spot or on-demand'),
      nodePool: nullableStr('Karpenter NodePool or EKS node group'),
      state: nodeState,
      ready: bool(),
      unschedulable: bool(),
    },
    [],
    'A node appeared in the cluster.',
  ),
  [EventTypes.nodeRemoved]: closed({ name: str(), uid: str(), instanceId: nullableStr(), lastState: nodeState }, [], 'A node left the cluster.'),
  [EventTypes.nodeChanged]: closed(
    {
      name: str(),
      changed: arrayOf({ type: 'string', enum: ['ready', 'unschedulable', 'state', 'taints', 'allocatable'] }),
      before: nodeOperatorView,
      after: nodeOperatorView,
    },
    [],
    "A node's operator-visible fields changed.",
  ),
  [EventTypes.nodesSynced]: closed(
    {
      trigger: str('what started the cycle (timer, watch, …)'),
      nodesAdded: int(),
      nodesRemoved: int(),
      nodesChanged: int(),
      podsWritten: int(),
      podsRemoved: int(),
      nodes: int('live nodes'),
      pods: int('live pods'),
      nodesByState: { type: 'object', propertyNames: { enum: [...NODE_STATES] }, additionalProperties: { type: 'integer', minimum: 0 } },
      rowsWritten: closed({ nodeRows: int(), podRows: int() }),
      durationMs: num(),
    },
    [],
    'One node-sync cycle wrote its changes.',
  ),
  [EventTypes.nodeUncordoned]: closed(
    {
      node: str(),
      reason: { type: 'string', enum: [...UNCORDON_REASONS] },
      description: str('plain-language summary of the evidence'),
      evidence: uncordonEvidence,
      uncordonedAt: time(),
      rebalanceTaintRemoved: bool("NTH's rebalance-recommendation taint was removed with the cordon"),
    },
    [],
    'Auto-uncordon reversed a Spot rebalance cordon (docs/auto-uncordon.md).',
  ),
  [EventTypes.nodeDrainStarted]: drainEvent([DrainStatus.PENDING, DrainStatus.RUNNING], false),
  [EventTypes.nodeDrainCompleted]: drainEvent([DrainStatus.COMPLETED], false),
  [EventTypes.nodeDrainFailed]: drainEvent([DrainStatus.FAILED], true),
  [EventTypes.rebalanceObserved]: closed(rebalanceIdentity, [], 'A Spot rebalance recommendation was seen on a node and a ledger row opened (docs/rebalance-ledger.md).'),
  [EventTypes.rebalanceResolved]: closed(
    {
      ...rebalanceIdentity,
      outcome: { type: 'string', enum: REBALANCE_OUTCOMES.filter((o) => o === 'interrupted' || o === 'removed' || o === 'survived') },
      resolved: { const: true },
      resolvedAt: time(),
      uncordonedAt: nullableTime('when nodes-manager uncordoned the node, if it did'),
      recordonedAt: nullableTime('when the node was cordoned again after that'),
      interruptedAt: nullableTime(),
      interruptionSource: { type: ['string', 'null'], enum: [...INTERRUPTION_SOURCES, null] },
      leadTimeMs: { type: ['number', 'null'], minimum: 0, description: 'rebalance seen → interruption' },
      givenBackMs: num('time uncordoned by nodes-manager and serving before the node ended or the horizon passed'),
    },
    [],
    'A ledger row reached its final outcome: interrupted, removed or survived (docs/rebalance-ledger.md).',
  ),
  [EventTypes.schedulingDecided]: closed(
    {
      id: uuid(),
      kind: str('what was decided: placement, scale-up, consolidation plan or action, …'),
      subject: str('the node, workload or plan the decision is about'),
      outcome: str(),
      reason: str('machine-readable reason'),
      rationale: str('plain-language rationale naming the deciding factors'),
      score: { type: ['number', 'null'] },
      details: anyObject(),
      actor: str(),
      correlationId: nullableStr(),
      createdAt: time(),
    },
    [],
    'A scheduling decision was recorded (the decision log: GET /api/v1/decisions).',
  ),
  [EventTypes.optimizePlanned]: closed(
    {
      planId: uuid(),
      mode: { type: 'string', enum: ['plan', 'execute'] },
      dryRun: bool(),
      remove: arrayOf(
        closed({ node: str(), reason: { type: 'string', enum: ['empty', 'underutilized'] }, utilization: num('max(cpu, memory) requested / allocatable'), savingsUsdPerHour: num() }),
      ),
      blocked: int('nodes that could not be removed'),
      hourlySavingsUsd: num(),
      monthlySavingsUsd: num('hourly × 730'),
      priceSource: { type: 'string', enum: ['spot-advisor', 'bundled-catalog'] },
    },
    [],
    'A consolidation plan was made.',
  ),
  [EventTypes.optimizeExecuted]: closed(
    {
      planId: uuid(),
      drained: arrayOf(closed({ node: str(), operationId: uuid(), status: str() })),
      skipped: arrayOf(closed({ node: str(), reason: str(), detail: str() })),
    },
    [],
    'A consolidation plan was carried out: drains started, removals skipped.',
  ),
  [EventTypes.nodepoolCreated]: closed({ nodePool: str(), spec: anyObject('the NodePool spec as created'), resourceVersion: str() }),
  [EventTypes.nodepoolUpdated]: closed({
    nodePool: str(),
    patch: anyObject('the merge patch of spec.limits / spec.disruption'),
    before: poolLimitsAndDisruption,
    after: poolLimitsAndDisruption,
    resourceVersion: str(),
  }),
  [EventTypes.nodepoolDeleted]: closed({ nodePool: str(), uid: nullableStr() }),
  [EventTypes.nodepoolConsolidationRequested]: consolidationResult,
  [EventTypes.spotPricesRefreshed]: closed(
    {
      region: str(),
      fetchedAt: time(),
      windowStart: time(),
      windowEnd: time(),
      samples: int('price-history samples read'),
      inserted: int('new samples stored'),
      pools: int('instance type × zone pools'),
      instanceTypes: int(),
      zones: arrayOf(str()),
    },
    [],
    "A region's Spot price history was re-read.",
  ),
  [EventTypes.instanceProvisioned]: closed(
    {
      requestId: uuid(),
      clientToken: str('the idempotency token the caller sent'),
      region: str(),
      reservationId: str(),
      instanceType: str(),
      count: int(),
      instanceIds: arrayOf(str()),
      requestedBy: str('the actor (JWT sub) who asked'),
    },
    [],
    'On-demand instances were launched (POST /api/v1/instances).',
  ),
  [EventTypes.nodeFenced]: closed(
    {
      operationId: uuid('the fencing operation: GET /api/v1/fencing'),
      node: str(),
      nodeUid: str(),
      instanceId: str(),
      zone: nullableStr(),
      action: { type: 'string', enum: [...FENCING_ACTIONS] },
      instanceState: str('the EC2 state that proved the node dead (stopped or terminated)'),
      leaseRenewedAt: nullableStr('the last renewal of the node Lease before the fence'),
      podsDeleted: int('pods still bound to the node that nodes-manager deleted after the out-of-service taint'),
      fencedAt: time(),
    },
    [],
    'A hung node opted in to fencing was stopped or terminated in EC2 and tainted out-of-service (docs/fencing.md).',
  ),
  [EventTypes.fencingSuspended]: closed(
    {
      suspended: bool('true when fencing stopped, false when it resumed'),
      overall: closed({ dead: int(), total: int(), percent: num(), suspended: bool() }),
      zones: arrayOf(closed({ zone: str(), dead: int(), total: int(), percent: num(), suspended: bool() })),
      maxUnhealthyPercent: num(),
    },
    [],
    'Too many opted-in nodes looked dead at once, so fencing stopped (a suspected partition), or it resumed.',
  ),
  [EventTypes.nodePressureRelieved]: closed(
    {
      node: str(),
      mode: { type: 'string', enum: [...PRESSURE_MODES] },
      pod: str('namespace/name of the pod evicted (or that would have been)'),
      outcome: { type: 'string', enum: Object.values(PressureReliefOutcome) },
      memoryFullAvg10: num('memory full avg10 (percent) when the relief was decided'),
      workingSetBytes: int(),
      requestBytes: int(),
      qosClass: str(),
      message: str(),
    },
    [],
    'A node under sustained memory pressure had one pod evicted to relieve it (docs/pressure.md).',
  ),
  [EventTypes.approvalRequested]: approvalEvent('A disruptive action waits for approval instead of running (DISRUPTION_APPROVAL=manual).'),
  [EventTypes.approvalApproved]: approvalEvent('An approval was approved; the action runs at the next pass inside a maintenance window.'),
  [EventTypes.approvalRejected]: approvalEvent('An approval was rejected: nothing is done.'),
  [EventTypes.approvalExpired]: approvalEvent('An approval was left alone past APPROVAL_TTL_MINUTES: nothing is done.'),
  [EventTypes.approvalExecuted]: approvalEvent('An approved action ran: per node, started or skipped with the reason its re-check gave (status executed or failed).'),
  [EventTypes.disruptionsPaused]: activePause('Disruptive actions were paused fleet-wide (POST /api/v1/pause, or DISRUPTION_PAUSE at start), or the pause in force was changed (docs/pause.md).'),
  [EventTypes.disruptionsResumed]: closed(
    {
      resumedBy: str('who resumed: a JWT sub, `system:uncordon` when `until` passed, `config:DISRUPTION_PAUSE`'),
      resumedAt: time(),
      why: { type: 'string', enum: ['operator', 'expired', 'configuration'] },
      pause: activePause('the pause that ended'),
    },
    [],
    'The fleet-wide pause of disruptive actions ended: an operator resumed (DELETE /api/v1/pause), its `until` passed, or the configuration changed (docs/pause.md).',
  ),
  ...(Object.fromEntries(ServiceNames.map((s) => [heartbeatType(s), heartbeat])) as Record<`heartbeat.${ServiceName}`, JsonSchema>),
};

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
  'nodepool.deleted': 'karpenter-gateway',
  'nodepool.consolidation.requested': 'karpenter-gateway',
  'spot.prices.refreshed': 'spot-advisor',
  'instance.provisioned': 'spot-advisor',
  'node.fenced': 'uncordon',
  'fencing.suspended': 'uncordon',
  'node.pressure.relieved': 'uncordon',
  'disruptions.paused': 'uncordon',
  'disruptions.resumed': 'uncordon',
  'approval.requested': APPROVAL_SOURCES,
  'approval.approved': APPROVAL_SOURCES,
  'approval.rejected': APPROVAL_SOURCES,
  'approval.expired': APPROVAL_SOURCES,
  'approval.executed': APPROVAL_SOURCES,
  ...(Object.fromEntries(ServiceNames.map((s) => [heartbeatType(s), s])) as Record<`heartbeat.${ServiceName}`, ServiceName>),
};

/** cloudEventSchema — the whole message of one routing key: the CloudEvents 1.0 envelope with that `type` and `data`. */
export function cloudEventSchema(type: EventType): JsonSchema {
  return {
    type: 'object',
    description: 'CloudEvents 1.0, JSON structured mode; the AMQP routing key equals `type`.',
    properties: {
      specversion: { const: '1.0' },
      id: uuid('unique per event; consumers deduplicate on it'),
      source: eventSources(type).length === 1 ? { const: `nodes-manager/${eventSources(type)[0]}` } : { enum: eventSources(type).map((s) => `nodes-manager/${s}`) },
      type: { const: type },
      time: time(),
      datacontenttype: { const: 'application/json' },
      subject: str('the node, NodePool or region the event is about'),
      actor: str('who asked: a JWT sub, or system:<service> for the loops'),
      correlationid: str('ties the request, the action and its events together'),
      data: EVENT_DATA_SCHEMAS[type],
    },
    required: ['specversion', 'id', 'source', 'type', 'time', 'datacontenttype', 'data'],
    additionalProperties: false,
  };
}

/** messageName — an AsyncAPI component name for a routing key (`node.drain.started` → `nodeDrainStarted`). */
export const messageName = (type: EventType): string => type.replace(/[.-]([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * asyncApiDocument — AsyncAPI 3.1 for `nodes.events`, written from the producer's side: one channel per routing key
 * (an AMQP topic exchange binding), one `send` operation per channel (nodes-manager publishes; a subscriber reads the
 * same document as what it may receive), one message per routing key whose payload is the CloudEvent with that
 * key's data schema. Delivery properties (persistent, timestamped) are AMQP *operation* bindings; the message
 * binding only names the message type. `examples` are events nodes-manager really published ({@link EVENT_EXAMPLES}).
 */
export function asyncApiDocument(version: string, examples: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = EVENT_EXAMPLES): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const type of ALL_EVENT_TYPES) {
    const name = messageName(type);
    const summary = (EVENT_DATA_SCHEMAS[type]['description'] as string | undefined) ?? `${type} from ${eventSources(type).join(", ")}`;
    const seen = examples[type] ?? [];
    messages[name] = {
      name: type,
      title: type,
      summary,
      contentType: 'application/cloudevents+json',
      payload: cloudEventSchema(type),
      correlationId: { description: 'The CloudEvents `correlationid` extension: the request, the action and its events.', location: '$message.payload#/correlationid' },
      bindings: { amqp: { messageType: type, bindingVersion: '0.3.0' } },
      ...(seen.length ? { examples: seen.map((ev, i) => ({ name: `${name}Example${i + 1}`, summary: `A ${type} event as published`, payload: ev })) } : {}),
    };
    channels[name] = {
      address: type,
      title: type,
      description: `Routing key \`${type}\` on the \`${EVENTS_EXCHANGE}\` topic exchange, published by ${eventSources(type).join(' and ')}.`,
      messages: { [name]: { $ref: `#/components/messages/${name}` } },
      bindings: {
        amqp: { is: 'routingKey', exchange: { name: EVENTS_EXCHANGE, type: 'topic', durable: true, autoDelete: false, vhost: '/' }, bindingVersion: '0.3.0' },
      },
    };
    operations[`send${name[0]!.toUpperCase()}${name.slice(1)}`] = {
      action: 'send',
      title: `Publish ${type}`,
      summary,
      channel: { $ref: `#/channels/${name}` },
      messages: [{ $ref: `#/channels/${name}/messages/${name}` }],
      bindings: { amqp: { deliveryMode: 2, mandatory: false, timestamp: true, bindingVersion: '0.3.0' } },
    };
  }
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'nodes-manager events',
      version,
      description: [
        `Every action of nodes-manager is published as a CloudEvent 1.0 (JSON structured mode) on the durable topic exchange \`${EVENTS_EXCHANGE}\`,`,
        'persistent and with publisher confirms, from a transactional outbox: an outage delays events, it never drops them, and an event may arrive',
        'more than once — deduplicate on the CloudEvents `id`. The routing key equals the CloudEvents `type`; bind your own queue with',
        'a key or a pattern (`node.#`, `nodepool.*`, `heartbeat.*`). Generated from libs/contracts/src/event-schemas.ts.',
      ].join(' '),
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    defaultContentType: 'application/cloudevents+json',
    servers: {
      rabbitmq: { host: 'rabbitmq:5672', protocol: 'amqp', protocolVersion: '0.9.1', description: 'The RabbitMQ of RABBITMQ_URL.' },
    },
    channels,
    operations,
    components: { messages },
  };
}
