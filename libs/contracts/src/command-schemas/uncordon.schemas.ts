import { EVENT_DATA_SCHEMAS } from '../event-schemas.js';
import { FENCING_ACTIONS, FENCING_REASONS, FencingStatus, PRESSURE_MODES } from '../fencing.js';
import { anyObject, arrayOf, bool, closed, int, mapOf, nullable, nullableNum, nullableStr, nullableTime, num, oneOf, open, page, str, time, uuid, type JsonSchema } from '../json-schema.js';
import { INTERRUPTION_SOURCES, REBALANCE_EVIDENCE_KINDS, REBALANCE_OUTCOMES } from '../rebalance.js';
import { DrainStatus, UNCORDON_REASONS } from '../uncordon.js';
import { cursor, limit, objectName, type CommandSchema } from './command-schema.js';

const podReason = open({ pod: str(), reason: str() });
/** DRAIN_OPERATION_SCHEMA — a drain (DrainOperation; docs/uncordon.md#drain). */
export const DRAIN_OPERATION_SCHEMA: JsonSchema = open(
  {
    id: uuid(),
    node: str(),
    status: oneOf(Object.values(DrainStatus)),
    reason: str(),
    message: str(),
    actor: str(),
    options: open({ gracePeriodSeconds: int(), timeoutSeconds: int(), force: bool(), deleteEmptyDirData: bool(), ignoreDaemonSets: bool() }, ['gracePeriodSeconds']),
    progress: open(
      {
        podsTotal: int(),
        podsLeft: int(),
        pdbWaits: int(),
        errors: arrayOf(str()),
        resumed: int(),
        pods: arrayOf(open({ pod: str(), phase: str(), attempts: int(), lastMessage: str() }, ['lastMessage'])),
        skipped: arrayOf(podReason),
        refused: arrayOf(podReason),
        outcomes: arrayOf(open({ pod: str(), outcome: str() })),
        pausedSince: time('while a fleet-wide pause holds the drain at a safe point (docs/pause.md)'),
      },
      ['podsTotal', 'podsLeft', 'pdbWaits', 'errors', 'resumed', 'pods', 'skipped', 'refused', 'outcomes', 'pausedSince'],
      'empty until the leader starts the drain',
    ),
    startedAt: time(),
    updatedAt: time(),
    finishedAt: time(),
  },
  ['reason', 'message', 'finishedAt'],
  'A drain operation (docs/uncordon.md#drain): poll drain.get until status is completed or failed.',
);

const CORDON_VIEW_SCHEMA = open(
  {
    node: str(),
    decision: oneOf(['uncordon', 'wait', 'skip']),
    reason: oneOf(UNCORDON_REASONS),
    description: str('the reason in words (waiting 7 m more; not ours: kubectl-cordon; …)'),
    evidence: anyObject('what the verdict was based on: cordon owner, cordoned since, Ready since, grace'),
    requeueAfterMs: num(),
    uncordonAt: time('when waiting: the moment the (backed-off) grace period ends'),
    firstSeenCordonedAt: time(),
    evaluatedAt: time(),
    rebalance: open(
      {
        instanceType: nullableStr(),
        zone: nullableStr(),
        samples: int(),
        interruptedShare: nullableNum(),
        interval95: { type: ['array', 'null'], items: num() },
        p90LeadMinutes: nullableNum(),
        grace: open({ minutes: num(), basis: oneOf(['fixed', 'learned', 'configured-is-longer', 'too-few-samples']), samples: int(), p90LeadMinutes: num() }, ['p90LeadMinutes']),
      },
      [],
      "the node's Spot pool as the rebalance ledger measured it, and the grace it gets",
    ),
  },
  ['requeueAfterMs', 'uncordonAt', 'firstSeenCordonedAt', 'rebalance'],
  "A cordoned node and auto-uncordon's current verdict on it: why it will, will not, or will later be uncordoned.",
);

const SCALING_EVENT_SCHEMA = open(
  {
    id: str(),
    node: str(),
    action: str(),
    decision: nullableStr(),
    reason: str(),
    actor: str(),
    correlationId: nullableStr(),
    operationId: nullableStr(),
    dryRun: bool(),
    evidence: anyObject(),
    createdAt: time(),
  },
  ['decision', 'correlationId', 'operationId', 'dryRun', 'evidence'],
);

const RESOLVED = EVENT_DATA_SCHEMAS['rebalance.resolved'] as { properties: Record<string, JsonSchema>; required: string[] };
/** REBALANCE_SCHEMA — a ledger row: the resolved event's fields, with the outcomes an open row can have too. */
const REBALANCE_SCHEMA: JsonSchema = {
  ...open(
    {
      ...RESOLVED.properties,
      outcome: oneOf(REBALANCE_OUTCOMES, 'observed, uncordoned and recordoned are open; interrupted, removed and survived final'),
      resolved: bool(),
      resolvedAt: nullableTime(),
    },
    [],
  ),
  description: 'One Spot rebalance recommendation seen on a node and what followed, with every piece of evidence (docs/rebalance-ledger.md).',
};

