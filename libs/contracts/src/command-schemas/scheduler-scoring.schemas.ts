import { CAPACITY_TYPES } from '../api.js';
import { FILTER_REASONS, PLACEMENT_FITS } from '../placement.js';
import { anyObject, arrayOf, uuid, bool, closed, int, mapOf, nullableNum, nullableStr, num, oneOf, open, page, str, time, type JsonSchema } from '../json-schema.js';
import { cursor, limit, objectName, type CommandSchema } from './command-schema.js';

const DECISION_SCHEMA = open(
  {
    id: str(),
    kind: str(),
    subject: str(),
    outcome: str(),
    reason: str(),
    rationale: str(),
    score: { type: ['number', 'null'] },
    details: { type: ['object', 'null'] },
    actor: str(),
    correlationId: nullableStr(),
    createdAt: time(),
  },
  ['details', 'actor', 'correlationId'],
);

/** One pod's placement: `fit` says which fields it carries (libs/contracts placement.ts). */
const PLACEMENT_SCHEMA: JsonSchema = {
  ...open(
    {
      pod: str('namespace/name'),
      namespace: str(),
      workload: str(),
      node: str(),
      workloadClass: str(),
      fit: oneOf(PLACEMENT_FITS, 'scored: score and dimensions; node_refuses: the node now fails a hard filter for the pod (refusedBy); node_unknown: the node is not in the cache'),
      score: nullableNum('0–100 on the node the pod runs on; null unless scored'),
      rationale: str('the fit in a sentence'),
      dimensions: mapOf(num(), 'each scoring dimension, 0–100 (scored only)'),
      refusedBy: arrayOf(
        closed({ reason: oneOf(FILTER_REASONS, 'the kube-scheduler filter the node fails'), detail: str('which taint, how much is missing') }),
        'the hard filters the node now fails for the pod (node_refuses only)',
      ),
    },
    ['workload', 'dimensions', 'refusedBy'],
  ),
  oneOf: [
    { properties: { fit: { const: 'scored' }, score: num() }, required: ['dimensions'] },
    { properties: { fit: { const: 'node_refuses' }, score: { type: 'null' }, refusedBy: { type: 'array', minItems: 1 } }, required: ['refusedBy'] },
    { properties: { fit: { const: 'node_unknown' }, score: { type: 'null' } } },
  ],
};

/** The reply of optimize.replace: what happened to each node asked for, and why. */
const REPLACE_RESULT_SCHEMA = closed(
  {
    requestId: uuid('the stored request (a plan row of kind replace)'),
    nodePool: str(),
    action: oneOf(['drain', 'wait_for_window', 'approval_requested', 'approval_open', 'paused', 'busy', 'off'], 'what the gate did with the request as a whole'),
    detail: str('the same, in a sentence'),
    approvalId: str(),
    results: arrayOf(
      closed(
        {
          node: str(),
          outcome: oneOf(['accepted', 'queued', 'refused'], 'accepted: its drain started; queued: asked again next pass (budget, window, approval, pause); refused: it no longer qualifies'),
          reason: str(),
          detail: str(),
          operationId: str('the drain operation, when accepted'),
        },
        ['operationId'],
      ),
    ),
  },
  ['approvalId'],
);

const planRemoval = open({
  node: str(),
  reason: oneOf(['empty', 'underutilized']),
  utilization: num('max(cpu, memory) requested / allocatable'),
  pods: arrayOf(open({ pod: str(), to: str() })),
  savingsUsdPerHour: num(),
  priceKnown: bool(),
});
const planCore = {
  remove: arrayOf(planRemoval, 'the nodes to remove, with where their pods go and the savings'),
  blocked: arrayOf(open({ node: str(), reason: str(), detail: str(), pdbs: arrayOf(str(), 'pdb_exhausted: every PodDisruptionBudget (namespace/name) that holds the node, sorted') }, ['detail', 'pdbs']), 'nodes that cannot go, and why'),
  pdbImpact: arrayOf(open({ pdb: str(), disruptionsUsed: int(), disruptionsAllowed: int() })),
  hourlySavingsUsd: num(),
  monthlySavingsUsd: num('hourly × 730'),
};
/** CONSOLIDATION_PLAN_SCHEMA — a consolidation plan (libs/scoring ConsolidationPlan). */
export const CONSOLIDATION_PLAN_SCHEMA: JsonSchema = open(planCore);

const PLAN_SCHEMA = open(
  {
    ...planCore,
    threshold: num(),
    mode: str(),
    nodePool: str(),
    priceSource: str(),
    priceSourceDetail: str(),
    generatedAt: time(),
    latestStoredPlan: open({ id: str(), status: str(), createdAt: time(), executedAt: { type: ['string', 'null'] } }),
  },
  ['threshold', 'mode', 'nodePool', 'priceSource', 'priceSourceDetail', 'generatedAt', 'latestStoredPlan'],
  'The consolidation plan: nodes to remove (with where their pods go and the savings), nodes that cannot go and why, PodDisruptionBudget impact.',
);

