import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { DEFAULT_DRAIN_OPTIONS, DrainStatus, EventTypes, heartbeatType, messageName, ServiceNames, type CloudEvent, type EventType, type NodeDrainEventData, type NodeUncordonedData } from '@nodes-manager/contracts';
import { makeEvent } from '@nodes-manager/platform';
import { decideUncordon, describeVerdict } from '../services/uncordon/src/auto-uncordon/domain/decide-uncordon.js';
import { drainPodOutcomes, initialDrainState, nextDrainStep, planDrain } from '../services/uncordon/src/drain/domain/plan-drain.js';
import { progressOf } from '../services/uncordon/src/drain/drain.service.js';
import { aConfig, aCordonedNode, anObservation, at, REBALANCE_TAINT, CORDON_TAINT } from '../services/uncordon/test/cordoned-node.builder.js';
import { aDrainPod, aNakedPod } from '../services/uncordon/test/drain-pod.builder.js';
import { selectNodeClaims } from '../services/karpenter-gateway/src/domain/select-nodeclaims.js';
import type { ConsolidationResult } from '../services/karpenter-gateway/src/consolidation.service.js';

/**
 * Events as the producing code builds them — the services' own pure decisions and progress functions, wrapped by
 * the real `makeEvent` — validate against the message schemas of docs/asyncapi.yaml, as a subscriber would check
 * them. Where a service assembles `data` inline, the test assembles it the same way, from the same inputs.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const doc = parse(readFileSync(new URL('../docs/asyncapi.yaml', import.meta.url), 'utf8')) as { components: { messages: Record<string, { payload: object }> } };
const ajv = addFormats(new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true }));
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function problems(ev: CloudEvent): unknown[] {
  let v = validators.get(ev.type);
  if (!v) validators.set(ev.type, (v = ajv.compile(doc.components.messages[messageName(ev.type)]!.payload)));
  return v(JSON.parse(JSON.stringify(ev))) ? [] : (v.errors ?? ['invalid']);
}

const NOW = at(30);
const OP_ID = '0b9a4f0e-8f53-4c55-a7a1-5c1f0a1b2c3d';

/** uncordonedEvent — as UncordonService.act builds it, from a real verdict of the auto-uncordon rule (docs/auto-uncordon.md). */
function uncordonedEvent(): CloudEvent<NodeUncordonedData> {
  const node = aCordonedNode({ taints: [CORDON_TAINT, REBALANCE_TAINT] });
  const verdict = decideUncordon(node, anObservation(), NOW, aConfig());
  expect(verdict.decision).toBe('uncordon');
  const data: NodeUncordonedData = {
    node: node.name,
    reason: verdict.reason,
    description: describeVerdict(verdict),
    evidence: verdict.evidence,
    uncordonedAt: NOW.toISOString(),
    rebalanceTaintRemoved: node.taints.some((t) => t.key === REBALANCE_TAINT.key),
  };
  return makeEvent('uncordon', EventTypes.nodeUncordoned, data, NOW, { actor: 'system:uncordon', subject: node.name });
}

/** drainEvents — started, then completed or failed, with progress as DrainService.run and finish store it. */
function drainEvents(pods: ReturnType<typeof aDrainPod>[], options = DEFAULT_DRAIN_OPTIONS): CloudEvent<NodeDrainEventData>[] {
  const plan = planDrain(pods, options);
  let state = initialDrainState(plan, NOW, options);
  const progress = () => ({ ...progressOf(plan, state, { resumed: 0, pdbWaits: 1, errors: [] }) });
  const event = (type: EventType, data: NodeDrainEventData) => makeEvent('uncordon', type, data, NOW, { actor: 'alice', subject: 'n1', correlationId: 'c-1' });
  const events = [event(EventTypes.nodeDrainStarted, { operationId: OP_ID, node: 'n1', status: DrainStatus.RUNNING, progress: progress() })];
  let step = nextDrainStep(state, NOW, { presentUids: pods.map((p) => p.uid) });
  state = step.state;
  if (step.action === 'evict') {
    step = nextDrainStep(state, at(31), { results: step.pods.map((p) => ({ uid: p.uid, outcome: 'accepted' as const })), presentUids: [] });
    state = step.state;
  }
  const final = { ...progress(), message: step.action === 'fail' ? step.message : 'drained', outcomes: drainPodOutcomes(plan, state).map(({ pod, outcome }) => ({ pod, outcome })) };
  if (step.action === 'fail') {
    events.push(event(EventTypes.nodeDrainFailed, { operationId: OP_ID, node: 'n1', status: DrainStatus.FAILED, reason: step.reason, message: step.message, progress: final }));
  } else {
    expect(step.action).toBe('complete');
    events.push(event(EventTypes.nodeDrainCompleted, { operationId: OP_ID, node: 'n1', status: DrainStatus.COMPLETED, message: 'drained', progress: final }));
  }
  return events;
}

