import { describe, expect, it } from '@jest/globals';
import { UncordonReason, type UncordonVerdict } from '@nodes-manager/contracts';
import { admit, type PauseCheck } from '@nodes-manager/disruption';
import { holdForPause } from './hold-for-pause.js';

const verdict = (decision: UncordonVerdict['decision']): UncordonVerdict => ({ node: 'n-1', decision, reason: decision === 'uncordon' ? UncordonReason.UNCORDON : UncordonReason.WAITING_GRACE_PERIOD, evidence: {} }) as unknown as UncordonVerdict;
const pausedAll: PauseCheck = { go: false, reason: 'paused', detail: 'paused by alice (auto-uncordon included)', pause: { reason: 'r', scope: 'all', pausedBy: 'alice', pausedAt: '2026-12-01T00:00:00Z', until: null, source: 'api' } };

describe('holdForPause — auto-uncordon through a pause', () => {
  it.each<[string, UncordonVerdict, PauseCheck, string, string]>([
    ['a pause of scope all holds an uncordon: wait, PAUSED', verdict('uncordon'), pausedAll, 'wait', UncordonReason.PAUSED],
    ['running, an uncordon goes on', verdict('uncordon'), { go: true }, 'uncordon', UncordonReason.UNCORDON],
    ['the pause unknown does not hold what gives capacity back', verdict('uncordon'), { go: false, reason: 'pause_unknown', detail: 'unknown' }, 'uncordon', UncordonReason.UNCORDON],
    ['a waiting verdict stays as it is', verdict('wait'), pausedAll, 'wait', UncordonReason.WAITING_GRACE_PERIOD],
  ])('%s', (_t, v, pause, decision, reason) => {
    const admission = admit('uncordon', { pause, policy: { default: 'manual', byKind: {} }, windows: [], nodePool: undefined, now: new Date('2026-12-01T12:00:00Z') });
    expect(holdForPause(v, admission, 30_000)).toMatchObject({ decision, reason });
  });
});
