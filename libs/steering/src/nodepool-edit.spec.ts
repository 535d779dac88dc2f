import { describe, expect, it } from '@jest/globals';
import { cheapestPrices, planNodePoolEdit, raisesPrices, type NodePoolEditInput, type PoolHealthView, type SteeringRails, type SteeringRecord } from './nodepool-edit.js';
import { admitted, CAPACITY_TYPE_KEY, INSTANCE_TYPE_KEY, ZONE_KEY, type Offering, type Requirement } from './requirements.js';

const TYPES = ['c5.large', 'm5.large', 'r5.large'];
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const OFFERINGS: Offering[] = TYPES.flatMap((t) =>
  ZONES.flatMap((z) => (['spot', 'on-demand'] as const).map((c) => ({ instanceType: t, zone: z, capacityType: c, labels: { 'karpenter.k8s.aws/instance-family': t.split('.')[0]! } }))),
);
const NOW = new Date('2026-06-10T12:00:00Z');

const req = (key: string, operator: string, ...values: string[]): Requirement => ({ key, operator, ...(values.length ? { values } : {}) });
const SPOT_AND_OD = req(CAPACITY_TYPE_KEY, 'In', 'spot', 'on-demand');
const SPOT_ONLY = req(CAPACITY_TYPE_KEY, 'In', 'spot');
const ALL_TYPES = req(INSTANCE_TYPE_KEY, 'In', ...TYPES);

/** avoid — a health map with the given `type/zone` pools in avoid. */
const avoid = (...pools: string[]): Map<string, PoolHealthView> => new Map(pools.map((p) => [p, { state: 'avoid' as const, share: 0.8 }]));

function plan(o: Partial<Omit<NodePoolEditInput, 'rails'>> & { requirements?: Requirement[]; rails?: Partial<SteeringRails> }) {
  return planNodePoolEdit({
    nodePool: 'general',
    requirements: o.requirements ?? [SPOT_AND_OD, ALL_TYPES],
    record: o.record ?? null,
    offerings: o.offerings ?? OFFERINGS,
    health: o.health ?? new Map(),
    rails: { maxExcludedShare: 0.5, keepCheapest: 3, ...o.rails },
    now: o.now ?? NOW,
  });
}

/** recordOf — what steering would have recorded after writing a plan. */
const recordOf = (p: ReturnType<typeof plan>, fallbackSince: Date | null = p.fallbackSince): SteeringRecord => ({ original: p.original, added: p.added, applied: p.after, fallbackSince });
const offered = (requirements: Requirement[]) => admitted(requirements, OFFERINGS).map((o) => `${o.instanceType}/${o.zone}/${o.capacityType}`);

