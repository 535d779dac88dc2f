import { describe, expect, it } from '@jest/globals';
import { advanceLedger, givenBackMs, untilNextHorizonMs, type LedgerEntry, type LedgerStep } from './advance-ledger.js';
import { at, CORDON_TAINT, cordonEntry, kubeletEntry, T0 } from '../../../test/cordoned-node.builder.js';
import { aClaimEvent, aLedgerNode, anEntry, anEvent, anItnTaint, aServingNode, LEDGER_CONFIG, ledgerInput, NTH_QUEUE_TAINT, REBALANCE_TAINT_KEY } from '../../../test/ledger.builder.js';
import { attributeClaimEvents, eventSource, taintSource } from './ledger-node.js';

const H = 60; // minutes per hour
const stateOf = (e: LedgerEntry) => ({
  outcome: e.outcome,
  seenAt: e.seenAt.toISOString(),
  signal: e.seenSignal,
  timeSource: e.seenTimeSource,
  ...(e.uncordonedAt ? { uncordonedAt: e.uncordonedAt.toISOString() } : {}),
  ...(e.recordonedAt ? { recordonedAt: e.recordonedAt.toISOString() } : {}),
  ...(e.interruptionSource ? { interruptionSource: e.interruptionSource } : {}),
  ...(e.leadTimeMs !== null ? { leadMinutes: e.leadTimeMs / 60_000 } : {}),
  ...(e.givenBackMs ? { givenBackMinutes: e.givenBackMs / 60_000 } : {}),
});
const all = (s: LedgerStep) => [...s.opened, ...s.updated].map(stateOf);

describe('advanceLedger — when a row opens', () => {
  it.each([
    ["NTH's rebalance taint opens a row timed by the taint's timeAdded", ledgerInput(), { outcome: 'observed', seenAt: T0.toISOString(), signal: 'rebalance-taint', timeSource: 'taint-time-added' }],
    [
      'a cordon whose managedFields owner is NTH opens a row timed by that entry',
      ledgerInput({ nodes: [aLedgerNode({ taints: [CORDON_TAINT], managedFields: [kubeletEntry(), cordonEntry('node-termination-handler', at(2))] })] }),
      { outcome: 'observed', seenAt: at(2).toISOString(), signal: 'nth-cordon', timeSource: 'managed-fields' },
    ],
    [
      "NTH's RebalanceRecommendation Event alone opens a row timed by the Event (node never cordoned)",
      ledgerInput({ nodes: [aServingNode(null)], events: [anEvent('RebalanceRecommendation', at(-3))] }),
      { outcome: 'observed', seenAt: at(-3).toISOString(), signal: 'nth-event', timeSource: 'event-time' },
    ],
    [
      'a rebalance taint without a time is timed by our first sight',
      ledgerInput({ nodes: [aLedgerNode({ taints: [CORDON_TAINT, { key: 'aws-node-termination-handler/rebalance-recommendation', effect: 'NoSchedule' }], managedFields: [kubeletEntry()] })], now: at(5) }),
      { outcome: 'observed', seenAt: at(5).toISOString(), signal: 'rebalance-taint', timeSource: 'first-seen' },
    ],
  ])('%s', (_, input, expected) => {
    const step = advanceLedger(input);
    expect(step.opened.map(stateOf)).toEqual([expected]);
  });

  it.each([
    ['a kubectl cordon opens nothing', ledgerInput({ nodes: [aLedgerNode({ taints: [CORDON_TAINT], managedFields: [cordonEntry('kubectl-cordon', at(0))] })] })],
    ['an NTH cordon that comes with the spot-itn taint and no rebalance taint is the interruption, not a rebalance', ledgerInput({ nodes: [aLedgerNode({ taints: [CORDON_TAINT, anItnTaint(at(0))] })] })],
    ['a node that is neither cordoned nor tainted opens nothing', ledgerInput({ nodes: [aServingNode(null)] })],
    ['seeing the same rebalance again (another cycle, or a restart) opens nothing', ledgerInput({ entries: [anEntry()], now: at(30) })],
    ['an old RebalanceRecommendation Event from before the latest row opens nothing', ledgerInput({ nodes: [aServingNode(at(20))], entries: [anEntry({ outcome: 'uncordoned', uncordonedAt: at(20) })], events: [anEvent('RebalanceRecommendation', at(-30))], now: at(30) })],
    [
      "NTH's cordon with its interruption notice, the rebalance taint still there, opens no second row",
      ledgerInput({
        nodes: [aLedgerNode({ taints: [CORDON_TAINT, { key: 'aws-node-termination-handler/rebalance-recommendation', effect: 'NoSchedule', timeAdded: T0.toISOString() }, anItnTaint(at(40))], managedFields: [kubeletEntry(), cordonEntry('node-termination-handler', at(40))] })],
        entries: [anEntry({ outcome: 'interrupted', interruptedAt: at(40), interruptionSource: 'spot-itn-taint', leadTimeMs: 40 * 60_000, resolvedAt: at(40), evidence: [...anEntry().evidence, { kind: 'spot-itn-taint', at: at(40).toISOString() }] })],
        now: at(45),
      }),
    ],
  ])('%s', (_, input) => {
    expect(all(advanceLedger(input))).toEqual([]);
  });
});

