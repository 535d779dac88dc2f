import { describe, expect, it } from '@jest/globals';
import { parseWindows, type MaintenanceWindow, type PauseCheck } from '@nodes-manager/disruption';
import type { NodeRemoval } from '@nodes-manager/scoring';
import { admitNodes, gateDisruption } from './gate-disruption.js';

const aRemoval = (node: string): NodeRemoval => ({ node, reason: 'underutilized', utilization: 0.2, pods: [], savingsUsdPerHour: 0.05, priceKnown: true });
const windows = (raw: string): MaintenanceWindow[] => {
  const p = parseWindows(raw);
  if (!p.ok) throw new Error(p.problems.join('; '));
  return p.windows;
};
const POOLS: Record<string, string> = { web1: 'web', web2: 'web', batch1: 'batch' };
const poolOf = (n: string) => POOLS[n];
// Nights for everyone, noon for batch; 2026-03-11 is a Wednesday.
const W = windows('0 2 * * * 3h UTC; 0 12 * * * 1h UTC nodePool=batch');
const NIGHT = new Date('2026-03-11T02:30:00Z');
const NOON = new Date('2026-03-11T12:30:00Z');
const EVENING = new Date('2026-03-11T18:00:00Z');
const RUNNING: PauseCheck = { go: true };
const PAUSED: PauseCheck = { go: false, reason: 'paused', detail: 'disruptive actions paused by alice: change freeze', pause: { reason: 'change freeze', scope: 'disruptive', pausedBy: 'alice', pausedAt: '2026-03-11T00:00:00.000Z', until: null, source: 'api' } };
const policy = (mode: 'automatic' | 'manual') => ({ default: mode, byKind: {} });

describe('gateDisruption', () => {
  it.each([
    ['automatic, inside the window: drains now', 'automatic', NIGHT, ['web1', 'web2'], undefined, 'execute', ['web1', 'web2'], []],
    ['automatic, a pool outside its own window waits while the others drain', 'automatic', NIGHT, ['web1', 'batch1'], undefined, 'execute', ['web1'], ['batch1']],
    ['automatic, at noon only the batch pool is open', 'automatic', NOON, ['web1', 'batch1'], undefined, 'execute', ['batch1'], ['web1']],
    ['automatic, outside every window nothing starts', 'automatic', EVENING, ['web1', 'batch1'], undefined, 'wait_for_window', [], ['web1', 'batch1']],
    ['manual: the plan becomes an approval request, whatever the hour', 'manual', EVENING, ['web1'], undefined, 'request_approval', [], []],
    ['manual with a request still open: no second request', 'manual', NIGHT, ['web1'], { id: 'optimize-x', status: 'pending' }, 'approval_open', [], []],
    ['paused, automatic: nothing drains', 'automatic', NIGHT, ['web1'], undefined, 'paused', [], [], PAUSED],
    ['paused, manual: nothing is asked for either (the pause comes first)', 'manual', NIGHT, ['web1'], undefined, 'paused', [], [], PAUSED],
  ] as const)('%s', (_, mode, now, nodes, openApproval, action, drained, held, pause: PauseCheck = RUNNING) => {
    const gate = gateDisruption({ policy: policy(mode), removals: nodes.map(aRemoval), poolOf, windows: W, now, pause, ...(openApproval ? { openApproval } : {}) });
    expect(gate.action).toBe(action);
    expect(gate.action === 'execute' ? gate.removals.map((r) => r.node) : []).toEqual(drained);
    expect('heldBack' in gate ? gate.heldBack.map((h) => h.node) : []).toEqual(held);
  });

  it('says when the window opens for what it holds back', () => {
    const gate = gateDisruption({ policy: policy('automatic'), removals: [aRemoval('web1')], poolOf, windows: W, now: EVENING, pause: RUNNING });
    expect(gate).toMatchObject({ action: 'wait_for_window', opensAt: new Date('2026-03-12T02:00:00Z') });
    expect(gate.action === 'wait_for_window' && gate.heldBack[0]!.detail).toMatch(/web1 \(NodePool web\) is outside its maintenance window "0 2 \* \* \* 3h UTC"; it opens at 2026-03-12T02:00:00.000Z/);
  });

  it('without windows everything is inside', () => {
    expect(admitNodes([aRemoval('web1'), aRemoval('batch1')], poolOf, { pause: RUNNING, policy: policy('automatic'), windows: [], now: EVENING }).outside).toEqual([]);
  });
});
