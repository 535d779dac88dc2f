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
    else expect(load().SCORING_WEIGHTS).toBe(weights);
  });

  it('reports bad weights together with the other bad variables', () => {
    expect(() => loadSchedulerScoringConfig({ ...base, SCORING_WEIGHTS: '{}', OPTIMIZE_MODE: 'yolo' })).toThrow(/2 configuration problems/);
  });
});