describe('advanceLedger — how a row moves on', () => {
  it.each([
    ['our uncordon (our annotation) makes it uncordoned, keeping when', ledgerInput({ nodes: [aServingNode(at(15))], entries: [anEntry()], now: at(16) }), [{ outcome: 'uncordoned', uncordonedAt: at(15).toISOString() }]],
    [
      'a spot-itn taint makes it interrupted, lead time from the rebalance to the taint',
      ledgerInput({ nodes: [aLedgerNode({ taints: [CORDON_TAINT, anItnTaint(at(95))] })], entries: [anEntry()], now: at(96) }),
      [{ outcome: 'interrupted', interruptionSource: 'spot-itn-taint', leadMinutes: 95 }],
    ],
    [
      "NTH's SpotInterruption Event makes it interrupted, timed by the Event",
      ledgerInput({ entries: [anEntry()], events: [anEvent('SpotInterruption', at(42))], now: at(43) }),
      [{ outcome: 'interrupted', interruptionSource: 'nth-event', leadMinutes: 42 }],
    ],
    [
      'a node both uncordoned and later interrupted is interrupted, its uncordon and the time it served kept',
      ledgerInput({ nodes: [aServingNode(at(15), { taints: [anItnTaint(at(75))] })], entries: [anEntry({ outcome: 'uncordoned', uncordonedAt: at(15) })], now: at(76) }),
      [{ outcome: 'interrupted', uncordonedAt: at(15).toISOString(), interruptionSource: 'spot-itn-taint', leadMinutes: 75, givenBackMinutes: 60 }],
    ],
    [
      'an interruption that comes after the horizon leaves it survived',
      ledgerInput({ nodes: [aLedgerNode({ taints: [CORDON_TAINT, anItnTaint(at(25 * H))] })], entries: [anEntry()], now: at(25 * H) }),
      [{ outcome: 'survived' }],
    ],
    ['still running at the end of the horizon, it survived', ledgerInput({ entries: [anEntry()], now: at(24 * H) }), [{ outcome: 'survived' }]],
    [
      'uncordoned and never interrupted, it survived having given back the node until the horizon',
      ledgerInput({ nodes: [aServingNode(at(15))], entries: [anEntry({ outcome: 'uncordoned', uncordonedAt: at(15) })], now: at(24 * H + 5) }),
      [{ outcome: 'survived', uncordonedAt: at(15).toISOString(), givenBackMinutes: 24 * H - 15 }],
    ],
  ])('%s', (_, input, expected) => {
    const step = advanceLedger(input);
    expect(step.updated.map(stateOf)).toEqual(expected.map((e) => expect.objectContaining(e)));
    expect(step.resolved.length).toBe(expected.filter((e) => ['interrupted', 'survived', 'removed'].includes(e.outcome)).length);
  });

  it('cordoned again by NTH after our uncordon: the row is recordoned and the new rebalance opens its own row', () => {
    const node = aLedgerNode({
      taints: [CORDON_TAINT, { key: 'aws-node-termination-handler/rebalance-recommendation', effect: 'NoSchedule', timeAdded: at(120).toISOString() }],
      managedFields: [kubeletEntry(), cordonEntry('node-termination-handler', at(120))],
    });
    const step = advanceLedger(ledgerInput({ nodes: [node], entries: [anEntry({ outcome: 'uncordoned', uncordonedAt: at(15) })], now: at(121) }));
    expect(step.updated.map(stateOf)).toEqual([expect.objectContaining({ outcome: 'recordoned', recordonedAt: at(120).toISOString() })]);
    expect(givenBackMs(step.updated[0]!, at(200), LEDGER_CONFIG.horizonMs) / 60_000).toBe(105);
    expect(step.opened.map(stateOf)).toEqual([expect.objectContaining({ outcome: 'observed', seenAt: at(120).toISOString() })]);
    // The interruption that then follows resolves both rebalances, each with its own lead time.
    const later = advanceLedger(ledgerInput({ nodes: [{ ...node, taints: [...node.taints, anItnTaint(at(180))] }], entries: [...step.updated, ...step.opened], now: at(181) }));
    expect(later.resolved.map((e) => [e.outcome, (e.leadTimeMs ?? 0) / 60_000])).toEqual([['interrupted', 180], ['interrupted', 60]]);
  });
});

