import { z } from 'zod';
import { DrainStatus, EVENT_DATA_SCHEMAS, NODE_STATES, UNCORDON_REASONS, type ErrorCode } from '@nodes-manager/contracts';

/**
 * What the owning services answer, as zod schemas turned into the OpenAPI document's response schemas (docs/api.md).
 * Objects are open (`looseObject`): a service may add a field without breaking a client; `required` lists what is
 * always there. services/api-gateway/test and test/integration/api-contract.int.ts check real answers against them.
 */

const str = z.string();
const nstr = z.string().nullable();
const time = z.string().describe('RFC 3339 date-time');
const ntime = time.nullable();
const num = z.number();
const int = z.number().int();
const labels = z.record(z.string(), z.string());
const anyJson = z.record(z.string(), z.unknown());

const resources = z.looseObject({ cpuMilli: int.optional(), memoryBytes: int.optional(), gpu: int.optional(), pods: int.optional() });
const taint = z.looseObject({ key: str, value: str.optional(), effect: str, timeAdded: str.optional() });
const condition = z.looseObject({ type: str, status: str, reason: str.optional(), message: str.optional(), lastTransitionTime: str.optional(), lastHeartbeatTime: str.optional() });

export const nodeView = z.looseObject({
  id: z.uuid(),
  name: str,
  uid: str,
  providerId: nstr,
  instanceId: nstr,
  instanceType: nstr,
  zone: nstr,
  capacityType: z.enum(['spot', 'on-demand']).nullable(),
  nodePool: nstr,
  state: z.enum(NODE_STATES),
  ready: z.boolean(),
  unschedulable: z.boolean(),
  taints: z.array(taint),
  labels,
  conditions: z.array(condition).optional(),
  allocatable: resources.optional(),
  requested: resources.optional(),
  podCount: int.optional(),
});

const drainPod = z.looseObject({ pod: str, phase: str, attempts: int, lastMessage: str.optional() });
const podReason = z.looseObject({ pod: str, reason: str });
export const drainOperation = z
  .looseObject({
    id: z.uuid(),
    node: str,
    status: z.enum(Object.values(DrainStatus) as [string, ...string[]]),
    reason: str.optional(),
    message: str.optional(),
    actor: str,
    options: z.looseObject({ gracePeriodSeconds: int.optional(), timeoutSeconds: int, force: z.boolean(), deleteEmptyDirData: z.boolean(), ignoreDaemonSets: z.boolean() }),
    progress: z.looseObject({
      podsTotal: int.optional(),
      podsLeft: int.optional(),
      pdbWaits: int.optional(),
      errors: z.array(str).optional(),
      resumed: int.optional(),
      pods: z.array(drainPod).optional(),
      skipped: z.array(podReason).optional(),
      refused: z.array(podReason).optional(),
      outcomes: z.array(z.looseObject({ pod: str, outcome: str })).optional(),
    }),
    startedAt: time,
    updatedAt: time,
    finishedAt: time.optional(),
  })
  .describe('A drain operation (docs/uncordon.md#drain): poll GET /api/v1/drains/{id} until status is completed or failed.');

const podView = z.looseObject({ namespace: str, name: str, phase: str.optional(), workloadClass: str.optional(), ownerKind: nstr.optional(), ownerName: nstr.optional() });
export const nodeDetail = nodeView.extend({
  pods: z.array(podView),
  drain: drainOperation.nullable().describe("the node's active drain, else its latest; null when it never drained"),
  drainUnavailable: z.looseObject({ code: str, message: str }).optional().describe('set when the uncordon service could not say'),
  pressure: z
    .looseObject({ node: str, mode: str, status: z.enum(['ok', 'unknown', 'unreachable']), highSamples: z.number().int(), sampledAt: str })
    .nullable()
    .describe('the last PSI reading (GET /api/v1/pressure); null unless the node opted in to pressure watching'),
  fencing: z
    .looseObject({ verdict: z.looseObject({ decision: str, reason: str, message: str }).nullable(), operation: z.looseObject({ id: str, status: str }).nullable() })
    .nullable()
    .describe('its fencing verdict while not Ready and its latest fence (GET /api/v1/fencing); null when neither exists'),
});

export const cordonView = z
  .looseObject({
    node: str,
    decision: z.enum(['uncordon', 'wait', 'skip']),
    reason: z.enum(UNCORDON_REASONS),
    description: str.optional().describe('the reason in words (waiting 7 m more; not ours: kubectl-cordon; …)'),
    evidence: anyJson.optional().describe('what the verdict was based on: cordon owner, cordoned since, Ready since, grace'),
    requeueAfterMs: num.optional(),
    uncordonAt: time.optional().describe('when waiting: the moment the (backed-off) grace period ends'),
    firstSeenCordonedAt: time.optional(),
    evaluatedAt: time.optional(),
  })
  .describe("A cordoned node and auto-uncordon's current verdict on it: why it will, will not, or will later be uncordoned.");

