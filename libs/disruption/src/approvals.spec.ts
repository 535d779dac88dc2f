import { describe, expect, it } from '@jest/globals';
import { approvalModeFor, parseApprovalPolicy } from './approval-mode.js';
import { approvalKindOf } from '@nodes-manager/contracts';
import { decideApproval, isExpired, nextApprovalStep, type ApprovalFacts } from './approvals.js';

const now = new Date('2026-03-11T12:00:00Z');
const anApproval = (over: Partial<ApprovalFacts> = {}): ApprovalFacts => ({
  status: 'pending',
  requestedBy: 'system:scheduler-scoring',
  expiresAt: new Date('2026-03-11T13:00:00Z'),
  ...over,
});

describe('decideApproval', () => {
  it.each([
    ['an operator approves a pending request', anApproval(), 'approve', 'alice', false, { ok: true, status: 'approved' }],
    ['an operator rejects a pending request', anApproval(), 'reject', 'alice', false, { ok: true, status: 'rejected' }],
    ['an approved request is not approved again', anApproval({ status: 'approved' }), 'approve', 'alice', false, { ok: false, reason: 'not_pending', code: 'CONFLICT' }],
    ['an executed request is not rejected', anApproval({ status: 'executed' }), 'reject', 'alice', false, { ok: false, reason: 'not_pending' }],
    ['a request past its deadline is expired, not approved', anApproval({ expiresAt: now }), 'approve', 'alice', false, { ok: false, reason: 'expired', expire: true }],
    ['with distinct approvers the requester may not approve', anApproval({ requestedBy: 'alice' }), 'approve', 'alice', true, { ok: false, reason: 'approver_is_requester', code: 'FORBIDDEN' }],
    ['with distinct approvers the requester may still withdraw it', anApproval({ requestedBy: 'alice' }), 'reject', 'alice', true, { ok: true, status: 'rejected' }],
    ['with distinct approvers someone else approves', anApproval({ requestedBy: 'alice' }), 'approve', 'bob', true, { ok: true, status: 'approved' }],
    ['without the rule the requester may approve', anApproval({ requestedBy: 'alice' }), 'approve', 'alice', false, { ok: true, status: 'approved' }],
  ] as const)('%s', (_, a, action, actor, distinctApprover, expected) => {
    expect(decideApproval(a, action, actor, now, { distinctApprover })).toMatchObject(expected);
  });
});

describe('isExpired', () => {
  it.each([
    ['a pending request before its deadline', anApproval(), false],
    ['a pending request at its deadline', anApproval({ expiresAt: now }), true],
    ['an approved request waiting for its window past the deadline', anApproval({ status: 'approved', expiresAt: new Date(0) }), false],
    ['a rejected request', anApproval({ status: 'rejected', expiresAt: new Date(0) }), false],
  ])('%s: %s', (_, a, expired) => {
    expect(isExpired(a, now)).toBe(expired);
  });
});

describe('parseApprovalPolicy', () => {
  it.each([
    ['empty means automatic for all', '', 'automatic', 'automatic'],
    ['one mode for every kind', 'manual', 'manual', 'manual'],
    ['a kind of its own, the rest by default', 'automatic,optimize=manual', 'manual', 'automatic'],
    ['a manual default with one kind automatic', 'manual, consolidate=automatic', 'manual', 'automatic'],
  ])('%s', (_, raw, optimize, consolidate) => {
    const p = parseApprovalPolicy(raw);
    expect(p.ok).toBe(true);
    if (p.ok) expect([approvalModeFor(p.policy, 'optimize'), approvalModeFor(p.policy, 'consolidate')]).toEqual([optimize, consolidate]);
  });

  it.each([
    ['an unknown mode', 'sometimes', /"sometimes" is neither/],
    ['an unknown kind', 'reboot=manual', /the kind must be one of optimize, consolidate, fence/],
    ['a kind twice', 'optimize=manual,optimize=automatic', /optimize is given twice/],
    ['a bad mode for a kind', 'optimize=yes', /the mode must be automatic or manual/],
  ])('refuses %s', (_, raw, problem) => {
    const p = parseApprovalPolicy(raw);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.problems.join('; ')).toMatch(problem);
  });
});

describe('approvalKindOf', () => {
  it.each([
    ['optimize-0b7f3c3e-8c1a-4a55-9f0e-1d2c3b4a5f60', 'optimize'],
    ['consolidate-0b7f3c3e-8c1a-4a55-9f0e-1d2c3b4a5f60', 'consolidate'],
    ['0b7f3c3e-8c1a-4a55-9f0e-1d2c3b4a5f60', undefined],
    ['reboot-0b7f3c3e-8c1a-4a55-9f0e-1d2c3b4a5f60', undefined],
    ["optimize-1' OR 1=1", undefined],
  ])('%s belongs to %s', (id, kind) => {
    expect(approvalKindOf(id)).toBe(kind);
  });
});

describe('nextApprovalStep', () => {
  const ms = (n: number) => new Date(now.getTime() + n);
  it.each([
    ['a pending request an hour before its deadline waits exactly that long', anApproval({ expiresAt: ms(3_600_000) }), true, { step: 'wait', requeueAfterMs: 3_600_000 }],
    ['a pending request a millisecond before its deadline waits that millisecond', anApproval({ expiresAt: ms(1) }), true, { step: 'wait', requeueAfterMs: 1 }],
    ['a pending request at its deadline expires', anApproval({ expiresAt: now }), true, { step: 'expire' }],
    ['a pending request past its deadline expires', anApproval({ expiresAt: ms(-1) }), false, { step: 'expire' }],
    ['an approved request is carried out by an executing controller', anApproval({ status: 'approved', expiresAt: ms(-1) }), true, { step: 'execute' }],
    ['an approved request is left to its owner by an expiring-only controller', anApproval({ status: 'approved' }), false, { step: 'none' }],
    ['an executing request is failed as interrupted (under the lock) by an executing controller', anApproval({ status: 'executing' }), true, { step: 'fail_interrupted' }],
    ['an executing request is left to its owner by an expiring-only controller', anApproval({ status: 'executing' }), false, { step: 'none' }],
    ...(['rejected', 'expired', 'executed', 'failed'] as const).map((status) => [`a ${status} request is done`, anApproval({ status, expiresAt: ms(-1) }), true, { step: 'none' }] as const),
  ] as const)('%s', (_, a, executes, expected) => {
    expect(nextApprovalStep(a, now, executes)).toEqual(expected);
  });
});