describe('planNodePoolEdit', () => {
  it('nothing avoided: nothing to write', () => {
    const p = plan({});
    expect(p.write).toBe(false);
    expect(p.changes).toEqual([]);
    expect(p.sentence).toContain('Nothing to change');
  });

  it.each([
    ['one pool avoided: its type goes (loses 2 Spot + 3 on-demand), not its zone (would lose 8)', ['m5.large/us-east-1a'], 'instance-type', 'm5.large', 5],
    ['the type avoided in every zone: the type goes, losing only its on-demand', ['m5.large/us-east-1a', 'm5.large/us-east-1b', 'm5.large/us-east-1c'], 'instance-type', 'm5.large', 3],
    ['every type avoided in one zone: the zone goes', ['c5.large/us-east-1b', 'm5.large/us-east-1b', 'r5.large/us-east-1b'], 'zone', 'us-east-1b', 3],
  ] as const)('narrow: %s', (_, pools, kind, value, loses) => {
    const p = plan({ health: avoid(...pools) });
    expect(p.write).toBe(true);
    expect(p.changes).toEqual(['narrow']);
    expect(p.exclusions).toHaveLength(1);
    expect(p.exclusions[0]).toMatchObject({ kind, value, loses });
    expect(p.after).toEqual([SPOT_AND_OD, ALL_TYPES, req(kind === 'zone' ? ZONE_KEY : INSTANCE_TYPE_KEY, 'NotIn', value)]);
    for (const pool of pools) expect(offered(p.after)).not.toContain(`${pool}/spot`);
    expect(p.exclusions[0]!.sentence).toMatch(/^Exclude (instance type|zone) \S+: it keeps out .+ \(80% of its rebalances interrupted\)/);
  });

  it("the owner's entries are left as they are: steering adds its own", () => {
    const p = plan({ health: avoid('m5.large/us-east-1a') });
    expect(p.original).toEqual([SPOT_AND_OD, ALL_TYPES]);
    expect(p.added).toEqual([req(INSTANCE_TYPE_KEY, 'NotIn', 'm5.large')]);
  });

  it('healthy pools of the NodePool keep their offerings; other NodePools are not concerned', () => {
    const p = plan({ requirements: [SPOT_ONLY, req(INSTANCE_TYPE_KEY, 'In', 'c5.large')], health: avoid('m5.large/us-east-1a') });
    expect(p.write).toBe(false);
    expect(p.sentence).toContain('No pool of general is avoided');
  });

  it('restore: the pool recovered and every entry steering added goes — the requirements are the original exactly', () => {
    const narrowed = plan({ health: avoid('m5.large/us-east-1a') });
    const p = plan({ requirements: narrowed.after, record: recordOf(narrowed), health: new Map() });
    expect(p.write).toBe(true);
    expect(p.changes).toEqual(['restore']);
    expect(p.after).toEqual(narrowed.original);
    expect(p.added).toEqual([]);
  });

  it('an applied plan is stable: the next pass writes nothing', () => {
    const narrowed = plan({ health: avoid('m5.large/us-east-1a') });
    const p = plan({ requirements: narrowed.after, record: recordOf(narrowed), health: avoid('m5.large/us-east-1a') });
    expect(p.write).toBe(false);
    expect(p.changes).toEqual([]);
  });

  it('fallback: every Spot offering avoided and on-demand allowed → on-demand only', () => {
    const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
    const p = plan({ health: avoid(...all) });
    expect(p.fallback).toBe(true);
    expect(p.changes).toEqual(['fallback-to-on-demand']);
    expect(p.exclusions).toEqual([]);
    expect(p.added).toEqual([req(CAPACITY_TYPE_KEY, 'NotIn', 'spot')]);
    expect(p.offerings.after).toEqual({ spot: 0, onDemand: 9 });
    expect(p.fallbackSince).toEqual(NOW);
  });

  it('return to Spot: one Spot offering recovers → the fallback goes, what is still avoided is excluded, the on-demand nodes are to be replaced', () => {
    const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
    const fellBack = plan({ health: avoid(...all) });
    const later = new Date(NOW.getTime() + 3_600_000);
    const p = plan({ requirements: fellBack.after, record: recordOf(fellBack), health: avoid(...all.filter((x) => x !== 'c5.large/us-east-1a')), now: later, rails: { maxExcludedShare: 1 } });
    expect(p.fallback).toBe(false);
    expect(p.changes).toContain('return-to-spot');
    expect(p.returnToSpot).toEqual({ fallbackSince: NOW });
    expect(offered(p.after).filter((o) => o.endsWith('/spot'))).toEqual(['c5.large/us-east-1a/spot']);
  });

  it('hysteresis: a recovered Spot offering that the rails cannot isolate from the avoided ones keeps the fallback', () => {
    const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
    const fellBack = plan({ health: avoid(...all) });
    const p = plan({ requirements: fellBack.after, record: recordOf(fellBack), health: avoid(...all.filter((x) => x !== 'c5.large/us-east-1a')) });
    expect([p.fallback, p.write, p.returnToSpot]).toEqual([true, false, null]);
    expect(p.sentence).toContain('it stays on on-demand');
  });

  it('a fallback kept over passes keeps its start', () => {
    const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
    const fellBack = plan({ health: avoid(...all) });
    const p = plan({ requirements: fellBack.after, record: recordOf(fellBack), health: avoid(...all), now: new Date(NOW.getTime() + 60_000) });
    expect([p.write, p.fallbackSince]).toEqual([false, NOW]);
  });

  it('never zero offerings: every Spot offering avoided and on-demand not allowed → nothing excluded, held back', () => {
    const p = plan({ requirements: [SPOT_ONLY, req(INSTANCE_TYPE_KEY, 'In', 'm5.large'), req(ZONE_KEY, 'In', 'us-east-1a')], health: avoid('m5.large/us-east-1a') });
    expect(p.write).toBe(false);
    expect(p.heldBack).toEqual([expect.objectContaining({ reason: 'no-on-demand' })]);
    expect(p.offerings.after.spot).toBe(1);
  });

  it('never zero offerings: an exclusion that would leave no healthy Spot offering is not made', () => {
    // Spot only, two types in one zone: c5 avoided; m5 healthy. Excluding the zone would leave nothing: the type goes.
    const p = plan({ requirements: [SPOT_ONLY, req(INSTANCE_TYPE_KEY, 'In', 'c5.large', 'm5.large'), req(ZONE_KEY, 'In', 'us-east-1a')], health: avoid('c5.large/us-east-1a') });
    expect(p.exclusions.map((e) => [e.kind, e.value])).toEqual([['instance-type', 'c5.large']]);
    expect(p.offerings.after.spot).toBe(1);
  });

  it("minValues: an exclusion that breaks the owner's minValues is held back", () => {
    const flexible = { ...req(INSTANCE_TYPE_KEY, 'In', 'c5.large', 'm5.large'), minValues: 2 };
    const p = plan({ requirements: [SPOT_ONLY, flexible, req(ZONE_KEY, 'In', 'us-east-1a', 'us-east-1b')], health: avoid('c5.large/us-east-1a'), rails: { maxExcludedShare: 1 } });
    // Excluding c5.large breaks minValues; excluding us-east-1a keeps both types in us-east-1b.
    expect(p.exclusions.map((e) => [e.kind, e.value])).toEqual([['zone', 'us-east-1a']]);
    const both = plan({ requirements: [SPOT_ONLY, flexible, req(ZONE_KEY, 'In', 'us-east-1a')], health: avoid('c5.large/us-east-1a'), rails: { maxExcludedShare: 1 } });
    expect(both.heldBack).toEqual([expect.objectContaining({ reason: 'min-values' })]);
  });

  it('rail: no more than the bound on the share of offerings excluded', () => {
    const p = plan({ health: avoid('m5.large/us-east-1a', 'c5.large/us-east-1b'), rails: { maxExcludedShare: 0.4 } });
    // 18 offerings: one type is 6 (33%), two types 12 (67%) > 40%.
    expect(p.exclusions).toHaveLength(1);
    expect(p.heldBack).toEqual([expect.objectContaining({ reason: 'excluded-share-rail' })]);
    expect(p.heldBack[0]!.sentence).toContain('more than 40% of general');
  });

  it("someone else's edit is kept: re-planned on their requirements, steering's entry re-applied, never overwritten", () => {
    const narrowed = plan({ health: avoid('m5.large/us-east-1a') });
    const theirs = [...narrowed.after.filter((r) => r.key !== INSTANCE_TYPE_KEY || r.operator !== 'In'), req(INSTANCE_TYPE_KEY, 'In', 'm5.large', 'r5.large'), req('team', 'In', 'payments')];
    const p = plan({ requirements: theirs, record: recordOf(narrowed), health: avoid('m5.large/us-east-1a') });
    expect(p.foreignEdit).toBe(true);
    expect(p.original).toEqual([SPOT_AND_OD, req(INSTANCE_TYPE_KEY, 'In', 'm5.large', 'r5.large'), req('team', 'In', 'payments')]);
    // Re-planned on their requirements: with c5.large gone, the zone now loses fewer offerings than the type.
    expect(p.after).toEqual([...p.original, req(ZONE_KEY, 'NotIn', 'us-east-1a')]);
    expect(p.changes).toContain('replan-after-foreign-edit');
    expect(p.sentence).toContain('changed by someone else');
  });

  it("someone else removed steering's entry: it is written again, the rest of their change kept", () => {
    const narrowed = plan({ health: avoid('m5.large/us-east-1a') });
    const p = plan({ requirements: narrowed.original, record: recordOf(narrowed), health: avoid('m5.large/us-east-1a') });
    expect(p.foreignEdit).toBe(true);
    expect(p.after).toEqual(narrowed.after);
  });

  it('a NodePool without a capacity-type requirement launches on-demand only: nothing to steer', () => {
    const p = plan({ requirements: [ALL_TYPES], health: avoid('m5.large/us-east-1a') });
    expect(p.write).toBe(false);
    expect(p.offerings.original).toEqual({ spot: 0, onDemand: 9 });
  });

  it('two avoided pools in different types and zones: each excluded the smallest way', () => {
    const p = plan({ health: avoid('m5.large/us-east-1a', 'c5.large/us-east-1b'), rails: { maxExcludedShare: 0.8 } });
    // c5.large first (a tie of 5 offerings lost, the type preferred); then us-east-1a loses 3 where m5.large would lose 5.
    expect(p.exclusions.map((e) => [e.kind, e.value, e.loses])).toEqual([['instance-type', 'c5.large', 5], ['zone', 'us-east-1a', 3]]);
    expect(p.added).toEqual([req(INSTANCE_TYPE_KEY, 'NotIn', 'c5.large'), req(ZONE_KEY, 'NotIn', 'us-east-1a')]);
  });

  it('a requirement on a label no offering carries does not constrain offerings', () => {
    expect(offered([SPOT_ONLY, req('team', 'In', 'payments')])).toHaveLength(9);
    expect(offered([SPOT_ONLY, req('karpenter.k8s.aws/instance-family', 'NotIn', 'c5')])).toHaveLength(6);
  });

  describe("the cheapest offerings' prices are kept (rails.keepCheapest)", () => {
    /** market — the pools' Spot prices ($/h; the others at $0.05), the given ones avoided. */
    const market = (prices: Record<string, number>, ...avoided: string[]): Map<string, PoolHealthView> =>
      new Map(TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`)).map((p) => [p, { state: avoided.includes(p) ? ('avoid' as const) : ('healthy' as const), share: 0.8, spotPerHour: prices[p] ?? 0.05 }]));

    it.each([
      ['the zone goes when the type would take out a cheap offering, though the type loses no more', { 'm5.large/us-east-1b': 0.01, 'm5.large/us-east-1c': 0.011 }, 2, [['zone', 'us-east-1a']]],
      ['the type goes when the zone would take out a cheap offering', { 'c5.large/us-east-1a': 0.01, 'r5.large/us-east-1a': 0.011 }, 2, [['instance-type', 'm5.large']]],
      ['kept offerings are counted among those not avoided: an avoided cheap pool keeps nothing', { 'm5.large/us-east-1a': 0.001 }, 1, [['instance-type', 'm5.large']]],
      ['keepCheapest 0 keeps nothing: the smallest exclusion, as before', { 'm5.large/us-east-1b': 0.01, 'm5.large/us-east-1c': 0.011 }, 0, [['instance-type', 'm5.large']]],
    ] as const)('%s', (_, prices, keepCheapest, want) => {
      const p = plan({ health: market(prices, 'm5.large/us-east-1a'), rails: { keepCheapest } });
      expect(p.exclusions.map((e) => [e.kind, e.value])).toEqual(want);
      expect(p.heldBack).toEqual([]);
    });

    it('the plan says why the smaller exclusion was refused', () => {
      const p = plan({ health: market({ 'm5.large/us-east-1b': 0.01, 'm5.large/us-east-1c': 0.011 }, 'm5.large/us-east-1a'), rails: { keepCheapest: 2 } });
      expect(p.exclusions[0]!.alternative).toEqual({ kind: 'instance-type', value: 'm5.large', loses: 5, refused: 'launch-price-rail' });
      expect(p.exclusions[0]!.sentence).toContain('excluding instance type m5.large instead would lose 5 and take out m5.large in us-east-1b, m5.large in us-east-1c, among the cheapest.');
    });

    it('an avoided pool that only a cheap offering can cover is held back (launch-price-rail), saying what each way would take out', () => {
      const p = plan({ health: market({ 'm5.large/us-east-1b': 0.01, 'c5.large/us-east-1a': 0.012 }, 'm5.large/us-east-1a'), rails: { keepCheapest: 2 } });
      expect([p.write, p.exclusions]).toEqual([false, []]);
      expect(p.heldBack).toEqual([expect.objectContaining({ pool: { instanceType: 'm5.large', zone: 'us-east-1a' }, reason: 'launch-price-rail' })]);
      expect(p.heldBack[0]!.sentence).toBe(
        "m5.large in us-east-1a is kept: excluding instance type m5.large would take out m5.large in us-east-1b ($0.010/h) and excluding zone us-east-1a would take out c5.large in us-east-1a ($0.012/h), among general's 2 cheapest Spot offerings that are not avoided, with nothing as cheap left instead — Karpenter's launches would move to dearer pools.",
      );
    });

    it('an offering as cheap takes the place of one taken out: every price equal, the type goes as before', () => {
      const p = plan({ health: market({}, 'm5.large/us-east-1a') });
      expect([p.exclusions.map((e) => e.value), p.heldBack]).toEqual([['m5.large'], []]);
    });

    it('offerings without a price are never among the kept ones', () => {
      const health = new Map<string, PoolHealthView>([['m5.large/us-east-1a', { state: 'avoid' }], ['m5.large/us-east-1b', { state: 'healthy', spotPerHour: null }]]);
      const spot = OFFERINGS.filter((o) => o.capacityType === 'spot');
      expect(cheapestPrices(spot, health, 3)).toEqual([]);
      expect(plan({ health }).exclusions.map((e) => e.value)).toEqual(['m5.large']);
    });

    it('the cheapest prices are taken ascending, as many as asked', () => {
      const spot = OFFERINGS.filter((o) => o.capacityType === 'spot');
      expect(cheapestPrices(spot, market({ 'r5.large/us-east-1c': 0.01, 'c5.large/us-east-1b': 0.02, 'c5.large/us-east-1a': 0.03 }), 3)).toEqual([0.01, 0.02, 0.03]);
    });

    it.each([
      ['the same prices', [0.01, 0.02, 0.03], [0.01, 0.02, 0.03], false],
      ['an offering as cheap took the place of the one taken out', [0.01, 0.02, 0.02], [0.01, 0.02, 0.02], false],
      ['the second cheapest went, a dearer one in its place', [0.01, 0.02, 0.03], [0.01, 0.03, 0.05], true],
      ['fewer left, at the same prices', [0.01, 0.02, 0.03], [0.01, 0.02], false],
    ] as const)('raisesPrices: %s', (_, before, after, want) => {
      expect(raisesPrices(before, after)).toBe(want);
    });

    it('a pool held back to keep the cheapest offerings does not hold an on-demand fallback: the NodePool returns to Spot', () => {
      const all = TYPES.flatMap((t) => ZONES.map((z) => `${t}/${z}`));
      const fellBack = plan({ health: market({}, ...all) });
      // c5.large recovers in every zone, cheapest; m5.large/us-east-1a can then only be kept out by taking one of them.
      const recovered = all.filter((x) => !x.startsWith('c5.large') && x !== 'm5.large/us-east-1b');
      const p = plan({ requirements: fellBack.after, record: recordOf(fellBack), health: market({ 'c5.large/us-east-1a': 0.01, 'm5.large/us-east-1b': 0.011 }, ...recovered), rails: { keepCheapest: 2, maxExcludedShare: 1 } });
      expect(p.fallback).toBe(false);
      expect(p.changes).toContain('return-to-spot');
      expect(p.heldBack.map((h) => h.reason)).toContain('launch-price-rail');
    });
  });
});
