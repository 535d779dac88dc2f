import { describe, expect, it } from '@jest/globals';
import { parseDuration } from './kube-syntax.js';

const H = 3_600_000;

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000], ['5m', 300_000], ['1h30m', 5_400_000], ['720h', 720 * H], ['1h30m0s', 5_400_000],
    ['1d', undefined], ['5 m', undefined], ['30m1h', undefined], ['', undefined], ['m', undefined], ['1h1h', undefined],
  ])('%s → %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});
