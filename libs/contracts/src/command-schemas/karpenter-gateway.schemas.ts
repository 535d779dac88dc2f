import { EVENT_DATA_SCHEMAS } from '../event-schemas.js';
import { anyObject, arrayOf, bool, closed, int, mapOf, nullableNum, nullableStr, nullableTime, num, oneOf, open, str, time, type JsonSchema } from '../json-schema.js';
import { type CommandSchema } from './command-schema.js';
import { SteeringModes, SteeringPassStates } from '../steering.js';

const poolName: JsonSchema = { ...str('a NodePool name (DNS-1123 label)'), minLength: 1, maxLength: 63 };
const limits = mapOf({ type: ['string', 'number'] });

const objectMeta = open(
  { name: str(), uid: str(), resourceVersion: str(), creationTimestamp: str(), labels: mapOf(str()), annotations: mapOf(str()) },
  ['uid', 'resourceVersion', 'creationTimestamp', 'labels', 'annotations'],
);
const NODE_POOL_SCHEMA = open(
  {
    apiVersion: { const: 'karpenter.sh/v1' },
    kind: { const: 'NodePool' },
    metadata: objectMeta,
    spec: open({ template: anyObject(), disruption: anyObject(), limits, weight: int() }, ['template', 'disruption', 'limits', 'weight']),
    status: anyObject(),
  },
  ['status'],
  'A Karpenter NodePool (karpenter.sh/v1) as the API server returns it.',
);

const nullableObject = { type: ['object', 'null'] };
const NODE_POOL_SUMMARY = open(
  {
    name: str(),
    weight: { type: ['integer', 'null'] },
    nodeClassRef: { ...nullableObject, properties: { group: str(), kind: str(), name: str() } },
    limits: { ...nullableObject, additionalProperties: { type: ['string', 'number'] } },
    disruption: nullableObject,
    resources: { ...nullableObject, additionalProperties: str() },
    ready: { type: ['boolean', 'null'], description: 'null: no Ready condition yet (a NodePool or NodeClaim Karpenter has not reconciled)' },
    createdAt: nullableStr(),
    resourceVersion: nullableStr(),
  },
  ['weight', 'nodeClassRef', 'limits', 'disruption', 'resources', 'ready', 'createdAt', 'resourceVersion'],
);
const installed = bool('false: Karpenter is absent (the list is then empty)');

const NODE_CLAIM = open(
  {
    name: str(),
    nodeName: nullableStr(),
    capacityType: nullableStr(),
    instanceType: nullableStr(),
    zone: nullableStr(),
    ready: { type: ['boolean', 'null'], description: 'null: no Ready condition yet (a NodePool or NodeClaim Karpenter has not reconciled)' },
    deleting: bool(),
    doNotDisrupt: bool(),
    createdAt: nullableStr(),
  },
  ['nodeName', 'capacityType', 'instanceType', 'zone', 'ready', 'deleting', 'doNotDisrupt', 'createdAt'],
);

/** The consolidation's result: the event's data (nodepool.consolidation.requested), open, with dry runs too. */
const CONSOLIDATION_RESULT_SCHEMA: JsonSchema = {
  ...EVENT_DATA_SCHEMAS['nodepool.consolidation.requested'],
  additionalProperties: true,
  description: 'With dryRun, `nodeClaims` are those that would be deleted.',
};

