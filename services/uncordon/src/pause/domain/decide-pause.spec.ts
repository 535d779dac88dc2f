import { describe, expect, it } from '@jest/globals';
import type { ActivePause } from '@nodes-manager/contracts';
import { decideConfigured, decideExpiry, decidePause, decideResume, validatePauseRequest } from './decide-pause.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const inMin = (m: number) => new Date(NOW.getTime() + m * 60_000).toISOString();
const aPause = (o: Partial<ActivePause> = {}): ActivePause => ({ reason: 'bad rollout', scope: 'disruptive', pausedBy: 'alice', pausedAt: inMin(-10), until: null, source: 'api', ...o });

describe('validatePauseRequest — 400 naming the field', () => {
  it.each<[string, Parameters<typeof validatePauseRequest>[0], string[]]>([
    ['a reason and an until an hour ahead are fine', { reason: 'bad rollout', until: inMin(60) }, []],
    ['a blank reason names reason', { reason: '   ' }, ['reason']],
    ['a reason of 501 characters names reason', { reason: 'x'.repeat(501) }, ['reason']],
    ['an until in the past names until', { reason: 'r', until: inMin(-1) }, ['until']],
    ['an until now names until', { reason: 'r', until: NOW.toISOString() }, ['until']],
    ['an until 31 days ahead names until', { reason: 'r', until: inMin(31 * 24 * 60) }, ['until']],
    ['an until that is no time names until', { reason: 'r', until: 'tomorrow' }, ['until']],
    ['an unknown scope names scope', { reason: 'r', scope: 'some' as never }, ['scope']],
  ])('%s', (_t, req, fields) => {
    expect(validatePauseRequest(req, NOW).map((p) => p.field)).toEqual(fields);
  });
});

describe('the changes recorded', () => {
  it('a pause is recorded as the caller, scope disruptive unless said, replacing one in force', () => {
    expect(decidePause({ reason: ' bad rollout ', until: inMin(60) }, 'bob')).toEqual({ action: 'pause', reason: 'bad rollout', scope: 'disruptive', until: new Date(inMin(60)), actor: 'bob', source: 'api' });
  });

  it.each<[string, ActivePause | null, object | null]>([
    ['resuming a pause in force records the operator', aPause(), { action: 'resume', why: 'operator', actor: 'bob', source: 'api' }],
    ['resuming while running records nothing (safe to retry)', null, null],
    ['resuming a pause whose until passed unrecorded records its expiry', aPause({ until: inMin(-1) }), { action: 'resume', why: 'expired', actor: 'system:uncordon', source: 'expiry' }],
  ])('%s', (_t, latest, write) => {
    expect(decideResume(latest, 'bob', NOW)).toEqual(write);
  });

  it.each<[string, ActivePause | null, boolean]>([
    ['a pause whose until passed ends, recorded by the system', aPause({ until: inMin(-1) }), true],
    ['a pause whose until is exactly now ends', aPause({ until: NOW.toISOString() }), true],
    ['a pause whose until is ahead goes on', aPause({ until: inMin(1) }), false],
    ['a pause without until goes on', aPause(), false],
    ['nothing paused, nothing ends', null, false],
  ])('%s', (_t, latest, ends) => {
    expect(decideExpiry(latest, NOW) !== null).toBe(ends);
  });

  it.each<[string, boolean | null, boolean, string | null]>([
    ['first start with DISRUPTION_PAUSE=true pauses as the configuration', null, true, 'pause'],
    ['first start with false records nothing', null, false, null],
    ['a restart with true again does not pause again (an operator resume stays)', true, true, null],
    ['true changed to false resumes', true, false, 'resume'],
    ['false changed to true pauses', false, true, 'pause'],
  ])('%s', (_t, last, configured, action) => {
    const w = decideConfigured(last, configured, 'change freeze');
    expect(w?.action ?? null).toBe(action);
    if (w) expect(w).toMatchObject({ actor: 'config:DISRUPTION_PAUSE', source: 'configuration' });
  });
});
