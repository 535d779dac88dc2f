import { describe, expect, it } from '@jest/globals';
import { parseBytes, parseCount, parseCpuMilli } from './quantity.js';

describe('parseCpuMilli', () => {
  it.each<[string, number]>([
    ['250m', 250],
    ['1', 1000],
    ['2', 2000],
    ['0.5', 500],
    ['0.1', 100],
    ['.25', 250],
    ['1.', 1000],
    ['1500m', 1500],
    ['1e3', 1_000_000],
    ['1E3', 1_000_000],
    ['1e-3', 1],
    ['100u', 1],
    ['1n', 1],
    ['0', 0],
    ['0m', 0],
    ['1.5k', 1_500_000],
    ['+2', 2000],
    ['-1', -1000],
    [' 3 ', 3000],
  ])('%s is %d millicores', (q, milli) => {
    expect(parseCpuMilli(q)).toBe(milli);
  });
});

describe('parseBytes', () => {
  it.each<[string, number]>([
    ['1Ki', 1024],
    ['1Mi', 1024 ** 2],
    ['1Gi', 1024 ** 3],
    ['1.5Gi', 1.5 * 1024 ** 3],
    ['15Ti', 15 * 1024 ** 4],
    ['1Pi', 1024 ** 5],
    ['1k', 1000],
    ['129M', 129_000_000],
    ['1G', 1e9],
    ['1T', 1e12],
    ['1e3', 1000],
    ['123Mi', 123 * 1024 ** 2],
    ['7873888Ki', 7_873_888 * 1024],
    ['0.5', 1],
    ['500m', 1],
    ['1E', 1e18],
  ])('%s is %d bytes', (q, bytes) => {
    expect(parseBytes(q)).toBe(bytes);
  });
});

describe('parseCount', () => {
  it.each<[string, number]>([
    ['110', 110],
    ['1', 1],
    ['1k', 1000],
  ])('%s is %d', (q, n) => {
    expect(parseCount(q)).toBe(n);
  });
});

describe('malformed quantities', () => {
  it.each(['', 'abc', '1.2.3', '1Gb', '1 Gi', 'Gi', '1ki', '--1', '1e', '1e999', 'm', '0x10'])('%j is undefined', (q) => {
    expect(parseCpuMilli(q)).toBeUndefined();
    expect(parseBytes(q)).toBeUndefined();
  });
});