const figures: JsonSchema = open({
  rebalances: int(),
  open: int(),
  outcomes: mapOf(int()),
  samples: int('interrupted + survived (removed rows are censored)'),
  interrupted: int(),
  interruptedShare: { type: ['number', 'null'], description: 'interrupted / samples' },
  interval95: { type: ['array', 'null'], items: num(), description: '95% Wilson score interval of the share' },
  leadTimeMinutes: nullable(open({ samples: int(), median: num(), p90: num() })),
  nodeHoursGivenBack: num('time auto-uncordon gave back before the node ended, was cordoned again or the horizon passed'),
});
const INTERRUPTION_SCHEMA: JsonSchema = open(
  {
    id: uuid(),
    node: str(),
    nodeUid: str(),
    instanceId: nullableStr(),
    instanceType: nullableStr(),
    zone: nullableStr(),
    capacityType: nullableStr(),
    nodePool: nullableStr(),
    interruptedAt: time(),
    source: oneOf(INTERRUPTION_SOURCES, 'the first signal; its time is the interruption\'s'),
    rebalanceId: { ...nullable(uuid()), description: 'the ledger row of the rebalance recommendation it followed; null: none seen' },
    evidence: arrayOf(open({ kind: oneOf(REBALANCE_EVIDENCE_KINDS), at: time(), detail: str(), source: str() }, ['detail', 'source'])),
  },
  [],
  'One Spot interruption of one Node object, whatever came before it (docs/rebalance-ledger.md#interruptions-per-1000-node-hours).',
);
const rate = {
  interruptions: int(),
  withoutRecommendation: int('interruptions no rebalance recommendation came before'),
  nodeHours: num(),
  nodes: int(),
  per1000NodeHours: nullableNum('interruptions per 1,000 node-hours; null with no node-hours'),
  interval95: { type: ['array', 'null'], items: num(), description: '95% exact (Garwood) Poisson interval of the rate' },
};
const RATES_SCHEMA: JsonSchema = open({
  from: time(),
  to: time(),
  nodeHours: open({ available: bool(), detail: str() }, ['detail']),
  cluster: open(rate),
  byPool: arrayOf(open({ ...rate, instanceType: nullableStr(), zone: nullableStr() })),
});

const grouped = (keys: string[]): JsonSchema => arrayOf({ ...figures, properties: { ...(figures['properties'] as object), ...Object.fromEntries(keys.map((k) => [k, nullableStr()])) } });
const SUMMARY_SCHEMA: JsonSchema = open({
  horizonHours: num(),
  from: nullableTime(),
  to: time(),
  cluster: figures,
  byPool: grouped(['instanceType', 'zone']),
  byInstanceType: grouped(['instanceType']),
  byZone: grouped(['zone']),
  byNodePool: grouped(['nodePool']),
});

const share = open({ zone: str(), nodePool: str(), dead: int(), total: int(), percent: num(), suspended: bool() }, ['zone', 'nodePool']);
/** FENCING_VIEW_SCHEMA — settings, partition shares, verdicts and operations (FencingView; docs/fencing.md). */
export const FENCING_VIEW_SCHEMA: JsonSchema = open({
  enabled: bool(),
  dryRun: bool(),
  action: oneOf(FENCING_ACTIONS),
  leaseTimeoutSeconds: int(),
  maxUnhealthyPercent: num(),
  maxUnhealthyCount: int('FENCING_MAX_UNHEALTHY_COUNT: fencing stops where more than this many and more than the percentage look dead'),
  suspended: bool('a suspected partition holds fencing back (overall, in some zone or in some pool)'),
  overall: share,
  zones: arrayOf(share),
  pools: arrayOf(share),
  verdicts: arrayOf(
    open(
      {
        node: str(),
        zone: nullableStr(),
        decision: oneOf(['fence', 'wait', 'skip']),
        reason: oneOf(FENCING_REASONS),
        message: str(),
        optedIn: bool(),
        ready: oneOf(['False', 'Unknown']),
        notReadySince: nullableTime(),
        leaseRenewedAt: nullableTime(),
        leaseStaleSeconds: { type: ['integer', 'null'] },
        evaluatedAt: time(),
      },
      ['zone', 'notReadySince', 'leaseRenewedAt', 'leaseStaleSeconds'],
    ),
    'every node that is not Ready, and why it was or was not fenced',
  ),
  operations: arrayOf(
    open(
      {
        id: uuid(),
        node: str(),
        nodeUid: str(),
        instanceId: str(),
        zone: nullableStr(),
        action: oneOf(FENCING_ACTIONS),
        dryRun: bool(),
        status: oneOf(Object.values(FencingStatus)),
        reason: str(),
        message: str(),
        instanceState: str(),
        podsDeleted: int(),
        actor: str(),
        steps: arrayOf(open({ status: str(), at: time(), detail: str() }, ['detail'])),
        startedAt: time(),
        updatedAt: time(),
        finishedAt: time(),
      },
      ['zone', 'reason', 'message', 'instanceState', 'finishedAt'],
    ),
    'the latest fencing operations, newest first',
  ),
  evaluatedAt: nullableTime(),
});