describe('advanceLedger — a node that goes away', () => {
  const gone = (overrides = {}) => ledgerInput({ nodes: [], entries: [anEntry()], now: at(50), ...overrides });
  it.each([
    ['without EC2, a node gone with no interruption signal is removed', gone(), { outcome: 'removed' }],
    ["NTH's SpotInterruption Event, outliving the Node, makes it interrupted", gone({ events: [anEvent('SpotInterruption', at(45))] }), { outcome: 'interrupted', interruptionSource: 'nth-event', leadMinutes: 45 }],
    [
      "EC2's Server.SpotInstanceTermination state reason makes it interrupted, timed by the node going",
      gone({ ec2: new Map([['i-0123456789abcdef0', { instanceId: 'i-0123456789abcdef0', state: 'terminated', stateReasonCode: 'Server.SpotInstanceTermination', stateReasonMessage: null }]]), entries: [anEntry({ goneAt: at(48) })] }),
      { outcome: 'interrupted', interruptionSource: 'ec2-state-reason', leadMinutes: 48 },
    ],
    [
      'EC2 saying the instance was shut down by its user makes it removed',
      gone({ ec2: new Map([['i-0123456789abcdef0', { instanceId: 'i-0123456789abcdef0', state: 'terminated', stateReasonCode: 'Client.UserInitiatedShutdown', stateReasonMessage: null }]]) }),
      { outcome: 'removed' },
    ],
    ['EC2 silent for longer than the wait makes it removed', gone({ ec2: new Map(), entries: [anEntry({ goneAt: at(30) })], now: at(41) }), { outcome: 'removed' }],
    ['a node that went after the horizon survived', gone({ now: at(24 * H + 1) }), { outcome: 'survived' }],
  ])('%s', (_, input, expected) => {
    const step = advanceLedger(input);
    expect(step.updated.map(stateOf)).toEqual([expect.objectContaining(expected)]);
    expect(step.resolved).toHaveLength(1);
    expect(step.askEc2).toEqual([]);
  });

  it('with EC2 configured and no answer yet, the row waits (gone time kept) and EC2 is asked', () => {
    const step = advanceLedger(gone({ ec2: new Map() }));
    expect(step.updated.map((e) => [e.outcome, e.goneAt?.toISOString()])).toEqual([['observed', at(50).toISOString()]]);
    expect(step.askEc2).toEqual(['i-0123456789abcdef0']);
    expect(step.resolved).toEqual([]);
  });

  it('a re-created node of the same name is another Node object: the old row is resolved, the new node starts clean', () => {
    const fresh = aServingNode(null, { uid: 'uid-2', annotations: {} });
    const step = advanceLedger(ledgerInput({ nodes: [fresh], entries: [anEntry()], now: at(50) }));
    expect(step.updated.map((e) => [e.nodeUid, e.outcome])).toEqual([['uid-1', 'removed']]);
    expect(step.opened).toEqual([]);
    const rebalanced = advanceLedger(ledgerInput({ nodes: [aLedgerNode({ uid: 'uid-2' })], entries: [...step.updated], now: at(51) }));
    expect(rebalanced.opened.map((e) => [e.nodeUid, e.outcome])).toEqual([['uid-2', 'observed']]);
  });
});

