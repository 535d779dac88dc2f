import { describe, expect, it } from '@jest/globals';
import { DisruptiveActions, type ActivePause, type DisruptiveAction } from '@nodes-manager/contracts';
import { admit, type Admission, type ApprovalInPlay } from './admit.js';
import { parseApprovalPolicy, type ApprovalMode, type ApprovalPolicy } from './approval-mode.js';
import { checkPause, type PauseReading } from './pause.js';
import { parseWindows } from './windows.js';

const NOW = new Date('2026-12-01T12:00:00Z');
/** At noon UTC `open-pool` is inside its window (10:00–14:00), `shut-pool` outside its own (02:00–05:00). */
const windows = (() => {
  const w = parseWindows('0 10 * * * 4h UTC nodePool=open-pool; 0 2 * * * 3h UTC nodePool=shut-pool');
  if (!w.ok) throw new Error(w.problems.join('; '));
  return w.windows;
})();
const policy = (mode: ApprovalMode): ApprovalPolicy => {
  const p = parseApprovalPolicy(mode);
  if (!p.ok) throw new Error(p.problems.join('; '));
  return p.policy;
};
const aPause = (scope: ActivePause['scope']): ActivePause => ({ reason: 'change freeze', scope, pausedBy: 'alice', pausedAt: '2026-12-01T11:00:00.000Z', until: null, source: 'api' });
const PAUSES: Record<string, PauseReading> = {
  running: { known: true, pause: null, readAt: NOW },
  paused: { known: true, pause: aPause('disruptive'), readAt: NOW },
  'paused-all': { known: true, pause: aPause('all'), readAt: NOW },
  unknown: { known: false, detail: 'uncordon not answering: TIMEOUT', since: NOW },
};

/** outcome — the admission in one word: `go`, or the reason it does not start. */
const outcome = (a: Admission): string => (a.admit ? 'go' : a.reason);

const decide = (action: DisruptiveAction, pause: string, window: 'open' | 'shut', mode: ApprovalMode, approval?: ApprovalInPlay): Admission =>
  admit(action, {
    pause: checkPause(PAUSES[pause]!, action, NOW, 90_000),
    policy: policy(mode),
    windows,
    nodePool: `${window}-pool`,
    now: NOW,
    ...(approval ? { approval } : {}),
  });

// Every action × approval mode (rows) × pause × window (columns), for an action about to start with no approval in
// play. Read a row as: "an automatic optimize, with nothing paused, inside its window: go; outside: outside_window; …".
const MATRIX = `
action          mode       running/open      running/shut      paused/open  paused/shut  paused-all/open  paused-all/shut  unknown/open   unknown/shut
optimize        automatic  go                outside_window    paused       paused       paused           paused           pause_unknown  pause_unknown
optimize        manual     request_approval  request_approval  paused       paused       paused           paused           pause_unknown  pause_unknown
consolidate     automatic  go                outside_window    paused       paused       paused           paused           pause_unknown  pause_unknown
consolidate     manual     request_approval  request_approval  paused       paused       paused           paused           pause_unknown  pause_unknown
steer           automatic  go                outside_window    paused       paused       paused           paused           pause_unknown  pause_unknown
steer           manual     request_approval  request_approval  paused       paused       paused           paused           pause_unknown  pause_unknown
fence           automatic  go                go                paused       paused       paused           paused           pause_unknown  pause_unknown
fence           manual     request_approval  request_approval  paused       paused       paused           paused           pause_unknown  pause_unknown
drain           automatic  go                go                paused       paused       paused           paused           pause_unknown  pause_unknown
drain           manual     go                go                paused       paused       paused           paused           pause_unknown  pause_unknown
pressure_relief automatic  go                go                paused       paused       paused           paused           pause_unknown  pause_unknown
pressure_relief manual     go                go                paused       paused       paused           paused           pause_unknown  pause_unknown
uncordon        automatic  go                go                go           go           paused           paused           go             go
uncordon        manual     go                go                go           go           paused           paused           go             go
`;

const [header, ...lines] = MATRIX.trim().split('\n').map((l) => l.trim().split(/\s+/));
const columns = header!.slice(2).map((c) => c.split('/') as [string, 'open' | 'shut']);
const rows = lines.flatMap(([action, mode, ...cells]) => cells.map((expected, i) => [action as DisruptiveAction, mode as ApprovalMode, columns[i]![0], columns[i]![1], expected!] as const));