const psiAverages = open({ avg10: num(), avg60: num() });
const psiResource = open({ some: psiAverages, full: psiAverages });
/** NODE_PRESSURE_SCHEMA — the last PSI reading of an opted-in node (NodePressure; docs/pressure.md). */
export const NODE_PRESSURE_SCHEMA: JsonSchema = open({
  node: str(),
  mode: oneOf(PRESSURE_MODES),
  status: oneOf(['ok', 'unknown', 'unreachable'], '`unknown`: the kubelet reports no PSI'),
  cpu: nullable(psiResource),
  memory: nullable(psiResource),
  io: nullable(psiResource),
  highSamples: int('consecutive readings with memory full avg10 above PRESSURE_MEMORY_FULL_THRESHOLD'),
  sampledAt: time(),
  lastRelief: nullable(open({ pod: str(), at: time(), outcome: str() })),
});

const window = { from: time('rebalances seen at or after'), to: time('rebalances seen before') };

export const UNCORDON_COMMAND_SCHEMAS = {
  'cordons.list': {
    summary: 'Every cordoned node with its auto-uncordon verdict, the reason in words, its evidence and, when waiting, when.',
    request: closed({ limit: limit(), cursor, verdict: oneOf(['uncordon', 'wait', 'skip']) }, ['limit', 'cursor', 'verdict']),
    reply: page(CORDON_VIEW_SCHEMA),
  },
  'events.list': {
    summary: 'Scaling events (uncordons, drains, fences) newest first; filters node and action.',
    request: closed({ limit: limit(), cursor, node: objectName(), action: str() }, ['limit', 'cursor', 'node', 'action']),
    reply: page(SCALING_EVENT_SCHEMA),
  },
  'node.drain': {
    summary: 'Records a drain of the node and answers at once; the leader carries it out (kubectl drain semantics).',
    request: closed(
      {
        node: objectName(),
        gracePeriodSeconds: { ...int(), maximum: 3600 },
        timeoutSeconds: { ...int(), minimum: 1, maximum: 86400, description: 'absent: DRAIN_TIMEOUT_SECONDS' },
        force: bool('evict pods without a controller'),
        deleteEmptyDirData: bool('evict pods with emptyDir volumes'),
        manual: bool("an operator's drain, recorded as an executed approval of kind drain"),
      },
      ['gracePeriodSeconds', 'timeoutSeconds', 'manual'],
    ),
    reply: DRAIN_OPERATION_SCHEMA,
  },
  'drain.get': {
    summary: "One drain operation by id; or, by node, the node's active drain, else its latest.",
    request: { ...closed({ id: uuid(), node: objectName() }, ['id', 'node']), minProperties: 1, maxProperties: 1 },
    reply: DRAIN_OPERATION_SCHEMA,
  },
  'rebalances.list': {
    summary: 'The rebalance ledger, newest first; filters outcome, instance type, zone, node pool and the time seen.',
    request: closed(
      { limit: limit(), cursor, outcome: oneOf(REBALANCE_OUTCOMES), instanceType: str(), zone: str(), nodePool: str(), ...window },
      ['limit', 'cursor', 'outcome', 'instanceType', 'zone', 'nodePool', 'from', 'to'],
    ),
    reply: page(REBALANCE_SCHEMA),
  },
  'rebalances.summary': {
    summary: 'Per Spot pool: how often a rebalance was followed by an interruption, lead times, node-hours given back; rolled up.',
    request: closed(window, ['from', 'to']),
    reply: SUMMARY_SCHEMA,
  },
  'interruptions.list': {
    summary: 'Every Spot interruption in a window, with or without a rebalance recommendation before it, oldest first (at most 10,000).',
    request: closed({ from: time('interruptions at or after'), to: time('interruptions before'), instanceType: str(), zone: str() }, ['from', 'to', 'instanceType', 'zone']),
    reply: open({ from: time(), to: time(), items: arrayOf(INTERRUPTION_SCHEMA), truncated: bool() }),
  },
  'interruptions.rates': {
    summary: "Per Spot pool: interruptions per 1,000 node-hours (node-hours from node-sync), with the exact Poisson interval; how many came with no recommendation.",
    request: closed({ from: time("the window's start"), to: time("the window's end") }, ['from', 'to']),
    reply: RATES_SCHEMA,
  },
  'fencing.status': {
    summary: 'Fencing of hung nodes: settings, partition shares, verdicts of nodes that are not Ready, the latest operations.',
    request: closed({ limit: limit(), node: objectName() }, ['limit', 'node']),
    reply: FENCING_VIEW_SCHEMA,
  },
  'pressure.list': {
    summary: 'The last PSI reading of every node opted in to pressure watching (or of one node).',
    request: closed({ node: objectName() }, ['node']),
    reply: open({ items: arrayOf(NODE_PRESSURE_SCHEMA) }),
  },
} as const satisfies Record<string, CommandSchema>;
