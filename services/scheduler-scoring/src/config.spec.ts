import { describe, expect, it } from '@jest/globals';
import { loadSchedulerScoringConfig } from './config.js';

const base = { DATABASE_URL: 'postgres://db/x', AUTH_JWT_ACCESS_SECRET: 'a-secret-of-at-least-32-characters!', SCAN_INTERVAL_SECONDS: '60' };

describe('scheduler-scoring configuration', () => {
  it.each([
    ['weights that sum to 1 are accepted', '{"resourceFit":0.35,"zoneSpread":0.25,"costEfficiency":0.2,"interruptionRisk":0.15,"dataLocality":0.05}', undefined],
    ['weights that do not sum to 1 are refused', '{"resourceFit":0.5,"zoneSpread":0.25,"costEfficiency":0.2,"interruptionRisk":0.15,"dataLocality":0.05}', /SCORING_WEIGHTS: .*sum/],
    ['a negative weight is refused', '{"resourceFit":1.1,"zoneSpread":-0.1,"costEfficiency":0,"interruptionRisk":0,"dataLocality":0}', /SCORING_WEIGHTS:/],
    ['weights that are not JSON are refused', '0.35,0.25,0.2,0.15,0.05', /SCORING_WEIGHTS: must be JSON/],
  ])('%s', (_, weights, error) => {
    const load = () => loadSchedulerScoringConfig({ ...base, SCORING_WEIGHTS: weights });
    if (error) expect(load).toThrow(error);
    else expect(load().SCORING_WEIGHTS).toEqual(JSON.parse(weights));
  });

  it('reports bad weights together with the other bad variables', () => {
    expect(() => loadSchedulerScoringConfig({ ...base, SCORING_WEIGHTS: '{}', OPTIMIZE_MODE: 'yolo' })).toThrow(/2 configuration problems/);
  });

  it.each([
    ['a window in a zone that does not exist', { DISRUPTION_WINDOWS: '0 2 * * 1-5 3h Europe/Atlantis' }, /DISRUPTION_WINDOWS: window 1 .*"Europe\/Atlantis" is not an IANA time zone/],
    ['a window without a duration', { DISRUPTION_WINDOWS: '0 2 * * 1-5 Europe/Berlin' }, /DISRUPTION_WINDOWS: window 1/],
    ['an approval mode that does not exist', { DISRUPTION_APPROVAL: 'sometimes' }, /DISRUPTION_APPROVAL: "sometimes" is neither automatic nor manual/],
    ['an approval TTL of zero', { APPROVAL_TTL_MINUTES: '0' }, /APPROVAL_TTL_MINUTES: must be at least 1/],
  ])('refuses to start with %s, naming the variable', (_, vars, error) => {
    expect(() => loadSchedulerScoringConfig({ ...base, ...vars })).toThrow(error);
  });

  it('reads the approval gate: manual optimizer drains inside weekday nights in Berlin', () => {
    const c = loadSchedulerScoringConfig({ ...base, DISRUPTION_APPROVAL: 'automatic,optimize=manual', DISRUPTION_WINDOWS: '0 2 * * 1-5 3h Europe/Berlin', APPROVAL_TTL_MINUTES: '30' });
    expect(c.DISRUPTION_APPROVAL).toEqual({ default: 'automatic', byKind: { optimize: 'manual' } });
    expect(c.DISRUPTION_WINDOWS.map((w) => [w.text, w.timeZone, w.durationMs])).toEqual([['0 2 * * 1-5 3h Europe/Berlin', 'Europe/Berlin', 3 * 3_600_000]]);
    expect(c.APPROVAL_TTL_MINUTES).toBe(30);
  });

  it('defaults to today\'s behaviour: automatic, no windows', () => {
    const c = loadSchedulerScoringConfig(base);
    expect([c.DISRUPTION_APPROVAL, c.DISRUPTION_WINDOWS, c.APPROVAL_DISTINCT_APPROVER]).toEqual([{ default: 'automatic', byKind: {} }, [], false]);
  });
});
