/**
 * JSON Schemas (draft-07, plain objects) of the `data` of every event on `nodes.events`, keyed by routing key: one
 * schema per routing key in one table, which the AsyncAPI document (asyncapi.ts) and the contract tests read. Data
 * only: no I/O. Top-level `data` objects are closed (`additionalProperties: false`) so that a producer adding a field
 * fails the contract test until the field is documented here; consumers should still ignore fields they do not know.
 */
import { EventTypes, ServiceNames, heartbeatType, type EventType, type ServiceName } from './events.js';
import { NODE_STATES } from './api.js';
import { ApprovalKinds, ApprovalStatuses } from './approvals.js';
import { DrainFailureReason, DrainPodOutcome, DrainStatus, UNCORDON_REASONS } from './uncordon.js';
import { FENCING_ACTIONS, PRESSURE_MODES, PressureReliefOutcome } from './fencing.js';
import { PauseScopes, PauseSources } from './pause.js';
import { anyObject, arrayOf, bool, closed, int, nullable, nullableNum, nullableStr, nullableTime, num, oneOf, str, time, uuid, type JsonSchema } from './json-schema.js';
import { INTERRUPTION_SOURCES, LEDGER_SOURCES, REBALANCE_EVIDENCE_KINDS, REBALANCE_OUTCOMES, REBALANCE_SIGNALS, REBALANCE_TIME_SOURCES } from './rebalance.js';

export type { JsonSchema } from './json-schema.js';

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
          reason: { type: 'string', enum: ['no_nodeclaim', 'already_deleting', 'nodeclaim_do_not_disrupt', 'node_do_not_disrupt', 'pod_do_not_disrupt', 'budget_exhausted', 'duplicate', 'paused'] },
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

const rebalanceEvidence = closed({ kind: { type: 'string', enum: [...REBALANCE_EVIDENCE_KINDS] }, at: time(), detail: str(), source: { type: 'string', enum: [...LEDGER_SOURCES] } }, ['detail', 'source']);
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

const poolStateCount = (state: string) => int(`pools whose last decision was \`${state}\``);
/** `cluster.heartbeat` — the cluster's counts, once per CLUSTER_HEARTBEAT_INTERVAL_SECONDS (docs/fleet.md#the-cluster-heartbeat). */
const clusterHeartbeat = closed(
  {
    version: str('the nodes-manager version this cluster runs'),
    intervalSeconds: { ...int('the beat interval: a receiver counts missed beats by it'), minimum: 1 },
    nodes: { type: ['integer', 'null'], minimum: 0, description: 'nodes in the cluster (node-sync); null when node-sync did not answer' },
    spotNodes: { type: ['integer', 'null'], minimum: 0, description: 'of them, Spot nodes (capacity type `spot`); null when node-sync did not answer' },
    cordonsWaiting: { type: ['integer', 'null'], minimum: 0, description: 'cordoned nodes uncordon waits on (verdict `wait`); null when uncordon did not answer' },
    steering: closed(
      {
        mode: oneOf(['off', 'plan', 'execute'], 'STEERING_MODE'),
        pools: closed({ healthy: poolStateCount('healthy'), watch: poolStateCount('watch'), avoid: poolStateCount('avoid') }),
        decidedAt: nullableTime('when a steering pass last decided the pools; null before the first'),
      },
      [],
      'steering mode and state: the pools by their last decision',
    ),
  },
  [],
  'The cluster is alive, with its counts: one beat per interval from the leader of karpenter-gateway. A count whose owner did not answer is null, never a guess.',
);

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
  [EventTypes.poolHealthChanged]: closed(
    {
      pool: str('instanceType/zone'),
      instanceType: str(),
      zone: str(),
      from: nullable(oneOf(['healthy', 'watch', 'avoid'])),
      to: oneOf(['healthy', 'watch', 'avoid']),
      since: time(),
      reason: str('the rule\'s reason: burst, share-above-avoid, cool-off-ended, … (docs/steering.md#the-rule)'),
      sentence: str('why, for a person'),
      restoreAt: nullableTime('in avoid: the earliest time it may be restored'),
      evidence: closed(
        {
          samples: int('rebalances with a known follow-up counted'),
          interrupted: int(),
          share: nullableNum('interrupted / samples'),
          interval95: nullable(arrayOf(num(), 'the 95% Wilson interval of the share: [lower, upper]')),
          bursts: int('bursts of interruptions in the window'),
          lastInterruptionAt: nullableTime(),
          leadTimeMinutes: nullable(closed({ samples: int(), median: num(), p90: num() })),
          priceRatio: nullableNum('Spot / on-demand price'),
        },
        [],
        'The figures behind the decision.',
      ),
      mode: oneOf(['off', 'plan', 'execute'], 'STEERING_MODE when it was decided'),
    },
    [],
    "A Spot pool's health changed (healthy, watch, avoid).",
  ),
  [EventTypes.nodepoolSteered]: closed(
    {
      nodePool: str(),
      changes: arrayOf(oneOf(['narrow', 'restore', 'fallback-to-on-demand', 'return-to-spot', 'replan-after-foreign-edit'])),
      before: arrayOf(anyObject('a requirement'), "spec.template.spec.requirements before the write"),
      after: arrayOf(anyObject('a requirement'), 'spec.template.spec.requirements as written'),
      original: arrayOf(anyObject('a requirement'), "the owner's requirements, which an undo restores exactly"),
      exclusions: arrayOf(closed({ kind: oneOf(['instance-type', 'zone']), value: str(), covers: arrayOf(str('instanceType/zone')), loses: int('offerings lost that were not avoided'), sentence: str() })),
      fallback: bool('on on-demand because every Spot offering is avoided'),
      replaceOnDemand: arrayOf(str('node'), 'on returning to Spot: the on-demand nodes launched during the fallback, to be replaced gradually'),
      sentence: str(),
      resourceVersion: str(),
      approvalId: nullableStr('the steer approval carried out, if one was needed'),
    },
    [],
    "Steering changed a NodePool's requirements.",
  ),
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
      pools: arrayOf(closed({ nodePool: str(), dead: int(), total: int(), percent: num(), suspended: bool() })),
      maxUnhealthyPercent: num(),
      maxUnhealthyCount: int('FENCING_MAX_UNHEALTHY_COUNT: fencing stops where more than this many and more than the percentage look dead'),
    },
    ['pools', 'maxUnhealthyCount'],
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
  [EventTypes.clusterHeartbeat]: clusterHeartbeat,
  ...(Object.fromEntries(ServiceNames.map((s) => [heartbeatType(s), heartbeat])) as Record<`heartbeat.${ServiceName}`, JsonSchema>),
};
