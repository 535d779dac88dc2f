import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { compareQuantities, isQuantity, milliValue, parseQuantity, value } from './quantity.js';

describe('milliValue (MilliValue(): ceil(q × 1000))', () => {
  it.each([
    ['plain millicores', '250m', 250],
    ['whole cores', '2', 2000],
    ['a decimal fraction is exact, not floating point', '0.1', 100],
    ['a half core', '0.5', 500],
    ['a trailing dot', '3.', 3000],
    ['a leading dot', '.25', 250],
    ['a sub-millicore amount rounds up', '1e-4', 1],
    ['nanocores round up to one millicore', '1n', 1],
    ['microcores round up', '1500u', 2],
    ['an exponent', '1e3', 1_000_000],
    ['a capital exponent', '2E-3', 2],
    ['kilo cores', '1k', 1_000_000],
    ['an explicit plus sign', '+1', 1000],
    ['zero', '0', 0],
    ['surrounding blanks are ignored', ' 100m ', 100],
    ['a number is read as written', 1.5, 1500],
  ])('%s: %s → %s', (_, q, expected) => {
    expect(milliValue(q)).toBe(expected);
  });
});

describe('value (Value(): rounded up, away from zero)', () => {
  it.each([
    ['binary suffix Ki', '1Ki', 1024],
    ['binary suffix Mi', '128Mi', 134_217_728],
    ['binary suffix Gi', '1Gi', 1_073_741_824],
    ['binary suffix Ti', '1Ti', 2 ** 40],
    ['binary suffix Pi', '1Pi', 2 ** 50],
    ['binary suffix Ei (exact as a BigInt, then a number)', '1Ei', 2 ** 60],
    ['a fractional binary amount', '1.5Gi', 1_610_612_736],
    ['decimal suffix k', '2k', 2000],
    ['decimal suffix M', '129M', 129_000_000],
    ['decimal suffix G', '1G', 1e9],
    ['decimal suffix T', '1T', 1e12],
    ['decimal suffix P', '1P', 1e15],
    ['decimal suffix E', '1E', 1e18],
    ['an exponent', '1e3', 1000],
    ['a fraction rounds up', '0.5', 1],
    ['millibytes round up', '1500m', 2],
    ['a negative fraction rounds away from zero', '-0.5', -1],
    ['a kubelet-style memory amount', '16073848Ki', 16_459_620_352],
  ])('%s: %s → %s', (_, q, expected) => {
    expect(value(q)).toBe(expected);
  });
});

describe('what is not a quantity', () => {
  it.each([
    ['empty', ''],
    ['words', 'lots'],
    ['a lower-case binary suffix', '1ki'],
    ['a binary suffix with an exponent', '1e3Ki'],
    ['two suffixes', '1kM'],
    ['a bare suffix', 'Gi'],
    ['a sign only', '-'],
    ['an absurd exponent', '1e999'],
    ['a comma', '1,5'],
  ])('%s (%j) is undefined', (_, q) => {
    expect(parseQuantity(q)).toBeUndefined();
    expect(milliValue(q)).toBeUndefined();
    expect(isQuantity(q)).toBe(false);
  });
  it('absent input and non-finite numbers are undefined', () => {
    expect(value(undefined)).toBeUndefined();
    expect(value(null)).toBeUndefined();
    expect(value(Number.NaN)).toBeUndefined();
    expect(value(Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('quantity properties', () => {
  it('n millicores written as `<n>m` read back as n', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10 ** 12 }), (n) => milliValue(`${n}m`) === n));
  });
  it('n Mi is n × 2^20 bytes exactly', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 32 }), (n) => value(`${n}Mi`) === n * 2 ** 20));
  });
  it('the same amount in different notations compares equal', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), (n) => {
        const a = parseQuantity(`${n}k`)!;
        const b = parseQuantity(`${n}e3`)!;
        const c = parseQuantity(`${n}000`)!;
        return compareQuantities(a, b) === 0 && compareQuantities(b, c) === 0;
      }),
    );
  });
  it('milliValue is the ceiling of the exact decimal amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 6 }), fc.integer({ min: 0, max: 9999 }), (whole, frac) => {
        const text = `${whole}.${String(frac).padStart(4, '0')}`;
        // whole.ffff cores = whole×1000 + ffff/10 millicores, rounded up.
        return milliValue(text) === whole * 1000 + Math.ceil(frac / 10);
      }),
    );
  });
  it('reads a text the same the first time, the second time and after thousands of others', () => {
    const first = [milliValue('250m'), value('1Gi'), milliValue('bad'), value('bad')];
    for (let i = 0; i < 10_000; i++) expect(milliValue(`${i}m`)).toBe(i);
    expect([milliValue('250m'), value('1Gi'), milliValue('bad'), value('bad')]).toEqual(first);
    expect(first).toEqual([250, 2 ** 30, undefined, undefined]);
    expect([milliValue(' 2 '), milliValue(2), value(0.5)]).toEqual([2000, 2000, 1]);
  });
  it('1Ki is more than 1k and 1Gi more than 1G', () => {
    expect(compareQuantities(parseQuantity('1Ki')!, parseQuantity('1k')!)).toBe(1);
    expect(compareQuantities(parseQuantity('1G')!, parseQuantity('1Gi')!)).toBe(-1);
    expect(compareQuantities(parseQuantity('-1')!, parseQuantity('0')!)).toBe(-1);
  });
});
