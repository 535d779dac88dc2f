import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Parser } from '@asyncapi/parser';
import { parse, stringify } from 'yaml';
import { ALL_EVENT_TYPES, EventTypes, type EventType } from './events.js';
import { EVENT_DATA_SCHEMAS } from './event-schemas.js';
import { eventSources } from './event-sources.js';
import { asyncApiDocument, cloudEventSchema, messageName } from './asyncapi.js';
import { EVENT_EXAMPLES } from './event-examples/index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ASYNCAPI_PATH = new URL('../../../docs/asyncapi.yaml', import.meta.url);
const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const HEADER = '# Generated from libs/contracts/src/event-schemas.ts — do not edit by hand.\n# Regenerate: UPDATE_DOCS=1 NODE_OPTIONS=--experimental-vm-modules npx jest libs/contracts/src/event-schemas.spec.ts\n';

// Regenerating is explicit; without UPDATE_DOCS the committed document must already equal the generated one.
if (process.env['UPDATE_DOCS'] === '1') writeFileSync(ASYNCAPI_PATH, HEADER + stringify(asyncApiDocument(VERSION), { lineWidth: 0, aliasDuplicateObjects: false }));
const published = parse(readFileSync(ASYNCAPI_PATH, 'utf8')) as {
  asyncapi: string;
  channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
  operations: Record<string, { action: string; bindings: { amqp: Record<string, unknown> } }>;
  components: { messages: Record<string, { name: string; payload: object; bindings: { amqp: Record<string, unknown> }; examples?: { payload: unknown }[] }> };
};

/** A validator over the message payloads as docs/asyncapi.yaml publishes them (not the TypeScript objects). */
const ajv = addFormats(new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true }));
const validatorOf = (type: EventType) => ajv.compile(published.components.messages[messageName(type)]!.payload);

const envelope = (type: EventType, data: unknown) => ({
  specversion: '1.0',
  id: '6f1c1b9e-0a59-4d57-9a3e-1f2a3b4c5d6e',
  source: `nodes-manager/${eventSources(type)[0]}`,
  type,
  time: '2026-11-30T10:00:00.000Z',
  datacontenttype: 'application/json',
  actor: 'system:test',
  data,
});

const evidence = { cordonedSince: '2026-11-30T09:30:00.000Z', cordonedSinceSource: 'managed-fields', cordonManager: 'node-termination-handler', cordonManagerKind: 'node-termination-handler', provenance: 'managed-fields', rebalanceTaint: true, ready: true, readySince: '2026-11-29T08:00:00.000Z', effectiveGraceMinutes: 15, flapCount: 0, cordonedForMs: 1_800_000 };
const progress = { podsTotal: 2, podsLeft: 0, pdbWaits: 1, errors: [], resumed: 0, pods: [{ pod: 'shop/web-1', phase: 'gone', attempts: 2 }], skipped: [{ pod: 'kube-system/aws-node-x', reason: 'DAEMONSET' }], refused: [] };
const view = { ready: true, unschedulable: false, state: 'Ready', taints: [], allocatable: { cpuMilli: 1930, memoryBytes: 7_000_000_000, gpu: 0, pods: 29 } };
const heartbeatData = { service: 'node-sync', mode: 'split' };

