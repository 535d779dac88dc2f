import { describe, expect, it } from '@jest/globals';
import { figuresOf, quantile, summarise, wilsonInterval } from './rebalance-figures.js';
import { graceFor } from './learned-grace.js';
import { at } from '../../../test/cordoned-node.builder.js';
import { anEntry, LEDGER_CONFIG } from '../../../test/ledger.builder.js';

const interrupted = (leadMinutes: number, over = {}) => anEntry({ outcome: 'interrupted', leadTimeMs: leadMinutes * 60_000, resolvedAt: at(leadMinutes), ...over });
const survived = (over = {}) => anEntry({ outcome: 'survived', resolvedAt: at(24 * 60), ...over });

describe('wilsonInterval', () => {
  it.each([
    ['30 of 100 gives the textbook interval', 30, 100, [0.2189, 0.3958]],
    ['0 of 10 stays at 0 and is not a point', 0, 10, [0, 0.2775]],
    ['10 of 10 stays at 1', 10, 10, [0.7225, 1]],
  ])('%s', (_, k, n, [lo, hi]) => {
    const [a, b] = wilsonInterval(k, n)!;
    expect(a).toBeCloseTo(lo!, 3);
    expect(b).toBeCloseTo(hi!, 3);
  });
  it('no trials, no interval', () => expect(wilsonInterval(0, 0)).toBeNull());
});

describe('figuresOf', () => {
  it('the share counts interrupted over interrupted + survived; removed rows are censored, open rows counted apart', () => {
    const rows = [interrupted(20), interrupted(40), survived(), survived(), anEntry({ outcome: 'removed' }), anEntry({ outcome: 'observed' })];
    const f = figuresOf(rows, at(60), LEDGER_CONFIG.horizonMs);
    expect(f).toMatchObject({ rebalances: 6, open: 1, samples: 4, interrupted: 2, interruptedShare: 0.5, leadTimeMinutes: { samples: 2, median: 30, p90: 38 } });
    expect(f.outcomes).toMatchObject({ interrupted: 2, survived: 2, removed: 1, observed: 1 });
  });
  it('node-hours given back add resolved rows as stored and open uncordoned rows up to now', () => {
    const rows = [survived({ uncordonedAt: at(15), givenBackMs: 2 * 3600_000 }), anEntry({ outcome: 'uncordoned', uncordonedAt: at(30) })];
    expect(figuresOf(rows, at(90), LEDGER_CONFIG.horizonMs).nodeHoursGivenBack).toBe(3);
  });
  it('quantiles interpolate between ranks', () => {
    expect([quantile([1, 2, 3, 4], 0.5), quantile([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.9)]).toEqual([2.5, 91]);
  });
  it('summarise groups by pool (type × zone) and rolls up by type, zone, node pool and cluster', () => {
    const rows = [interrupted(10), survived({ zone: 'us-east-1b' }), survived({ instanceType: 'c5.xlarge', nodePool: 'batch' })];
    const s = summarise(rows, at(60), LEDGER_CONFIG.horizonMs);
    expect(s.cluster.samples).toBe(3);
    expect(s.byPool.map((p) => [p.instanceType, p.zone, p.samples, p.interrupted])).toEqual([
      ['c5.xlarge', 'us-east-1a', 1, 0],
      ['m5.large', 'us-east-1a', 1, 1],
      ['m5.large', 'us-east-1b', 1, 0],
    ]);
    expect(s.byInstanceType.map((p) => [p.instanceType, p.samples])).toEqual([['c5.xlarge', 1], ['m5.large', 2]]);
    expect(s.byZone.map((p) => [p.zone, p.samples])).toEqual([['us-east-1a', 2], ['us-east-1b', 1]]);
    expect(s.byNodePool.map((p) => [p.nodePool, p.samples])).toEqual([['batch', 1], ['default', 2]]);
  });
});

describe('graceFor — AUTO_UNCORDON_GRACE_MODE', () => {
  const pool = (leads: number[]) => figuresOf(leads.map((m) => interrupted(m)), at(0), LEDGER_CONFIG.horizonMs);
  it.each([
    ['fixed mode keeps the configured grace whatever the pool measured', graceFor('fixed', 15, pool([60, 90, 120]), 3), { minutes: 15, basis: 'fixed' }],
    ['learned mode with enough samples takes the p90 lead time', graceFor('learned', 15, pool([30, 40, 50, 60, 70, 80, 90, 100, 110, 120]), 10), { minutes: 111, basis: 'learned', samples: 10, p90LeadMinutes: 111 }],
    ['learned mode never shortens the configured grace: a p90 below it keeps the configured minutes', graceFor('learned', 15, pool([2, 3, 4, 5, 6]), 5), { minutes: 15, basis: 'configured-is-longer', p90LeadMinutes: 5.6 }],
    ['learned mode with too few lead times keeps the configured grace', graceFor('learned', 15, pool([60, 90]), 5), { minutes: 15, basis: 'too-few-samples', samples: 2 }],
    ['learned mode on a pool never measured keeps the configured grace', graceFor('learned', 15, undefined, 5), { minutes: 15, basis: 'too-few-samples', samples: 0 }],
  ])('%s', (_, choice, expected) => {
    expect(choice).toMatchObject(expected);
    expect(choice.minutes).toBeGreaterThanOrEqual(15);
  });
});