describe('advanceLedger — restarts in the middle', () => {
  it('a step applied twice (a restart replaying the same view) changes nothing the second time', () => {
    const first = advanceLedger(ledgerInput({ nodes: [aServingNode(at(15))], entries: [anEntry()], now: at(16) }));
    const again = advanceLedger(ledgerInput({ nodes: [aServingNode(at(15))], entries: first.updated, now: at(17) }));
    expect(all(again)).toEqual([]);
  });

  it('an uncordon and an interruption that both happened while we were down are read back with their own times', () => {
    const step = advanceLedger(ledgerInput({ nodes: [aServingNode(at(15), { taints: [anItnTaint(at(70))] })], entries: [anEntry()], now: at(90) }));
    expect(step.updated.map(stateOf)).toEqual([expect.objectContaining({ outcome: 'interrupted', uncordonedAt: at(15).toISOString(), leadMinutes: 70, givenBackMinutes: 55 })]);
  });

  it('a gone node waiting for EC2 keeps the time it was first seen gone across a restart', () => {
    const waiting = advanceLedger(ledgerInput({ nodes: [], entries: [anEntry()], ec2: new Map(), now: at(50) })).updated;
    const after = advanceLedger(ledgerInput({ nodes: [], entries: waiting, ec2: new Map(), now: at(55) }));
    expect(after.updated).toEqual([]);
    expect(after.askEc2).toEqual(['i-0123456789abcdef0']);
    expect(LEDGER_CONFIG.ec2WaitMs).toBe(10 * 60_000);
  });
});

describe('untilNextHorizonMs — when the next pass resolves a row at its horizon', () => {
  const HOUR = 3_600_000;
  it.each([
    ['one open row seen at T0, an hour before its 24 h horizon', [anEntry()], at(23 * H), HOUR],
    ['the soonest of two open rows (one seen two hours earlier)', [anEntry({ id: 'a' }), anEntry({ id: 'b', seenAt: at(-2 * H) })], at(21 * H), HOUR],
    ['a resolved row has no horizon to wait for', [anEntry({ resolvedAt: at(2), outcome: 'interrupted' })], at(23 * H), undefined],
    ['a row at or past its horizon waits for nothing (this pass resolves it)', [anEntry()], at(24 * H), undefined],
  ])('%s', (_, entries, now, ms) => {
    expect(untilNextHorizonMs(entries as LedgerEntry[], now, LEDGER_CONFIG.horizonMs)).toBe(ms);
  });
});

const sourcesOf = (e: LedgerEntry | undefined) => (e?.evidence ?? []).map((x) => `${x.kind} ${x.source ?? '-'} ${x.at.slice(11, 19)}`);