const rebalanceSample = { id: '2c1d4e5f-1111-4222-8333-944455566677', node: 'ip-10-0-1-5.ec2.internal', nodeUid: 'u1', instanceId: 'i-0abc', instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', nodePool: 'default', seenAt: '2026-11-30T10:00:00.000Z', seenSignal: 'rebalance-taint', seenTimeSource: 'taint-time-added', evidence: [{ kind: 'rebalance-taint', at: '2026-11-30T10:00:00.000Z' }, { kind: 'nth-cordon', at: '2026-11-30T10:00:01.000Z', detail: 'node-termination-handler' }] };
const pauseSample = { reason: 'bad rollout of the CNI', scope: 'disruptive', pausedBy: 'alice@example.com', pausedAt: '2026-11-30T10:00:00.000Z', until: '2026-11-30T12:00:00.000Z', source: 'api' };
/** One realistic `data` per action routing key (heartbeats are added below from ALL_EVENT_TYPES). */
const SAMPLES: Record<string, unknown> = {
  [EventTypes.nodeAdded]: { name: 'ip-10-0-1-5.ec2.internal', uid: 'u1', instanceId: 'i-0abc', instanceType: 'm5.large', zone: 'us-east-1a', capacityType: 'spot', nodePool: 'default', state: 'Ready', ready: true, unschedulable: false },
  [EventTypes.nodeRemoved]: { name: 'ip-10-0-1-5.ec2.internal', uid: 'u1', instanceId: null, lastState: 'Cordoned' },
  [EventTypes.nodeChanged]: { name: 'ip-10-0-1-5.ec2.internal', changed: ['unschedulable', 'state', 'taints'], before: view, after: { ...view, unschedulable: true, state: 'Cordoned', taints: [{ key: 'node.kubernetes.io/unschedulable', value: null, effect: 'NoSchedule' }] } },
  [EventTypes.nodesSynced]: { trigger: 'timer', nodesAdded: 1, nodesRemoved: 0, nodesChanged: 2, podsWritten: 40, podsRemoved: 3, nodes: 12, pods: 300, nodesByState: { Ready: 11, Cordoned: 1 }, rowsWritten: { nodeRows: 3, podRows: 43 }, durationMs: 41.5 },
  [EventTypes.nodeUncordoned]: { node: 'ip-10-0-1-5.ec2.internal', reason: 'UNCORDON', description: 'cordoned by node-termination-handler 30 m ago, Ready since', evidence, uncordonedAt: '2026-11-30T10:00:00.000Z', rebalanceTaintRemoved: true },
  [EventTypes.nodeDrainStarted]: { operationId: '0b9a4f0e-8f53-4c55-a7a1-5c1f0a1b2c3d', node: 'n1', status: 'running', progress },
  [EventTypes.nodeDrainCompleted]: { operationId: '0b9a4f0e-8f53-4c55-a7a1-5c1f0a1b2c3d', node: 'n1', status: 'completed', progress },
  [EventTypes.nodeDrainFailed]: { operationId: '0b9a4f0e-8f53-4c55-a7a1-5c1f0a1b2c3d', node: 'n1', status: 'failed', reason: 'TIMEOUT_BLOCKED_BY_PDB', message: 'shop/web-1 still blocked', progress },
  [EventTypes.rebalanceObserved]: { ...rebalanceSample },
  [EventTypes.rebalanceResolved]: { ...rebalanceSample, evidence: [...rebalanceSample.evidence, { kind: 'spot-itn-taint', at: '2026-11-30T11:10:00.000Z' }], outcome: 'interrupted', resolved: true, resolvedAt: '2026-11-30T11:10:00.000Z', uncordonedAt: '2026-11-30T10:15:00.000Z', recordonedAt: null, interruptedAt: '2026-11-30T11:10:00.000Z', interruptionSource: 'spot-itn-taint', leadTimeMs: 4_200_000, givenBackMs: 3_300_000 },
  [EventTypes.schedulingDecided]: { id: '2c1d4e5f-1111-4222-8333-944455566677', kind: 'consolidation.plan', subject: 'cluster', outcome: 'planned', reason: 'UNDERUTILIZED', rationale: 'two nodes under 30 %', score: null, details: { planId: 'p' }, actor: 'system:scheduler-scoring', correlationId: null, createdAt: '2026-11-30T10:00:00.000Z' },
  [EventTypes.optimizePlanned]: { planId: '2c1d4e5f-1111-4222-8333-944455566677', mode: 'plan', dryRun: true, remove: [{ node: 'n2', reason: 'underutilized', utilization: 0.21, savingsUsdPerHour: 0.04 }], blocked: 1, hourlySavingsUsd: 0.04, monthlySavingsUsd: 29.2, priceSource: 'spot-advisor' },
  [EventTypes.optimizeExecuted]: { planId: '2c1d4e5f-1111-4222-8333-944455566677', drained: [{ node: 'n2', operationId: '0b9a4f0e-8f53-4c55-a7a1-5c1f0a1b2c3d', status: 'pending' }], skipped: [{ node: 'n3', reason: 'max_disruptions', detail: 'OPTIMIZE_MAX_DISRUPTIONS=1 drains already in flight' }] },
  [EventTypes.nodepoolCreated]: { nodePool: 'batch', spec: { template: {} }, resourceVersion: '42' },
  [EventTypes.nodepoolUpdated]: { nodePool: 'batch', patch: { limits: { cpu: '200' } }, before: { limits: null, disruption: { consolidationPolicy: 'WhenEmpty' } }, after: { limits: { cpu: '200' }, disruption: { consolidationPolicy: 'WhenEmpty' } }, resourceVersion: '43' },
  [EventTypes.nodepoolDeleted]: { nodePool: 'batch', uid: null },
  [EventTypes.poolHealthChanged]: { pool: 'm5.large/us-east-1a', instanceType: 'm5.large', zone: 'us-east-1a', from: 'watch', to: 'avoid', since: '2026-11-30T10:00:00.000Z', reason: 'share-above-avoid', sentence: 'Avoid: 16 of 20 rebalances (80%, 95% interval 58–92%) were followed by an interruption.', restoreAt: '2026-11-30T16:00:00.000Z', evidence: { samples: 20, interrupted: 16, share: 0.8, interval95: [0.584, 0.919], bursts: 0, lastInterruptionAt: '2026-11-30T09:40:00.000Z', leadTimeMinutes: { samples: 16, median: 30, p90: 55 }, priceRatio: 0.38 }, mode: 'execute' },
  [EventTypes.nodepoolSteered]: { nodePool: 'general', changes: ['narrow'], before: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }], after: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }, { key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['m5.large'] }], original: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }], exclusions: [{ kind: 'instance-type', value: 'm5.large', covers: ['m5.large/us-east-1a'], loses: 2, sentence: 'Exclude instance type m5.large.' }], fallback: false, replaceOnDemand: [], sentence: 'Exclude instance type m5.large.', resourceVersion: '44', approvalId: null },
  [EventTypes.nodepoolConsolidationRequested]: { nodePool: 'batch', dryRun: false, nodeClaims: [{ nodeClaim: 'batch-x1', node: 'n2', reason: 'Underutilized' }], failed: [], skipped: [{ node: 'n3', reason: 'budget_exhausted' }], budget: { poolNodes: 5, disrupting: 0, active: [{ index: 0, nodes: '10%', allowed: 1 }], allowed: { Underutilized: 1, Empty: 1, Drifted: null } }, planned: 2 },
  [EventTypes.spotPricesRefreshed]: { region: 'us-east-1', fetchedAt: '2026-11-30T10:00:00.000Z', windowStart: '2026-11-30T04:00:00.000Z', windowEnd: '2026-11-30T10:00:00.000Z', samples: 120, inserted: 30, pools: 40, instanceTypes: 8, zones: ['us-east-1a', 'us-east-1b'] },
  [EventTypes.nodeFenced]: { operationId: '0b9a4f0e-8f53-4c55-a7a1-5c1f0a1b2c3d', node: 'n4', nodeUid: 'u4', instanceId: 'i-0abc', zone: 'us-east-1a', action: 'stop', instanceState: 'stopped', leaseRenewedAt: '2026-11-30T09:55:00.000Z', podsDeleted: 3, fencedAt: '2026-11-30T10:00:00.000Z' },
  [EventTypes.fencingSuspended]: { suspended: true, overall: { dead: 7, total: 10, percent: 70, suspended: true }, zones: [{ zone: 'us-east-1a', dead: 3, total: 4, percent: 75, suspended: true }], pools: [{ nodePool: 'general', dead: 3, total: 5, percent: 60, suspended: true }], maxUnhealthyPercent: 20, maxUnhealthyCount: 5 },
  [EventTypes.nodePressureRelieved]: { node: 'n5', mode: 'relieve', pod: 'batch/worker-1', outcome: 'evicted', memoryFullAvg10: 42.5, workingSetBytes: 2_000_000_000, requestBytes: 0, qosClass: 'BestEffort', message: 'evicted the BestEffort pod using most memory above its request' },
  [EventTypes.disruptionsPaused]: pauseSample,
  [EventTypes.clusterHeartbeat]: { version: '0.1.0', intervalSeconds: 60, nodes: 40, spotNodes: 31, cordonsWaiting: 2, steering: { mode: 'plan', pools: { healthy: 12, watch: 2, avoid: 1 }, decidedAt: '2026-11-30T10:00:00.000Z' } },
  [EventTypes.disruptionsResumed]: { resumedBy: 'alice@example.com', resumedAt: '2026-11-30T11:00:00.000Z', why: 'operator', pause: pauseSample },
  ...Object.fromEntries(
    [EventTypes.approvalRequested, EventTypes.approvalApproved, EventTypes.approvalRejected, EventTypes.approvalExpired, EventTypes.approvalExecuted].map((t) => [
      t,
      {
        approvalId: 'optimize-2c1d4e5f-1111-4222-8333-944455566677',
        kind: 'optimize',
        status: t === EventTypes.approvalExecuted ? 'executed' : 'pending',
        subject: 'cluster',
        planId: '2c1d4e5f-1111-4222-8333-944455566677',
        nodes: ['n2'],
        hourlySavingsUsd: 0.04,
        requestedBy: 'system:scheduler-scoring',
        expiresAt: '2026-11-30T11:00:00.000Z',
        decidedBy: 'alice',
        comment: null,
        results: [{ node: 'n2', outcome: 'started', reason: 'planned_removal', detail: 'drain started', operationId: '0b9a4f0e-8f53-4c55-a7a1-5c1f0a1b2c3d' }],
      },
    ]),
  ),
  [EventTypes.instanceProvisioned]: { requestId: '2c1d4e5f-1111-4222-8333-944455566677', clientToken: 'abc', region: 'us-east-1', reservationId: 'r-0123', instanceType: 'm5.large', count: 1, instanceIds: ['i-0abc'], requestedBy: 'alice' },
};
const sampleOf = (type: EventType) => (type.startsWith('heartbeat.') ? { ...heartbeatData, service: type.slice('heartbeat.'.length) } : SAMPLES[type]);