export const scalingEvent = z.looseObject({
  id: str,
  node: str,
  action: str,
  decision: nstr.optional(),
  reason: str,
  actor: str,
  correlationId: nstr.optional(),
  operationId: nstr.optional(),
  dryRun: z.boolean().optional(),
  evidence: anyJson.optional(),
  createdAt: time,
});

export const decision = z.looseObject({
  id: str,
  kind: str,
  subject: str,
  outcome: str,
  reason: str,
  rationale: str,
  score: num.nullable(),
  details: anyJson.nullable().optional(),
  actor: str.optional(),
  correlationId: nstr.optional(),
  createdAt: time,
});

export const placement = z.looseObject({
  pod: str.describe('namespace/name'),
  namespace: str,
  workload: str.optional(),
  node: str,
  workloadClass: str,
  score: num,
  rationale: str,
  dimensions: z.record(z.string(), num).describe('each scoring dimension, 0–100'),
});

const planRemoval = z.looseObject({
  node: str,
  reason: str,
  utilization: num,
  pods: z.array(z.looseObject({ pod: str, to: str })),
  savingsUsdPerHour: num,
  priceKnown: z.boolean(),
});
const planCore = {
  remove: z.array(planRemoval),
  blocked: z.array(z.looseObject({ node: str, reason: str, detail: str.optional() })),
  pdbImpact: z.array(z.looseObject({ pdb: str, disruptionsUsed: int, disruptionsAllowed: int })),
  hourlySavingsUsd: num,
  monthlySavingsUsd: num,
};
export const plan = z
  .looseObject({
    ...planCore,
    threshold: num.optional(),
    mode: str.optional(),
    priceSource: str.optional(),
    generatedAt: time.optional(),
    latestStoredPlan: z.looseObject({ id: str, status: str, createdAt: time, executedAt: ntime }).nullable().optional(),
  })
  .describe('The consolidation plan: nodes to remove (with where their pods go and the savings), nodes that cannot go and why, PodDisruptionBudget impact.');

export const triggerResult = z
  .looseObject({
    planId: str.nullable().optional(),
    mode: str,
    priceSource: str.optional(),
    catalogSource: str.optional(),
    decisions: z.array(decision),
    plan: z.looseObject(planCore),
    execution: z
      .looseObject({ drained: z.array(z.looseObject({ node: str })), skipped: z.array(z.looseObject({ node: str, reason: str })) })
      .optional()
      .describe('with dryRun false: which planned nodes were drained, and why the others were not'),
  })
  .describe('The cycle that ran: its decisions and plan (and, when executed, what it did).');

export const simulateResult = z
  .looseObject({
    placedOnExisting: z.array(z.looseObject({ node: str, pod: str, count: int })),
    placedOnExistingCount: int,
    additions: z.array(z.looseObject({ instanceType: str, count: int.optional(), zone: str.optional(), capacityType: str.optional(), hourlyCostUsd: num.optional() })),
    hourlyCostUsd: num,
    unschedulable: z.array(z.looseObject({ pod: str.optional(), reason: str.optional() })),
    algorithm: str,
    newNodes: int,
    lowerBoundUsdPerHour: num.optional(),
    priceSource: str.optional(),
    catalogSource: str.optional(),
    catalogTypes: int.optional(),
  })
  .describe('Where N pods would go: onto existing nodes, onto projected new nodes (with their hourly cost), or nowhere and why.');

const marketItem = z.looseObject({
  instanceType: str,
  availabilityZone: str,
  spotUsdPerHour: num,
  spotPriceSince: time.optional(),
  onDemandUsdPerHour: num.nullable(),
  onDemandKnown: z.boolean(),
  savingsPct: num.nullable(),
  trend: z.looseObject({ direction: str, changePct: num.nullable().optional(), fromUsdPerHour: num.nullable().optional() }).optional(),
  interruption: z
    .looseObject({ bucket: str, frequencyPct: z.array(num).optional(), basis: str, priceToOnDemand: num.nullable().optional(), explanation: str.optional(), volatility: anyJson.optional() })
    .optional(),
});
export const spotMarket = z
  .looseObject({
    region: str,
    window: z.looseObject({ hours: num, from: time, to: time }),
    fetchedAt: time,
    stale: z.boolean(),
    ageSeconds: num,
    onDemand: anyJson.optional(),
    items: z.array(marketItem),
    unmatched: z.looseObject({ instanceTypes: z.array(str), zones: z.array(str) }).optional(),
  })
  .describe('Spot prices with trend and interruption estimate by instance type and zone (served from a cache; `stale` flags old data).');