/** consolidationEvent — as ConsolidationService.consolidate builds it, from a real NodeClaim selection. */
function consolidationEvent(): CloudEvent<ConsolidationResult> {
  const claims = [0, 1, 2, 3].map((i) => ({ name: `claim-${i}`, nodeName: `node-${i}`, deleting: false }));
  const planned = [{ node: 'node-1', reason: 'underutilized' }, { node: 'node-2', reason: 'empty' }, { node: 'node-9', reason: 'empty' }];
  const selection = selectNodeClaims({ budgets: [{ nodes: '1' }], claims, planned, nodeAnnotations: new Map(), now: NOW });
  const result: ConsolidationResult = {
    nodePool: 'batch',
    dryRun: false,
    nodeClaims: [...selection.selected],
    failed: [],
    skipped: selection.skipped,
    budget: selection.budget,
    planned: planned.length,
  };
  return makeEvent('karpenter-gateway', EventTypes.nodepoolConsolidationRequested, result, NOW, { actor: 'alice', subject: 'batch', correlationId: 'c-2' });
}

describe('events built by the producing code validate against docs/asyncapi.yaml', () => {
  it('node.uncordoned from a real auto-uncordon verdict', () => {
    expect(problems(uncordonedEvent())).toEqual([]);
  });

  it('node.drain.started and node.drain.completed from a drain that evicts and finishes', () => {
    const events = drainEvents([aDrainPod(), aDrainPod({ controller: { kind: 'DaemonSet', name: 'aws-node' } })]);
    expect(events.map((e) => e.type)).toEqual(['node.drain.started', 'node.drain.completed']);
    for (const e of events) expect({ type: e.type, problems: problems(e) }).toEqual({ type: e.type, problems: [] });
  });

  it('node.drain.failed from a drain refused for a pod without a controller', () => {
    const events = drainEvents([aDrainPod(), aNakedPod()]);
    expect(events.map((e) => e.type)).toEqual(['node.drain.started', 'node.drain.failed']);
    for (const e of events) expect({ type: e.type, problems: problems(e) }).toEqual({ type: e.type, problems: [] });
  });

  it('nodepool.consolidation.requested from a real NodeClaim selection within a budget', () => {
    const ev = consolidationEvent();
    expect(ev.data.nodeClaims.length).toBe(1);
    expect(ev.data.skipped.length).toBeGreaterThan(0);
    expect(problems(ev)).toEqual([]);
  });

  it.each(ServiceNames.map((s) => [s]))('heartbeat.%s as every service publishes it', (service) => {
    const ev = makeEvent(service, heartbeatType(service), { service, mode: 'split' }, NOW);
    expect(problems(ev)).toEqual([]);
  });

  it.each([
    ['node.uncordoned with an unknown reason', () => ({ ...uncordonedEvent(), data: { ...uncordonedEvent().data, reason: 'BECAUSE' } })],
    ['node.uncordoned from another source', () => ({ ...uncordonedEvent(), source: 'nodes-manager/node-sync' })],
    ['node.drain.failed without its reason', () => {
      const failed = drainEvents([aNakedPod()])[1]!;
      const { reason: _r, ...data } = failed.data;
      return { ...failed, data };
    }],
    ['a heartbeat whose data names no service', () => makeEvent('uncordon', heartbeatType('uncordon'), { mode: 'split' }, NOW)],
    ['a consolidation whose budget lost its counts', () => ({ ...consolidationEvent(), data: { ...consolidationEvent().data, budget: { active: [] } } })],
  ])('refuses %s', (_, build) => {
    expect(problems(build() as CloudEvent).length).toBeGreaterThan(0);
  });
});