describe('docs/asyncapi.yaml', () => {
  it('is what libs/contracts generates (regenerate with UPDATE_DOCS=1)', () => {
    expect(published).toEqual(JSON.parse(JSON.stringify(asyncApiDocument(VERSION))));
    expect(published.asyncapi).toBe('3.1.0');
  });

  it('validates under @asyncapi/parser with no error and no warning', async () => {
    const { document, diagnostics } = await new Parser().parse(readFileSync(ASYNCAPI_PATH, 'utf8'));
    const problems = diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.path.join('.')}: ${d.message}`);
    expect(problems).toEqual([]);
    expect(document).toBeDefined();
  });

  it('publishes: every operation is a send, persistent (deliveryMode 2) in its operation binding, and no message binding carries delivery properties', () => {
    const ops = Object.values(published.operations);
    expect(ops).toHaveLength(ALL_EVENT_TYPES.length);
    for (const op of ops) expect({ action: op.action, deliveryMode: op.bindings.amqp['deliveryMode'] }).toEqual({ action: 'send', deliveryMode: 2 });
    for (const m of Object.values(published.components.messages)) expect(Object.keys(m.bindings.amqp).sort()).toEqual(['bindingVersion', 'messageType']);
  });

  it('carries recorded events as examples, and each validates against its message schema', () => {
    const recorded = Object.entries(EVENT_EXAMPLES);
    expect(recorded.length).toBeGreaterThanOrEqual(20); // all but node.drain.failed and optimize.executed, which the recording run does not cause
    for (const [type, evs] of recorded) {
      const m = published.components.messages[messageName(type as EventType)]!;
      expect(m.examples?.map((e) => e.payload)).toEqual(JSON.parse(JSON.stringify(evs)));
      const validate = validatorOf(type as EventType);
      for (const ev of evs!) expect({ type, ok: validate(ev), errors: validate.errors ?? [] }).toEqual({ type, ok: true, errors: [] });
    }
  });

  it('lists exactly ALL_EVENT_TYPES, as channels and as messages', () => {
    expect(Object.values(published.channels).map((c) => c.address).sort()).toEqual([...ALL_EVENT_TYPES].sort());
    expect(Object.values(published.components.messages).map((m) => m.name).sort()).toEqual([...ALL_EVENT_TYPES].sort());
    expect(Object.keys(EVENT_DATA_SCHEMAS).sort()).toEqual([...ALL_EVENT_TYPES].sort());
  });

  it.each(ALL_EVENT_TYPES.map((t) => [t]))('validates a sample %s event', (type) => {
    const validate = validatorOf(type);
    const ok = validate(envelope(type, sampleOf(type)));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it.each(ALL_EVENT_TYPES.map((t) => [t]))('refuses a %s event whose data lacks a required field, or has one unknown', (type) => {
    const validate = validatorOf(type);
    const data = sampleOf(type) as Record<string, unknown>;
    const [first] = (cloudEventSchema(type)['properties'] as { data: { required: string[] } }).data.required;
    const { [first!]: _dropped, ...missing } = data;
    expect(validate(envelope(type, missing))).toBe(false);
    expect(validate(envelope(type, { ...data, surprise: 1 }))).toBe(false);
  });

  it.each([
    ['another routing key in `type`', (e: Record<string, unknown>) => ({ ...e, type: 'node.removed' })],
    ['another service as `source`', (e: Record<string, unknown>) => ({ ...e, source: 'nodes-manager/spot-advisor' })],
    ['a specversion other than 1.0', (e: Record<string, unknown>) => ({ ...e, specversion: '0.3' })],
    ['a time that is not RFC 3339', (e: Record<string, unknown>) => ({ ...e, time: 'yesterday' })],
    ['no id', ({ id: _id, ...e }: Record<string, unknown>) => e],
    ['a node state that does not exist', (e: Record<string, unknown>) => ({ ...e, data: { ...(e['data'] as object), state: 'Sleeping' } })],
  ])('refuses a node.added envelope with %s', (_, spoil) => {
    expect(validatorOf('node.added')(spoil(envelope('node.added', SAMPLES['node.added'])))).toBe(false);
  });
});