const TRIGGER_RESULT_SCHEMA = open(
  {
    planId: str(),
    mode: str(),
    priceSource: str(),
    catalogSource: str(),
    decisions: arrayOf(DECISION_SCHEMA),
    plan: CONSOLIDATION_PLAN_SCHEMA,
    execution: open(
      { drained: arrayOf(open({ node: str(), operationId: str(), status: str() }, ['operationId', 'status'])), skipped: arrayOf(open({ node: str(), reason: str(), detail: str() }, ['detail'])) },
      [],
      'with dryRun false: which planned nodes were drained, and why the others were not',
    ),
    gate: open(
      {
        action: oneOf(['execute', 'wait_for_window', 'approval_requested', 'approval_open', 'paused']),
        heldBack: arrayOf(open({ node: str(), reason: str(), detail: str() })),
        opensAt: str(),
        approvalId: str(),
        status: str(),
        detail: str('with `paused`: the pause that holds the drains back (docs/pause.md)'),
      },
      ['heldBack', 'opensAt', 'approvalId', 'status', 'detail'],
      'what the pause, the approval and the maintenance-window gate did with the plan (execute mode)',
    ),
    approvalsExecuted: arrayOf(open({ id: str(), status: str() })),
  },
  ['planId', 'priceSource', 'catalogSource', 'plan', 'execution', 'gate', 'approvalsExecuted'],
  'The cycle that ran: its decisions and plan (and, when executed, what it did).',
);

const SIMULATE_RESULT_SCHEMA = open(
  {
    placedOnExisting: arrayOf(open({ node: str(), pod: str(), count: int() })),
    placedOnExistingCount: int(),
    additions: arrayOf(
      open({ instanceType: str(), zone: str(), capacityType: oneOf(CAPACITY_TYPES), count: int(), unitUsdPerHour: num(), hourlyUsd: num('count × unit price') }),
      'the new nodes to buy, cheapest packing first',
    ),
    hourlyCostUsd: num('hourly cost of the additions'),
    unschedulable: arrayOf(open({ pod: str(), count: int(), reason: oneOf(['no_instance_type_fits', 'no_priced_offering']) })),
    algorithm: str(),
    newNodes: int(),
    lowerBoundUsdPerHour: num(),
    priceSource: str(),
    catalogSource: str(),
    catalogTypes: int(),
  },
  ['lowerBoundUsdPerHour', 'priceSource', 'catalogSource', 'catalogTypes'],
  'Where N pods would go: onto existing nodes, onto projected new nodes (with their hourly cost), or nowhere and why.',
);

const toleration = closed(
  { key: { ...str(), maxLength: 317 }, operator: oneOf(['Exists', 'Equal']), value: { ...str(), maxLength: 63 }, effect: oneOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute']) },
  ['key', 'operator', 'value', 'effect'],
);
const podGroup = closed(
  {
    name: { ...str(), maxLength: 253 },
    count: { ...int(), minimum: 1, maximum: 100000 },
    cpu: str('a Kubernetes CPU quantity (500m, 2)'),
    memory: str('a Kubernetes memory quantity (1Gi)'),
    gpu: { ...int(), maximum: 16 },
    workloadClass: oneOf(['gpu', 'stateful', 'batch', 'latency_sensitive', 'stateless']),
    nodeSelector: mapOf({ ...str(), maxLength: 63 }),
    tolerations: { ...arrayOf(toleration), maxItems: 50 },
    zone: str(),
  },
  ['name', 'gpu', 'workloadClass', 'nodeSelector', 'tolerations', 'zone'],
);

export const SCHEDULER_SCORING_COMMAND_SCHEMAS = {
  'decisions.list': {
    summary: 'The scheduling decision log, newest first; filters kind and subject.',
    request: closed({ limit: limit(), cursor, kind: str(), subject: objectName() }, ['limit', 'cursor', 'kind', 'subject']),
    reply: page(DECISION_SCHEMA),
  },
  'placement.list': {
    summary: 'Every running workload pod with its node, class, score and rationale; filters namespace, node, class.',
    request: closed({ limit: limit(), cursor, namespace: str(), node: objectName(), workloadClass: str() }, ['limit', 'cursor', 'namespace', 'node', 'workloadClass']),
    reply: { ...page(PLACEMENT_SCHEMA), properties: { ...(page(PLACEMENT_SCHEMA)['properties'] as object), priceSource: str() } },
  },
  'optimize.plan': {
    summary: 'The consolidation plan on the cluster now (of one NodePool, or all), with savings and PodDisruptionBudget impact.',
    request: closed({ nodePool: objectName() }, ['nodePool']),
    reply: PLAN_SCHEMA,
  },
  'optimize.trigger': {
    summary: 'An optimisation cycle now, for the caller; dryRun false carries the plan out (drains, through approvals and windows).',
    request: closed({ dryRun: bool() }),
    reply: TRIGGER_RESULT_SCHEMA,
  },
  'optimize.replace': {
    summary:
      'Nodes to move off (on-demand nodes a NodePool launched during a Spot fallback), drained a few at a time through the optimizer: its disruption budget, maintenance windows, approvals (kind optimize), the pause and a fresh re-check of each node.',
    request: closed(
      {
        nodePool: objectName('the NodePool the nodes belong to (and now admits Spot again)'),
        nodes: { ...arrayOf(objectName()), minItems: 1, maxItems: 1000, description: 'the nodes still to replace' },
        reason: { ...str('why, in a sentence a person reads'), minLength: 1, maxLength: 1000 },
        evidence: { ...arrayOf(anyObject()), maxItems: 1000, description: 'what the caller decided on (e.g. the pools health), kept with the request' },
      },
      ['evidence'],
    ),
    reply: REPLACE_RESULT_SCHEMA,
  },
  'simulate.run': {
    summary: 'Where pod groups would go on the current fleet, and which new nodes (with their cost) the rest would need.',
    request: closed({ pods: { ...arrayOf(podGroup), minItems: 1, maxItems: 1000 } }),
    reply: SIMULATE_RESULT_SCHEMA,
  },
} as const satisfies Record<string, CommandSchema>;