export const provisionResult = z
  .looseObject({
    requestId: str.optional().describe("EC2's request id"),
    clientToken: str,
    dryRun: z.boolean(),
    region: str,
    reservationId: str.optional(),
    instanceType: str,
    count: int,
    requestedBy: str,
    instances: z.array(z.looseObject({ instanceId: str, instanceType: str, availabilityZone: str.optional(), state: str, launchTime: time.optional() })),
    replayed: z.boolean(),
  })
  .describe('The launched instances; `replayed: true` when this clientToken was seen before and nothing new was launched.');

const objectMeta = z.looseObject({ name: str, uid: str.optional(), resourceVersion: str.optional(), creationTimestamp: str.optional(), labels: labels.optional(), annotations: labels.optional() });
export const nodePool = z
  .looseObject({
    apiVersion: z.literal('karpenter.sh/v1'),
    kind: z.literal('NodePool'),
    metadata: objectMeta,
    spec: z.looseObject({
      template: anyJson.optional(),
      disruption: anyJson.optional(),
      limits: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
      weight: int.optional(),
    }),
    status: anyJson.optional(),
  })
  .describe('A Karpenter NodePool (karpenter.sh/v1) as the API server returns it.');

const nodePoolSummary = z.looseObject({
  name: str,
  weight: int.nullable().optional(),
  nodeClassRef: z.looseObject({ group: str.optional(), kind: str.optional(), name: str }).nullable().optional(),
  limits: z.record(z.string(), z.union([z.string(), z.number()])).nullable().optional(),
  disruption: anyJson.nullable().optional(),
  resources: z.record(z.string(), z.string()).nullable().optional(),
  ready: z.boolean().optional(),
  createdAt: str.optional(),
  resourceVersion: str.optional(),
});
export const nodePoolList = z.looseObject({
  items: z.array(nodePoolSummary),
  karpenterInstalled: z.boolean().describe('false: Karpenter is absent and the list is empty'),
});
export const nodePoolDetail = z.looseObject({
  karpenterInstalled: z.boolean(),
  nodePool,
  summary: nodePoolSummary,
  nodeClaims: z.looseObject({ count: int, deleting: int, capacityTypes: z.record(z.string(), int), nodes: z.array(str) }).optional(),
});
export const nodeClaimList = z.looseObject({
  items: z.array(
    z.looseObject({ name: str, nodeName: nstr.optional(), capacityType: nstr.optional(), instanceType: nstr.optional(), zone: nstr.optional(), ready: z.boolean().optional(), deleting: z.boolean().optional(), doNotDisrupt: z.boolean().optional(), createdAt: str.optional() }),
  ),
  karpenterInstalled: z.boolean(),
});
export const nodePoolDeleted = z.looseObject({ nodePool: str, deleted: z.literal(true) });

type Schema = Record<string, unknown>;

/**
 * page — `{items, nextCursor?}`: pass `nextCursor` back as `cursor` for the next page; absent on the last page. The
 * item is a zod schema, or a JSON Schema (an event-derived shape) that the document embeds as it is.
 */
export const page = (item: z.ZodType | Schema) =>
  z.looseObject({ items: z.array(item instanceof z.ZodType ? item : z.unknown().meta(item)), nextCursor: str.optional().describe('absent on the last page') });

// ---- event-derived shapes (the same JSON Schemas as docs/asyncapi.yaml) ----
export const CONSOLIDATION_RESULT_SCHEMA: Schema = {
  ...EVENT_DATA_SCHEMAS['nodepool.consolidation.requested'],
  additionalProperties: true,
  description: 'With dryRun, `nodeClaims` are those that would be deleted.',
};

// ---- errors ----

export const fieldProblem = z.object({
  in: z.enum(['path', 'query', 'body', 'header']),
  field: str.describe('the parameter or body field by its real name (`id`, `limit`, `spec.limits.cpu`; `body` for the body as a whole)'),
  message: str,
});
export const validationDetails = z.object({ errors: z.array(fieldProblem).min(1) }).describe('VALIDATION_FAILED (and 413/415): each bad input');
export const rateLimitDetails = z.object({ limit: int, windowSeconds: int, retryAfterSeconds: int }).describe('RATE_LIMITED');
export const errorBody = (codes: readonly ErrorCode[]) =>
  z.object({
    code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
    message: str,
    details: z.union([validationDetails, rateLimitDetails, anyJson.describe('other codes: context such as the node, the NodePool or the dependency')]).optional(),
    requestId: str.optional().describe('the X-Request-Id of the request: quote it when reporting a problem'),
  });
