import { describe, expect, it } from '@jest/globals';
import type { ActivePause, DisruptiveAction } from '@nodes-manager/contracts';
import { checkPause, describePause, pauseInForce, type PauseReading } from './pause.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const MAX_AGE = 90_000;
/** aPause — a pause by alice at 11:00 until resumed, scope `disruptive`; overrides make it what the row needs. */
const aPause = (o: Partial<ActivePause> = {}): ActivePause => ({
  reason: 'bad CNI rollout',
  scope: 'disruptive',
  pausedBy: 'alice',
  pausedAt: '2026-12-01T11:00:00.000Z',
  until: null,
  source: 'api',
  ...o,
});
const read = (pause: ActivePause | null, secondsAgo = 10): PauseReading => ({ known: true, pause, readAt: new Date(NOW.getTime() - secondsAgo * 1000) });
const unknown: PauseReading = { known: false, detail: 'uncordon not answering: TIMEOUT', since: NOW };

describe('checkPause', () => {
  it.each<[string, PauseReading, DisruptiveAction, boolean, string?]>([
    ['no pause: an optimizer drain starts', read(null), 'optimize', true],
    ['a pause holds a fence', read(aPause()), 'fence', false, 'paused'],
    ['a pause holds an optimizer drain', read(aPause()), 'optimize', false, 'paused'],
    ['a pause holds a steering change', read(aPause()), 'steer', false, 'paused'],
    ['a pause holds pressure relief', read(aPause()), 'pressure_relief', false, 'paused'],
    ['a pause of scope disruptive lets auto-uncordon run (it is restorative)', read(aPause()), 'uncordon', true],
    ['a pause of scope all holds auto-uncordon too', read(aPause({ scope: 'all' })), 'uncordon', false, 'paused'],
    ['a pause whose until has passed holds nothing', read(aPause({ until: '2026-12-01T11:59:59.000Z' })), 'fence', true],
    ['a pause whose until is exactly now holds nothing', read(aPause({ until: '2026-12-01T12:00:00.000Z' })), 'fence', true],
    ['a pause until a second from now still holds', read(aPause({ until: '2026-12-01T12:00:01.000Z' })), 'fence', false, 'paused'],
    ['an unknown state holds a drain', unknown, 'drain', false, 'pause_unknown'],
    ['an unknown state holds auto-uncordon too (it cannot tell whether scope is all)', unknown, 'uncordon', false, 'pause_unknown'],
    ['a reading older than the maximum age is unknown', read(null, 91), 'optimize', false, 'pause_unknown'],
    ['a reading exactly at the maximum age still counts', read(null, 90), 'optimize', true],
  ])('%s', (_, reading, action, go, reason = undefined) => {
    const c = checkPause(reading, action, NOW, MAX_AGE);
    expect(c.go).toBe(go);
    if (!c.go) expect(c.reason).toBe(reason);
  });

  it('says who paused, why and until when, in words', () => {
    const c = checkPause(read(aPause({ until: '2026-12-01T13:00:00.000Z' })), 'fence', NOW, MAX_AGE);
    expect(c).toMatchObject({ go: false, reason: 'paused', detail: 'disruptive actions paused by alice at 2026-12-01T11:00:00.000Z until 2026-12-01T13:00:00.000Z: bad CNI rollout' });
    expect(describePause(aPause({ source: 'configuration', pausedBy: 'config:DISRUPTION_PAUSE', scope: 'all' }))).toBe(
      'disruptive actions paused by configuration (DISRUPTION_PAUSE) at 2026-12-01T11:00:00.000Z until resumed (auto-uncordon included): bad CNI rollout',
    );
  });

  it('pauseInForce drops a pause past its until and keeps one without', () => {
    expect(pauseInForce(aPause({ until: '2026-12-01T11:00:00.000Z' }), NOW)).toBeNull();
    expect(pauseInForce(aPause(), NOW)).toEqual(aPause());
    expect(pauseInForce(null, NOW)).toBeNull();
  });
});