describe('admit', () => {
  it('covers every action in both approval modes', () => {
    expect(new Set(lines.map(([a]) => a))).toEqual(new Set(DisruptiveActions));
    expect(rows).toHaveLength(DisruptiveActions.length * 2 * 8);
  });

  it.each(rows)('%s, %s approval, pause %s, window %s: %s', (action, mode, pause, window, expected) => {
    expect(outcome(decide(action, pause, window, mode))).toBe(expected);
  });

  it.each<[string, DisruptiveAction, string, 'open' | 'shut', ApprovalMode, ApprovalInPlay, string]>([
    ['a manual steer waits for the request in play, whatever the window', 'steer', 'running', 'shut', 'manual', { kind: 'open', id: 'steer-1', status: 'pending' }, 'approval_open'],
    ['an approved steer being carried out waits for its window', 'steer', 'running', 'shut', 'manual', { kind: 'approved', id: 'steer-1' }, 'outside_window'],
    ['an approved steer being carried out inside its window goes', 'steer', 'running', 'open', 'manual', { kind: 'approved', id: 'steer-1' }, 'go'],
    ['an approved consolidation waits, unclaimed, while paused', 'consolidate', 'paused', 'open', 'manual', { kind: 'approved', id: 'consolidate-1' }, 'paused'],
    ['an approved optimizer drain waits while the pause is unknown', 'optimize', 'unknown', 'open', 'manual', { kind: 'approved', id: 'optimize-1' }, 'pause_unknown'],
    ['an approved fence waits for its window (an automatic one does not)', 'fence', 'running', 'shut', 'manual', { kind: 'approved', id: 'fence-1' }, 'outside_window'],
    ['a fence an operator rejected is not asked for again', 'fence', 'running', 'open', 'manual', { kind: 'rejected', id: 'fence-1' }, 'approval_rejected'],
    ['an automatic action does not wait for a request in play', 'optimize', 'running', 'open', 'automatic', { kind: 'open', id: 'optimize-1', status: 'pending' }, 'go'],
  ])('%s', (_, action, pause, window, mode, approval, expected) => {
    expect(outcome(decide(action, pause, window, mode, approval))).toBe(expected);
  });

  it.each<[string, DisruptiveAction, string, 'open' | 'shut', ApprovalMode, string]>([
    ["a running consolidation's next NodeClaim goes on after its window closed", 'consolidate', 'running', 'shut', 'manual', 'go'],
    ["a running consolidation's next NodeClaim is held by a pause since its start", 'consolidate', 'paused', 'open', 'automatic', 'paused'],
    ["a recorded fence's EC2 call is held while the pause is unknown", 'fence', 'unknown', 'shut', 'manual', 'pause_unknown'],
    ["a recorded fence's EC2 call goes outside the window", 'fence', 'running', 'shut', 'manual', 'go'],
  ])('%s', (_, action, pause, window, mode, expected) => {
    const a = admit(action, { pause: checkPause(PAUSES[pause]!, action, NOW, 90_000), policy: policy(mode), windows, nodePool: `${window}-pool`, now: NOW, running: true });
    expect(outcome(a)).toBe(expected);
  });

  it('says why, in words: the pause, the request, the window and when it opens', () => {
    expect(decide('steer', 'paused', 'open', 'automatic')).toMatchObject({ reason: 'paused', detail: expect.stringContaining('change freeze') });
    expect(decide('optimize', 'running', 'open', 'manual', { kind: 'open', id: 'optimize-1', status: 'approved' })).toEqual({ admit: false, reason: 'approval_open', detail: 'approval optimize-1 is approved', approvalId: 'optimize-1', status: 'approved' });
    expect(decide('consolidate', 'running', 'shut', 'automatic')).toEqual({
      admit: false,
      reason: 'outside_window',
      detail: 'NodePool shut-pool is outside its maintenance window "0 2 * * * 3h UTC nodePool=shut-pool"; it opens at 2026-12-02T02:00:00.000Z',
      opensAt: new Date('2026-12-02T02:00:00Z'),
      window: '0 2 * * * 3h UTC nodePool=shut-pool',
    });
    expect(decide('optimize', 'running', 'open', 'automatic')).toMatchObject({ admit: true, window: { open: true, reason: 'inside_window' } });
  });
});