describe("advanceLedger — Karpenter's own interruption handling (no NTH)", () => {
  const karpenterNode = aServingNode(null, { annotations: {} });
  it.each([
    [
      "Karpenter's SpotRebalanceRecommendation Event on the Node opens a row timed by the Event",
      ledgerInput({ nodes: [karpenterNode], events: [anEvent('SpotRebalanceRecommendation', at(-2))] }),
      ['karpenter-rebalance-event karpenter 09:58:00'],
    ],
    [
      'the same Event on the NodeClaim alone (attributed to its node) opens the row, saying so',
      ledgerInput({ nodes: [karpenterNode], events: [aClaimEvent('SpotRebalanceRecommendation', at(-2))] }),
      ['karpenter-rebalance-event karpenter 09:58:00'],
    ],
    [
      'Karpenter records it on both the Node and the NodeClaim: one row, both pieces of evidence kept once',
      ledgerInput({ nodes: [karpenterNode], events: [anEvent('SpotRebalanceRecommendation', at(-2)), aClaimEvent('SpotRebalanceRecommendation', at(-2))] }),
      ['karpenter-rebalance-event karpenter 09:58:00'],
    ],
  ])('%s', (_, input, evidence) => {
    const step = advanceLedger(input);
    expect(step.opened.map((e) => [e.seenSignal, e.seenTimeSource, e.seenAt.toISOString()])).toEqual([['karpenter-event', 'event-time', at(-2).toISOString()]]);
    expect(sourcesOf(step.opened[0])).toEqual(evidence);
  });

  it("a NodeClaim's SpotInterrupted Event, outliving the Node and the NodeClaim, makes the row interrupted", () => {
    const step = advanceLedger(ledgerInput({ nodes: [], entries: [anEntry()], events: [aClaimEvent('SpotInterrupted', at(44))], now: at(50) }));
    expect(step.updated.map(stateOf)).toEqual([expect.objectContaining({ outcome: 'interrupted', interruptionSource: 'karpenter-event', leadMinutes: 44 })]);
    expect(step.updated[0]!.evidence.find((e) => e.kind === 'karpenter-interruption-event')?.detail).toBe('on the NodeClaim default-x7k2p: Spot interruption warning was triggered');
  });

  it("Karpenter's SpotInterrupted Event on a node still there makes it interrupted", () => {
    const step = advanceLedger(ledgerInput({ entries: [anEntry()], events: [anEvent('SpotInterrupted', at(30))], now: at(31) }));
    expect(step.updated.map(stateOf)).toEqual([expect.objectContaining({ outcome: 'interrupted', interruptionSource: 'karpenter-event', leadMinutes: 30 })]);
  });
});

