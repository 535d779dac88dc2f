import { advanceLedger, type LedgerConfig, type LedgerEntry, type LedgerInput } from '../src/rebalance-ledger/domain/advance-ledger.js';
import { nodeFactsOf, type LedgerNode, type NodeEvent } from '../src/rebalance-ledger/domain/ledger-node.js';
import { aCordonedNode, at, CORDON_TAINT, cordonEntry, kubeletEntry, taint, T0 } from './cordoned-node.builder.js';

export const ITN_TAINT_KEY = 'aws-node-termination-handler/spot-itn';
export const POOL_LABELS = {
  'node.kubernetes.io/instance-type': 'm5.large',
  'topology.kubernetes.io/zone': 'us-east-1a',
  'karpenter.sh/capacity-type': 'spot',
  'karpenter.sh/nodepool': 'default',
};
const PROVIDER_ID = 'aws:///us-east-1a/i-0123456789abcdef0';

/** aLedgerNode — by default a Spot node NTH has cordoned with its rebalance taint at T0. */
export function aLedgerNode(overrides: Partial<LedgerNode> = {}): LedgerNode {
  const base = aCordonedNode({
    taints: [CORDON_TAINT, { ...taint('aws-node-termination-handler/rebalance-recommendation'), timeAdded: T0.toISOString() }],
    labels: POOL_LABELS,
  });
  return { ...base, uid: 'uid-1', facts: nodeFactsOf(overrides.labels ?? POOL_LABELS, PROVIDER_ID), ...overrides };
}

/** aServingNode — the same node uncordoned, carrying our annotation of when. */
export const aServingNode = (uncordonedAt: Date | null, overrides: Partial<LedgerNode> = {}): LedgerNode =>
  aLedgerNode({
    unschedulable: false,
    taints: [],
    managedFields: [kubeletEntry(), cordonEntry('nodes-manager', uncordonedAt ?? at(20))],
    annotations: uncordonedAt ? { 'nodes-manager/uncordoned-at': uncordonedAt.toISOString() } : {},
    ...overrides,
  });

export const anItnTaint = (added: Date) => ({ ...taint(ITN_TAINT_KEY), timeAdded: added.toISOString() });

export const REBALANCE_TAINT_KEY = 'aws-node-termination-handler/rebalance-recommendation';
/** A taint value as NTH writes it in queue mode (its event id: pkg/monitor/sqsevent/). */
export const NTH_QUEUE_TAINT = 'spot-itn-event-3131322d3334';

/** aClaimEvent — Karpenter's Event on the default node's NodeClaim, attributed to the node (as the service does). */
export const aClaimEvent = (reason: string, when: Date): NodeEvent => ({
  reason,
  node: 'ip-10-0-1-23.ec2.internal',
  at: when,
  nodeClaim: 'default-x7k2p',
  message: reason === 'SpotInterrupted' ? 'Spot interruption warning was triggered' : 'Spot rebalance recommendation was triggered',
});

export const anEvent = (reason: string, when: Date, overrides: Partial<NodeEvent> = {}): NodeEvent => ({ reason, node: 'ip-10-0-1-23.ec2.internal', nodeUid: 'uid-1', at: when, ...overrides });

export const LEDGER_CONFIG: LedgerConfig = { horizonMs: 24 * 3600_000, cordonManagers: ['node-termination-handler'], ec2WaitMs: 10 * 60_000 };

let ids = 0;
export function ledgerInput(overrides: Partial<LedgerInput> = {}): LedgerInput {
  return { entries: [], nodes: [aLedgerNode()], events: [], ec2: 'not-configured', now: at(1), config: LEDGER_CONFIG, newId: () => `row-${++ids}`, ...overrides };
}

/**
 * anEntry — a ledger row for the default node, seen at T0 from its rebalance taint (and NTH's cordon): the row
 * {@link advanceLedger} opens for {@link aLedgerNode} at T0, with `overrides` on top.
 */
export function anEntry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  const [opened] = advanceLedger(ledgerInput({ now: T0, newId: () => 'row-0' })).opened;
  if (!opened) throw new Error('advanceLedger opened no row for the default node');
  return { ...opened, ...overrides };
}
