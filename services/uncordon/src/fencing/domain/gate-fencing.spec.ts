import { describe, expect, it } from '@jest/globals';
import { FencingReason, type FencingVerdict } from '@nodes-manager/contracts';
import { admit, type WindowState } from '@nodes-manager/disruption';
import type { FenceCandidate } from './decide-fencing.js';
import { fenceApprovalInPlay, gateFence, recheckApprovedFence, type FenceApprovalFacts, type FenceGate, type FenceNow, type FenceRecheck } from './gate-fencing.js';

describe('gateFence — what a FENCE verdict does under DISRUPTION_APPROVAL for fence', () => {
  const a = (status: FenceApprovalFacts['status'], id = `fence-${status}`): FenceApprovalFacts => ({ id, status });
  it.each<[string, 'automatic' | 'manual', FenceApprovalFacts[], FenceGate]>([
    ['automatic: fence now, as before', 'automatic', [], { action: 'fence' }],
    ['automatic ignores earlier approvals', 'automatic', [a('rejected')], { action: 'fence' }],
    ['manual, never asked: a request', 'manual', [], { action: 'request_approval' }],
    ['manual, one pending: wait for it', 'manual', [a('pending')], { action: 'approval_open', approvalId: 'fence-pending', status: 'pending' }],
    ['manual, one approved (waiting for its window or the next pass)', 'manual', [a('expired'), a('approved')], { action: 'approval_open', approvalId: 'fence-approved', status: 'approved' }],
    ['manual, one executing', 'manual', [a('executing')], { action: 'approval_open', approvalId: 'fence-executing', status: 'executing' }],
    ['manual, rejected: never asked again for this node object', 'manual', [a('expired'), a('rejected')], { action: 'rejected', approvalId: 'fence-rejected' }],
    ['manual, an open one wins over a rejection', 'manual', [a('rejected'), a('pending')], { action: 'approval_open', approvalId: 'fence-pending', status: 'pending' }],
    ['manual, only expired: asked again', 'manual', [a('expired')], { action: 'request_approval' }],
    ['manual, one failed its re-check: asked again', 'manual', [a('failed')], { action: 'request_approval' }],
    ['manual, one executed whose fence was abandoned (Lease renewed): asked again', 'manual', [a('executed')], { action: 'request_approval' }],
  ])('%s', (_, mode, approvals, expected) => {
    const admission = admit('fence', { pause: { go: true }, policy: { default: mode, byKind: {} }, windows: [], nodePool: undefined, now: new Date('2026-12-01T12:00:00Z'), approval: fenceApprovalInPlay(approvals) });
    expect(gateFence(admission)).toEqual(expected);
  });
});

describe('recheckApprovedFence — the re-check at execution', () => {
  const NOW = new Date('2026-12-01T12:00:00Z');
  const approved = { node: 'n1', nodeUid: 'uid-n1' };
  const hung: FenceCandidate = {
    name: 'n1',
    uid: 'uid-n1',
    zone: 'us-east-1a',
    optedIn: true,
    instanceId: 'i-0000000000000001',
    ready: 'Unknown',
    notReadySince: new Date(NOW.getTime() - 300_000),
    lease: { renewTime: new Date(NOW.getTime() - 340_000), durationSeconds: 40 },
    alreadyFenced: false,
  };
  const verdict = (decision: FencingVerdict['decision'], reason: FencingReason, message = `${reason} message`): FencingVerdict => ({
    node: 'n1',
    zone: 'us-east-1a',
    decision,
    reason,
    message,
    optedIn: true,
    ready: 'Unknown',
    notReadySince: null,
    leaseRenewedAt: null,
    leaseStaleSeconds: 340,
    evaluatedAt: NOW.toISOString(),
  });
  const open: WindowState = { open: true, reason: 'no_windows' };
  const opensAt = new Date('2026-12-01T22:00:00Z');
  const closed: WindowState = { open: false, reason: 'outside_window', opensAt };
  const fence = verdict('fence', FencingReason.FENCE);

  it.each<[string, FenceNow, FenceRecheck]>([
    ['still hung, still FENCE, no windows: go', { candidate: hung, verdict: fence, window: open }, { go: true, candidate: hung }],
    [
      'inside its window: go',
      { candidate: hung, verdict: fence, window: { open: true, reason: 'inside_window', window: '0 22 * * * 8h UTC', closesAt: opensAt } },
      { go: true, candidate: hung },
    ],
    ['outside its window: not claimed, waits (even when nothing else holds)', { verdict: fence, window: closed }, { go: false, wait: true, opensAt }],
    ['the node is gone', { window: open }, { go: false, wait: false, reason: 'node_gone', detail: 'node n1 is gone' }],
    [
      'another node object of the same name',
      { candidate: { ...hung, uid: 'uid-n1-b' }, verdict: fence, window: open },
      { go: false, wait: false, reason: 'node_replaced', detail: 'node n1 is another node object now (uid-n1-b), not the one approved (uid-n1)' },
    ],
    ['Ready again', { candidate: { ...hung, ready: 'True', notReadySince: null }, window: open }, { go: false, wait: false, reason: 'ready_again', detail: 'node n1 is Ready again' }],
    ['its Lease renewed again', { candidate: hung, verdict: verdict('wait', FencingReason.LEASE_FRESH, 'renewed 3s ago'), window: open }, { go: false, wait: false, reason: 'lease_fresh', detail: 'renewed 3s ago' }],
    ['a partition is suspected now', { candidate: hung, verdict: verdict('skip', FencingReason.PARTITION_SUSPECTED, '7 of 10 look dead'), window: open }, { go: false, wait: false, reason: 'partition_suspected', detail: '7 of 10 look dead' }],
    ['fenced since (automatic in between, another approval)', { candidate: hung, verdict: verdict('skip', FencingReason.ALREADY_FENCED, 'fenced already'), window: open }, { go: false, wait: false, reason: 'already_fenced', detail: 'fenced already' }],
    ['its label removed', { candidate: { ...hung, optedIn: false }, verdict: verdict('skip', FencingReason.NOT_OPTED_IN, 'not labelled'), window: open }, { go: false, wait: false, reason: 'not_opted_in', detail: 'not labelled' }],
    ['fencing switched off', { candidate: hung, verdict: verdict('skip', FencingReason.DISABLED, 'switched off'), window: open }, { go: false, wait: false, reason: 'disabled', detail: 'switched off' }],
  ])('%s', (_, now, expected) => {
    expect(recheckApprovedFence(approved, now)).toEqual(expected);
  });
});