describe('advanceLedger — one rebalance seen by two sources is one row', () => {
  it("NTH's taint (IMDS mode) and Karpenter's Event 20 s earlier, in one view: one row at the earlier time, both pieces of evidence", () => {
    const step = advanceLedger(ledgerInput({ events: [anEvent('SpotRebalanceRecommendation', new Date(T0.getTime() - 20_000))] }));
    expect(step.opened).toHaveLength(1);
    expect(step.opened[0]!.seenAt.toISOString()).toBe('2026-03-01T09:59:40.000Z');
    expect(sourcesOf(step.opened[0])).toEqual(['karpenter-rebalance-event karpenter 09:59:40', 'rebalance-taint nth 10:00:00', 'nth-cordon nth 10:00:00']);
  });

  it("Karpenter's Event arriving a pass later joins the row NTH opened (and moves it to the earlier time): no second row", () => {
    const step = advanceLedger(ledgerInput({ entries: [anEntry()], events: [anEvent('SpotRebalanceRecommendation', new Date(T0.getTime() - 20_000))], now: at(2) }));
    expect(step.opened).toEqual([]);
    expect(step.updated.map((e) => [e.id, e.seenAt.toISOString(), e.seenSignal])).toEqual([['row-0', '2026-03-01T09:59:40.000Z', 'karpenter-event']]);
    expect(sourcesOf(step.updated[0])).toEqual(['rebalance-taint nth 10:00:00', 'nth-cordon nth 10:00:00', 'karpenter-rebalance-event karpenter 09:59:40']);
  });

  it('an Event 11 minutes after the row is another rebalance (outside the 10-minute window): it opens a row once this one is no longer observed', () => {
    const entry = anEntry({ outcome: 'uncordoned', uncordonedAt: at(5) });
    const step = advanceLedger(ledgerInput({ nodes: [aServingNode(at(5))], entries: [entry], events: [anEvent('SpotRebalanceRecommendation', at(11))], now: at(12) }));
    expect(step.opened.map((e) => e.seenAt.toISOString())).toEqual([at(11).toISOString()]);
  });

  it('an interruption seen by NTH (queue-mode taint) and by Karpenter: interrupted once, timed by the first, with both pieces of evidence', () => {
    const node = aLedgerNode({ taints: [CORDON_TAINT, { key: REBALANCE_TAINT_KEY, effect: 'NoSchedule', timeAdded: T0.toISOString() }, { ...anItnTaint(at(40)), value: NTH_QUEUE_TAINT }] });
    const step = advanceLedger(ledgerInput({ nodes: [node], entries: [anEntry()], events: [aClaimEvent('SpotInterrupted', at(39))], now: at(41) }));
    expect(step.updated.map(stateOf)).toEqual([expect.objectContaining({ outcome: 'interrupted', interruptionSource: 'karpenter-event', leadMinutes: 39 })]);
    expect(sourcesOf(step.updated[0]).slice(2)).toEqual(['karpenter-interruption-event karpenter 10:39:00', 'spot-itn-taint nth-queue 10:40:00']);
    // The second source seen only after the row was resolved still joins it.
    const late = advanceLedger(ledgerInput({ nodes: [node], entries: [{ ...step.updated[0]!, evidence: step.updated[0]!.evidence.slice(0, 3) }], events: [aClaimEvent('SpotInterrupted', at(39))], now: at(45) }));
    expect(late.opened).toEqual([]);
    expect(sourcesOf(late.updated[0]).slice(2)).toEqual(['karpenter-interruption-event karpenter 10:39:00', 'spot-itn-taint nth-queue 10:40:00']);
    expect(late.resolved).toEqual([]);
  });
});

describe('which system a signal came from', () => {
  it.each([
    ['a Karpenter Event', anEvent('SpotRebalanceRecommendation', T0), 'karpenter'],
    ["NTH's Event naming the Node with its uid: queue mode (it read the Node)", anEvent('RebalanceRecommendation', T0), 'nth-queue'],
    ["NTH's Event naming the Node only: IMDS mode", anEvent('RebalanceRecommendation', T0, { nodeUid: undefined }), 'nth-imds'],
  ])('%s', (_, e, source) => expect(eventSource(e)).toBe(source));

  it.each([
    ['rebalance-recommendation-event-3131322d3334', 'nth-queue'],
    ['spot-itn-event-3131322d3334', 'nth-queue'],
    ['rebalance-recommendation-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0', 'nth-imds'],
    ['spot-itn-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 'nth-imds'],
    [undefined, 'nth'],
  ])('a taint valued %s is %s', (value, source) => expect(taintSource(value)).toBe(source));
});

describe("attributeClaimEvents — a NodeClaim's Events go to its node", () => {
  const node = aLedgerNode();
  const ev = { reason: 'SpotInterrupted', nodeClaim: 'default-x7k2p', at: T0 };
  it.each([
    ['through status.nodeName', [{ name: 'default-x7k2p', nodeName: 'ip-10-0-1-23.ec2.internal' }], ['ip-10-0-1-23.ec2.internal'], 0],
    ["through status.providerID's instance id, matched to the node's", [{ name: 'default-x7k2p', instanceId: 'i-0123456789abcdef0' }], ['ip-10-0-1-23.ec2.internal'], 0],
    ['not at all when the NodeClaim names no node yet', [{ name: 'default-x7k2p' }], [], 1],
    ['not at all when the NodeClaim was never seen', [], [], 1],
  ])('%s', (_, claims, nodes, unattributed) => {
    const out = attributeClaimEvents([ev], claims, [node]);
    expect(out.events.map((e) => e.node)).toEqual(nodes);
    expect(out.unattributed).toBe(unattributed);
  });
});