export const KARPENTER_GATEWAY_COMMAND_SCHEMAS = {
  'nodepools.list': {
    summary: 'Karpenter NodePools in short (empty, with karpenterInstalled false, when Karpenter is absent).',
    request: closed({}),
    reply: open({ items: arrayOf(NODE_POOL_SUMMARY), karpenterInstalled: installed }),
  },
  'nodepool.get': {
    summary: 'One NodePool in full, its summary and its NodeClaims counted.',
    request: closed({ name: poolName }),
    reply: open(
      { karpenterInstalled: bool(), nodePool: NODE_POOL_SCHEMA, summary: NODE_POOL_SUMMARY, nodeClaims: open({ count: int(), deleting: int(), capacityTypes: mapOf(int()), nodes: arrayOf(str()) }) },
      ['nodeClaims'],
    ),
  },
  'nodepool.create': {
    summary: 'Creates a NodePool (validated as Karpenter would), recording who asked.',
    request: closed({ nodePool: anyObject('the NodePool object (karpenter.sh/v1)') }),
    reply: NODE_POOL_SCHEMA,
  },
  'nodepool.update': {
    summary: "Changes a NodePool's spec.limits or spec.disruption (a JSON merge patch), guarded by its resourceVersion.",
    request: closed({ name: poolName, patch: anyObject('a JSON merge patch: {spec: {limits?, disruption?}}') }),
    reply: NODE_POOL_SCHEMA,
  },
  'nodepool.delete': {
    summary: 'Deletes a NodePool, guarded by its uid.',
    request: closed({ name: poolName }),
    reply: open({ nodePool: str(), deleted: { const: true } }),
  },
  'nodeclaims.list': {
    summary: "A NodePool's NodeClaims: node, capacity type, instance type, zone, readiness.",
    request: closed({ name: poolName }),
    reply: open({ items: arrayOf(NODE_CLAIM), karpenterInstalled: installed }),
  },
  'nodepool.consolidate': {
    summary: "Deletes the NodeClaims of scheduler-scoring's planned removals in the pool, within its disruption budgets (dryRun: says which).",
    request: closed({ name: poolName, dryRun: bool() }),
    reply: CONSOLIDATION_RESULT_SCHEMA,
  },
  'steering.status': {
    summary: "Steering's last pass, as the leader stored it (the same from every replica): each Spot pool's health with its evidence, and each NodePool's plan — or, without Karpenter, the instance types and zones to drop (docs/steering.md#status).",
    request: closed({}),
    reply: open(
      {
        mode: { type: 'string', enum: [...SteeringModes] },
        karpenterInstalled: installed,
        state: { type: 'string', enum: [...SteeringPassStates], description: 'how the last pass ended: none yet, decided, or waiting for a service it reads' },
        passedAt: nullableStr('when the last pass ran, decided or waiting (null: none yet)'),
        decidedAt: nullableStr('when the last pass that decided ran (null: none yet)'),
        waiting: str('why the last pass did not decide: a service it reads did not answer (absent when it decided)'),
        pools: arrayOf(anyObject("a pool's health: pool, instanceType, zone, state, since, reason, sentence, evidence, restoreAt")),
        nodePools: arrayOf(
          open(
            { nodePool: str(), status: str('nothing_to_do, planned, paused, outside_window, awaiting_approval, written, conflict, failed'), detail: str('why, in words'), plannedAt: str() },
            [],
            "a NodePool's plan: nodePool, status, detail, plannedAt, changes, before, after, original, exclusions, fallback, heldBack, sentence",
          ),
        ),
        recommendations: closed(
          { instanceTypes: arrayOf(str()), zones: arrayOf(str()), pools: arrayOf(str('instanceType/zone')) },
          [],
          'without Karpenter (or in plan mode): what to drop, as the NodePool edit would — every avoided pool, its type and zone',
        ),
      },
      ['waiting'],
    ),
  },
  'steering.pools': {
    summary: "Every Spot pool steering knows: its health (state, why, since), interrupted share with its interval and samples, lead time, price and expected cost, the countdown to its restore; steering's mode and each NodePool's change (docs/steering.md).",
    request: closed({}),
    reply: open({
      mode: oneOf(['off', 'plan', 'execute']),
      karpenterInstalled: bool(),
      decidedAt: nullableTime('when the last pass ran (null: none yet)'),
      asOf: time('when this answer was made: restoreInSeconds counts from it'),
      disruptionCostUsd: num('the cost of one interruption the expected cost counts'),
      pools: arrayOf(
        open(
          {
            instanceType: str(),
            zone: str(),
            state: oneOf(['healthy', 'watch', 'avoid']),
            since: time(),
            reason: str(),
            sentence: str('why, in words'),
            samples: int('rebalances with a known follow-up'),
            interrupted: int(),
            share: nullableNum('interrupted / samples'),
            interval95: { type: ['array', 'null'], items: num(), description: '95% Wilson interval of the share' },
            leadTimeMinutes: { oneOf: [open({ samples: int(), median: num(), p90: num() }), { type: 'null' }] },
            spotUsdPerHour: nullableNum(),
            onDemandUsdPerHour: nullableNum(),
            expectedUsdPerHour: nullableNum('Spot price + interruptions per node-hour × the cost of one (docs/scoring.md#expected-cost)'),
            expectedBasis: oneOf(['measured-in-this-cluster', 'estimate', 'unknown']),
            restoreAt: nullableTime('in avoid: the earliest restore'),
            restoreInSeconds: { type: ['integer', 'null'], minimum: 0, description: 'the countdown to restoreAt' },
            nodes: { type: ['integer', 'null'], minimum: 0, description: 'Spot nodes running in the pool now (node-sync); null when node-sync did not answer' },
          },
          ['leadTimeMinutes', 'nodes'],
        ),
      ),
      nodePools: arrayOf(
        open(
          {
            nodePool: str(),
            status: str(),
            sentence: str(),
            detail: str('why the plan is in its status when the sentence does not say it: the pause that holds it (`disruptive actions paused by …`), its maintenance window, its approval'),
            changes: arrayOf(str()),
            fallback: bool(),
            plannedAt: nullableTime(),
            excluded: arrayOf(open({ kind: str(), value: str(), sentence: str() }), 'instance types and zones steering keeps out'),
            drift: {
              oneOf: [
                open(
                  {
                    total: int('running nodes the write would drift (Karpenter replaces each: launch first, then drain)'),
                    onPurpose: int('of them, in avoided pools'),
                    collateral: int('of them, in pools not avoided'),
                    byPool: arrayOf(open({ pool: open({ instanceType: str(), zone: str() }), capacityType: str(), nodes: int(), avoided: bool() })),
                    usdPerHourBefore: nullableNum('what the drifted nodes cost now (USD per hour)'),
                    usdPerHourAfter: nullableNum('what their replacements would cost (USD per hour)'),
                    sentence: str(),
                  },
                  [],
                  'the running nodes the write would drift (docs/steering.md#drift-what-a-write-moves)',
                ),
                { type: 'null' },
              ],
            },
          },
          ['status', 'sentence', 'detail', 'changes', 'fallback', 'plannedAt', 'excluded', 'drift'],
        ),
      ),
    }),
  },
  'steering.report': {
    summary: 'The window replayed from the rebalance ledger through the pool-health rule: which pools would have been avoided and when, the interruptions spared, the extra cost (docs/steering.md#the-report).',
    request: closed({ from: time('start of the window'), to: time('end of the window (default now)') }, ['to']),
    reply: open({
      from: time(),
      to: time(),
      pools: int('Spot pools the ledger shows in the window'),
      interruptions: open({ total: int(), avoided: int('interruptions of pools while they would have been avoided: an upper bound of those spared') }),
      extraCostUsd: num('the node-hours moved out of avoided pools, priced at the cheapest pool of the type not avoided (else on-demand), at current prices'),
      unpriced: int('avoided periods whose extra cost is unknown (no price)'),
      sentence: str(),
      avoided: arrayOf(
        open({
          instanceType: str(),
          zone: str(),
          from: time(),
          to: nullableTime('null: still avoided at the end of the window'),
          why: str(),
          interruptionsAvoided: int(),
          nodeHours: num(),
          extraUsdPerNodeHour: nullableNum(),
          extraUsd: nullableNum(),
        }),
      ),
      config: open(
        { avoidShare: num(), watchShare: num(), minSamples: int(), burstSize: int(), burstWindowMinutes: num(), coolOffHours: num(), windowHours: num(), maxAvoidPerHour: int() },
        [],
        'the thresholds replayed',
      ),
    }),
  },
} as const satisfies Record<string, CommandSchema>;
