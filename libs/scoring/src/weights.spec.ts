import { describe, expect, it } from '@jest/globals';
import { classWeights, DEFAULT_WEIGHTS, DIMENSIONS, validateWeights } from './weights.js';

describe('validateWeights', () => {
  it('accepts the defaults', () => {
    expect(validateWeights(DEFAULT_WEIGHTS)).toEqual({ ok: true });
  });
  it.each([
    ['a negative weight names its field', { ...DEFAULT_WEIGHTS, zoneSpread: -0.05, resourceFit: 0.65 }, 'zoneSpread'],
    ['a missing weight names its field', { ...DEFAULT_WEIGHTS, dataLocality: undefined }, 'dataLocality'],
    ['a non-number names its field', { ...DEFAULT_WEIGHTS, costEfficiency: Number.NaN }, 'costEfficiency'],
    ['weights summing to 1.01 are refused as a sum', { ...DEFAULT_WEIGHTS, resourceFit: 0.36 }, 'sum'],
    ['weights summing to 0.99 are refused as a sum', { ...DEFAULT_WEIGHTS, resourceFit: 0.34 }, 'sum'],
  ])('%s', (_, weights, field) => {
    const result = validateWeights(weights);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.field).toBe(field);
  });
  it('tolerates rounding within 1e-6', () => {
    expect(validateWeights({ ...DEFAULT_WEIGHTS, resourceFit: 0.35 + 5e-7 }).ok).toBe(true);
  });
});

describe('classWeights', () => {
  it.each([
    ['stateful doubles risk before renormalising', 'stateful', 'interruptionRisk', 0.3 / 1.15],
    ['latency_sensitive doubles risk before renormalising', 'latency_sensitive', 'interruptionRisk', 0.3 / 1.15],
    ['batch doubles cost before renormalising', 'batch', 'costEfficiency', 0.4 / 1.2],
    ['stateless keeps the defaults', 'stateless', 'interruptionRisk', 0.15],
    ['gpu keeps the defaults', 'gpu', 'costEfficiency', 0.2],
  ] as const)('%s', (_, cls, dimension, expected) => {
    const w = classWeights(DEFAULT_WEIGHTS, cls);
    expect(w[dimension]).toBeCloseTo(expected, 12);
    expect(DIMENSIONS.reduce((s, d) => s + w[d], 0)).toBeCloseTo(1, 12);
  });
});
